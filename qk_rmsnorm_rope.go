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
// squares summed in float32 in one fixed order, backend/native.SumSquares, so that every backend
// agrees to the bit), x·rsqrt(variance + eps) rounded to the activations' dtype
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
	// Checked straight into the op's arguments, as Forward's are: a decode call normalises and
	// rotates one token.
	var a ops.QKRMSNormRoPEArgs
	if err := ops.QueryKeyInto(&a.Query, &a.Key, &query, &key, e.spec.HeadSize); err != nil {
		return err
	}
	a.RotaryDim, a.GPTJ = e.spec.RotaryDim, e.spec.Style == GPTJ
	if err := ops.NewQKRMSNormWeights(&a, a.Query, a.Key, qWeight, kWeight, eps); err != nil {
		return err
	}
	if err := ops.PositionsInto(&a.Positions, &positions, a.Query.Tokens, e.positionRows(), ops.NoLimit); err != nil {
		return err
	}
	if e.spec.DualChunk != nil {
		return errDualChunk
	}
	if c := e.tableFor(a.Positions.Max); c != nil && a.Positions.Rows == 1 && a.Positions.Max < int64(c.Rows) {
		a.Cache = *c
		_, err := ops.Run(e.disp, ops.QKRMSNormRoPE, a)
		return err
	}
	// MRoPE positions, and positions the cache cannot serve, go through the gather.
	cs := e.scratch.Get().(*CosSin)
	defer e.scratch.Put(cs)
	e.gather(&a.Positions, cs)
	a.Positions = ops.Positions{} // the kernel reads cos and sin, not the table
	a.Cos, a.Sin, a.Half = cs.cos, cs.sin, cs.half
	_, err := ops.Run(e.disp, ops.QKRMSNormRoPE, a)
	return err
}
