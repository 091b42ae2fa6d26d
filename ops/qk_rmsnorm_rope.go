package ops

import (
	"fmt"
	"math"

	"github.com/rotary-go/rotary/tensor"
)

// QKRMSNormRoPEArgs are the arguments of op qk_rmsnorm_rope, Qwen3's q_norm/k_norm followed by
// RoPE, fused: every head of query and key (in place) is RMS-normalized over its HeadSize
// elements with the casts of Hugging Face's Qwen3RMSNorm, and then its first RotaryDim elements
// rotate like rotary_embedding's.
//
// Per head of n = HeadSize elements x_j, in this order:
//
//	var  = SumSquares(x) / n                 (float32, in SumSquares' fixed order)
//	r    = float32(1 / √float32(var + ε))     (rsqrt of a float32 sum)
//	h_j  = dtype(float32(x_j · r))           (HF: hidden_states.to(input_dtype))
//	y_j  = dtype(float32(w_j · h_j))         (HF: self.weight * …, weight and x in one dtype)
//
// then pairs of y rotate by the token's cos/sin, o1 = y1·cos − y2·sin, o2 = y2·cos + y1·sin,
// computed in float32 and rounded once to the dtype; elements RotaryDim..HeadSize keep y.
type QKRMSNormRoPEArgs struct {
	RoPE
	// Positions and Cache give token t the cache row Positions.At(0, t), unless Cos is set.
	Positions Positions
	Cache     CosSinCache
	// Cos and Sin, when not nil, hold cos/sin already gathered per token (Half each), as in
	// GatheredArgs: for positions the cache cannot serve, and for MRoPE.
	Cos, Sin []float32
	Half     int
	// QWeight and KWeight are the norms' weights, 1-D [HeadSize], contiguous. KWeight is unused
	// without a key.
	QWeight, KWeight tensor.Tensor
	// Epsilon is the norm's ε, as the float32 that torch adds to the float32 variance.
	Epsilon float32
}

// CosSin returns token t's cos and sin halves.
func (a *QKRMSNormRoPEArgs) CosSin(t int) (cos, sin []float32) {
	if a.Cos != nil {
		return a.Cos[t*a.Half : (t+1)*a.Half], a.Sin[t*a.Half : (t+1)*a.Half]
	}
	return a.Cache.Row(a.Positions.At(0, t))
}

// QKRMSNormRoPE is the op.
var QKRMSNormRoPE = NewOp[QKRMSNormRoPEArgs]("qk_rmsnorm_rope")

// CheckNormWeight checks w as a norm weight: a float tensor [headSize], contiguous.
func CheckNormWeight(name string, w tensor.Tensor, headSize int) error {
	if err := checkFloat(name, w); err != nil {
		return err
	}
	if w.Rank() != 1 || w.Shape[0] != headSize {
		return fmt.Errorf("%s: shape %s: want [%d] (the head size)", name, tensor.ShapeString(w.Shape), headSize)
	}
	if headSize > 1 && w.Stride(0) != 1 {
		return fmt.Errorf("%s: must be contiguous (stride %d)", name, w.Stride(0))
	}
	return nil
}

// CheckEpsilon checks an RMSNorm ε (finite, ≥ 0) and returns it as float32.
func CheckEpsilon(eps float64) (float32, error) {
	if math.IsNaN(eps) || math.IsInf(eps, 0) || eps < 0 || eps > math.MaxFloat32 {
		return 0, fmt.Errorf("epsilon %v: want a finite number ≥ 0", eps)
	}
	return float32(eps), nil
}

// NewQKRMSNormWeights checks the norm weights and ε of qk_rmsnorm_rope for checked q and k (k
// may be absent, and then kWeight may be too) and fills them into a.
func NewQKRMSNormWeights(a *QKRMSNormRoPEArgs, q, k Heads, qWeight, kWeight tensor.Tensor, eps float64) error {
	if err := CheckNormWeight("q_weight", qWeight, q.HeadSize); err != nil {
		return err
	}
	if k.Present() {
		if err := CheckNormWeight("k_weight", kWeight, k.HeadSize); err != nil {
			return err
		}
	} else if !kWeight.IsZero() {
		if err := CheckNormWeight("k_weight", kWeight, q.HeadSize); err != nil {
			return err
		}
	}
	e, err := CheckEpsilon(eps)
	if err != nil {
		return err
	}
	a.QWeight, a.KWeight, a.Epsilon = qWeight, kWeight, e
	return nil
}
