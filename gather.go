package rotary

import (
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// CosSin holds cos and sin gathered for one forward pass's positions: the hoisted gather.
// Gather it once per forward pass and let every layer Apply it, instead of looking positions up
// in the cache again on every layer. A CosSin is reused across forward passes without allocating
// once it has grown to the largest batch; it must not be gathered into while layers apply it.
type CosSin struct {
	cos, sin []float32
	inv      []float64
	half     int
	tokens   int
	spec     Spec
	disp     *ops.Dispatcher
	// noRoPE: gathered by a layer without RoPE; Apply checks its arguments and writes nothing.
	noRoPE bool
}

// Tokens is the number of tokens gathered (0 for a nil or empty CosSin).
func (cs *CosSin) Tokens() int {
	if cs == nil {
		return 0
	}
	return cs.tokens
}

// Cos returns the gathered cos rows, [Tokens, RotaryDim/2] row-major (read-only); nil before
// a Gather.
func (cs *CosSin) Cos() []float32 {
	if cs == nil {
		return nil
	}
	return cs.cos
}

// Sin returns the gathered sin rows, [Tokens, RotaryDim/2] row-major (read-only); nil before
// a Gather.
func (cs *CosSin) Sin() []float32 {
	if cs == nil {
		return nil
	}
	return cs.sin
}

// Gather fills dst with the cos/sin of the given positions (shapes as in Forward). For a layer
// without RoPE (Spec.NoRoPE) dst holds no cos/sin, and its Apply leaves query and key untouched.
func (e *Embedding) Gather(positions tensor.Tensor, dst *CosSin) error {
	return e.gatherCall(positions, dst, -1)
}

// gatherCall is Gather of positions that are part of a call whose largest position is
// callMax (-1: positions are the whole call): the table and per-call frequencies are chosen by
// the call's largest position, so that a call gathered a part at a time gets the rows of one
// Gather.
func (e *Embedding) gatherCall(positions tensor.Tensor, dst *CosSin, callMax int64) error {
	if err := e.ready(); err != nil {
		return err
	}
	if dst == nil {
		return errNilDst
	}
	if e.spec.DualChunk != nil {
		return errDualChunk
	}
	tokens := 0
	if positions.Rank() > 0 {
		tokens = positions.Shape[positions.Rank()-1]
	}
	var pos ops.Positions
	if err := ops.PositionsInto(&pos, &positions, tokens, e.positionRows(), ops.NoLimit); err != nil {
		return err
	}
	if e.spec.NoRoPE {
		*dst = CosSin{cos: dst.cos[:0], sin: dst.sin[:0], inv: dst.inv[:0], tokens: pos.Tokens, spec: e.spec, disp: e.disp, noRoPE: true}
		return nil
	}
	pos.Max = max(pos.Max, callMax)
	e.gather(&pos, dst)
	return nil
}

// gather fills cs for checked positions. Rows the chosen table holds are copied from it; other
// rows are computed with the same float64 formula, so both give the same bits.
func (e *Embedding) gather(pos *ops.Positions, cs *CosSin) {
	h := e.spec.Half()
	n := pos.Tokens * h
	if cap(cs.cos) < n {
		cs.cos, cs.sin = make([]float32, n), make([]float32, n)
	}
	cs.cos, cs.sin = cs.cos[:n], cs.sin[:n]
	if cap(cs.inv) < h {
		cs.inv = make([]float64, h)
	}
	cs.inv = cs.inv[:h]
	cs.half, cs.tokens, cs.spec, cs.disp, cs.noRoPE = h, pos.Tokens, e.spec, e.disp, false

	table, cached := e.table(pos.Max)
	attn := e.spec.FrequenciesInto(cs.inv, int(pos.Max))
	var mr *MRoPE
	if pos.Rows > 1 {
		mr = e.spec.MRoPE
	}
	for t := range pos.Tokens {
		cos, sin := cs.cos[t*h:(t+1)*h], cs.sin[t*h:(t+1)*h]
		for i := range h {
			axis := 0
			if mr != nil {
				axis = mr.Axis(i)
			}
			p := pos.At(axis, t)
			if cached && p < int64(table.Rows) {
				c, s := table.Row(p)
				cos[i], sin[i] = c[i], s[i]
				continue
			}
			cosSin(cos[i:i+1], sin[i:i+1], float64(p), cs.inv[i:i+1], attn)
		}
	}
}

// Apply rotates query and key (may be the zero Tensor) in place with the gathered cos/sin; shapes
// as in Forward, with the token count Gather saw. On error nothing is written.
func (cs *CosSin) Apply(query, key tensor.Tensor) error {
	if cs == nil || (cs.half == 0 && !cs.noRoPE) {
		return errNotGathered
	}
	// Checked straight into the op's arguments, as in Forward.
	a := ops.GatheredArgs{Cos: cs.cos, Sin: cs.sin, Half: cs.half}
	if err := ops.QueryKeyInto(&a.Query, &a.Key, &query, &key, cs.spec.HeadSize); err != nil {
		return err
	}
	if a.Query.Tokens != cs.tokens {
		return errTokens(a.Query.Tokens, cs.tokens)
	}
	if cs.noRoPE {
		return nil
	}
	a.RotaryDim, a.GPTJ = cs.spec.RotaryDim, cs.spec.Style == GPTJ
	_, err := ops.Run(cs.disp, ops.RotaryEmbeddingGather, a)
	return err
}
