package bench

import (
	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// rotary_embedding_gathered is the hoisted gather's per-layer CosSin.Apply of q and k on
// Llama-3-8B shapes, the gather done once in setup as a forward pass does it once for every
// layer: q and k rotated in place, the gathered cos and sin rows (float32, RotaryDim/2 per token
// each) read. The positions are not read: the gather was.
func init() {
	Register(Case{Op: ops.RotaryEmbeddingGather.Name(), Model: "llama-3-8b", MaxTokens: 16384,
		Setup:  gatheredSetup(llama3, 32, 8),
		Derive: anyRoPE(func(s Shape) SetupFunc { return gatheredSetup(s.Spec, s.Heads, s.KVHeads) })})
}

func gatheredSetup(spec rotary.Spec, heads, kvHeads int) SetupFunc {
	return func(d tensor.DType, T int, disp *ops.Dispatcher) (func() error, []Operand, error) {
		emb, err := rotary.New(spec, rotary.WithDispatcher(disp))
		if err != nil {
			return nil, nil, err
		}
		var cs rotary.CosSin
		if err := emb.Gather(positions(spec, T), &cs); err != nil {
			return nil, nil, err
		}
		q, k := Filled(d, T, heads, spec.HeadSize), Filled(d, T, kvHeads, spec.HeadSize)
		touched := append(Updates(q, k), Operand{Read, AsBytes(cs.Cos())}, Operand{Read, AsBytes(cs.Sin())})
		return func() error { return cs.Apply(q, k) }, touched, nil
	}
}
