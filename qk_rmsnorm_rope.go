package rotary

import (
	"fmt"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// ForwardQKNorm is op qk_rmsnorm_rope: Qwen3's per-head q_norm/k_norm followed by the
// embedding's RoPE, fused into one pass over query and key, in place.
//
// positions, query and key are as in Forward (key may be the zero Tensor, and then kWeight may
// be too). qWeight and kWeight are the norms' weights, [HeadSize] float tensors, contiguous; eps
// is rms_norm_eps (finite, ≥ 0).
//
// The norm is Hugging Face's Qwen3RMSNorm step by step: in float32, variance = mean(x²) (the
// squares summed exactly in float64 and the mean rounded once to float32, so the result does not
// depend on a reduction order), x·rsqrt(variance + eps) rounded to the activations' dtype
// (hidden_states.to(input_dtype)), then multiplied by the weight and rounded to that dtype again
// (self.weight * …; HF checkpoints hold the weight in the activations' dtype, and a weight of
// another dtype is widened to float32 for the product). The rotation of the first RotaryDim
// elements then follows the rest of the library: cos/sin from the float32 cache, float32
// arithmetic, one rounding. On error nothing is written. An embedding of a layer without RoPE
// (Spec.NoRoPE) refuses: the norm alone is not this op.
func (e *Embedding) ForwardQKNorm(positions, query, key, qWeight, kWeight tensor.Tensor, eps float64) error {
	if err := e.ready(); err != nil {
		return err
	}
	if e.spec.NoRoPE {
		// The op is one fused pass of norm and rotation; it has no norm-only form to run.
		return fmt.Errorf("ForwardQKNorm: %w; normalise q and k without rotating them", errNoRoPE)
	}
	q, k, err := ops.NewQueryKey(query, key, e.spec.HeadSize)
	if err != nil {
		return err
	}
	a := ops.QKRMSNormRoPEArgs{RoPE: e.rope(q, k)}
	if err := ops.NewQKRMSNormWeights(&a, q, k, qWeight, kWeight, eps); err != nil {
		return err
	}
	pos, err := ops.NewPositions(positions, q.Tokens, e.positionRows(), ops.NoLimit)
	if err != nil {
		return err
	}
	if e.spec.DualChunk != nil {
		return errDualChunk
	}
	if c, ok := e.table(pos.Max); ok && pos.Rows == 1 && pos.Max < int64(c.Rows) {
		a.Positions, a.Cache = pos, c
		_, err = ops.Run(e.disp, ops.QKRMSNormRoPE, a)
		return err
	}
	// MRoPE positions, and positions the cache cannot serve, go through the gather.
	cs := e.scratch.Get().(*CosSin)
	defer e.scratch.Put(cs)
	e.gather(&pos, cs)
	a.Cos, a.Sin, a.Half = cs.cos, cs.sin, cs.half
	_, err = ops.Run(e.disp, ops.QKRMSNormRoPE, a)
	return err
}
