package cpu

import (
	"github.com/rotary-go/rotary/backend/native"
	"github.com/rotary-go/rotary/ops"
)

// apply_rotary_emb_thd on the CPU: the packed tokens split across the pool; each token's heads go
// to the full-row rotation kernels together, by the table row of the token's position in its
// sequence (apply_rotary_emb's rows, with the row looked up instead of broadcast). The backward
// pass is the same rotation of dy by the sin row with each value replaced by minus its pair
// partner's, as applyRotaryEmbBackward does it: dx = dy·cos + rotateᵀ(dy·sin) with native's
// arithmetic, so both directions match backend/native bit for bit.

func init() {
	ops.ApplyRotaryEmbTHD.Register(&ops.Impl[ops.ApplyRotaryEmbTHDArgs]{Backend: Name, Priority: 10, Fn: func(a ops.ApplyRotaryEmbTHDArgs) {
		if a.RotaryDim > len(rowBuffers{}.cos) {
			native.ApplyRotaryEmbTHD(&a)
			return
		}
		applyRotaryEmbTHD(&a, false)
	}})
	ops.ApplyRotaryEmbTHDBackward.Register(&ops.Impl[ops.ApplyRotaryEmbTHDBackwardArgs]{Backend: Name, Priority: 10, Fn: func(a ops.ApplyRotaryEmbTHDBackwardArgs) {
		if a.RotaryDim > len(rowBuffers{}.cos) {
			native.ApplyRotaryEmbTHDBackward(&a)
			return
		}
		// The forward's arguments with dy in x's place and dx in out's.
		f := ops.ApplyRotaryEmbTHDArgs{PackedSeqs: a.PackedSeqs, X: a.DY, Out: a.DX, Cos: a.Cos, Sin: a.Sin, GPTJ: a.GPTJ, RotaryDim: a.RotaryDim}
		applyRotaryEmbTHD(&f, true)
	}})
}

// applyRotaryEmbTHD splits the tokens across the pool when the call is large enough.
func applyRotaryEmbTHD(a *ops.ApplyRotaryEmbTHDArgs, backward bool) {
	T := a.X.Shape[0]
	if T == 0 || a.X.Shape[1] == 0 || a.X.Shape[2] == 0 {
		return
	}
	if T >= 2 && ThreadsFor(2*a.X.Len()*a.X.DType.Size()) >= 2 {
		j := thdJob{a: *a, backward: backward}
		if parallel(&j, T) {
			return
		}
	}
	thdRows(a, backward, 0, T)
}

// thdJob is an apply_rotary_emb_thd call as the pool runs it, by packed token; with backward
// set, the backward pass (dy in x's place, dx in out's).
type thdJob struct {
	a        ops.ApplyRotaryEmbTHDArgs
	backward bool
}

var thdSlot thdJob

func (*thdJob) slot() *thdJob { return &thdSlot }

func (j *thdJob) run(lo, hi int) { thdRows(&j.a, j.backward, lo, hi) }

// thdRows runs tokens [lo, hi) of the packed batch: out = rotation of x, or with backward set
// the transposed rotation.
func thdRows(a *ops.ApplyRotaryEmbTHDArgs, backward bool, lo, hi int) {
	k := active
	heads, width, d := a.X.Shape[1], a.X.Shape[2], a.RotaryDim
	xt, xh := a.X.Stride(0), a.X.Stride(1)
	ot, oh := a.Out.Stride(0), a.Out.Stride(1)
	// cos and sin rows by position: Tensor.Index, without copying the tensor per token.
	ct, st := a.Cos.Stride(0), a.Sin.Stride(0)
	var buf rowBuffers
	var flipped [len(buf.sin)]float32
	var cos, sin []float32
	loaded := int64(-1)
	for b, t := 0, lo; t < hi; b++ {
		sLo, sHi := a.Local(b)
		if sHi <= t {
			continue // a sequence before the range, or empty
		}
		start := a.Start(b)
		for ; t < min(sHi, hi); t++ {
			pos := start + int64(ops.CPIndex(t-sLo, sHi-sLo, a.CPSize, a.CPRank))
			if pos != loaded {
				loaded = pos
				cos = widenRow(k, &a.Cos, a.Cos.Offset+int(pos)*ct, d, buf.cos[:])
				sin = widenRow(k, &a.Sin, a.Sin.Offset+int(pos)*st, d, buf.sin[:])
				if backward {
					negatedPartners(flipped[:d], sin, a.GPTJ)
					sin = flipped[:d]
				}
			}
			xo, oo := a.X.Offset+t*xt, a.Out.Offset+t*ot
			if width > d {
				for h := range heads {
					copyRow(a.Out, oo+h*oh+d, a.X, xo+h*xh+d, width-d)
				}
			}
			if d > 0 {
				rotateRows(k, &a.Out, oo, heads, oh, &a.X, xo, xh, cos, sin, a.GPTJ)
			}
		}
	}
}
