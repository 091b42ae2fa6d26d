package native

import (
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

func init() {
	ops.QKRMSNormRoPE.Register(&ops.Impl[ops.QKRMSNormRoPEArgs]{Backend: ops.Native, Fn: func(a ops.QKRMSNormRoPEArgs) { QKRMSNormRoPE(&a) }})
}

// QKRMSNormRoPE is op qk_rmsnorm_rope: every head of query and key is RMS-normalized (Hugging
// Face's Qwen3RMSNorm, with its casts to the activations' dtype) and then rotated, in place.
func QKRMSNormRoPE(a *ops.QKRMSNormRoPEArgs) {
	y := make([]float32, a.Query.HeadSize)
	for t := range a.Query.Tokens {
		cos, sin := a.CosSin(t)
		qkNormRotateHeads(&a.Query, t, a.QWeight, a.Epsilon, cos, sin, a.GPTJ, y)
		if a.Key.Present() {
			qkNormRotateHeads(&a.Key, t, a.KWeight, a.Epsilon, cos, sin, a.GPTJ, y)
		}
	}
}

// qkRound rounds v to dtype d and widens it back.
func qkRound(d tensor.DType, v float32) float32 {
	if d == tensor.F32 {
		return v
	}
	return tensor.ToFloat32(d, tensor.FromFloat32(d, v))
}

// qkNormRotateHeads normalizes and rotates every head of token t of h; y is scratch of HeadSize.
func qkNormRotateHeads(h *ops.Heads, t int, w tensor.Tensor, eps float32, cos, sin []float32, gptj bool, y []float32) {
	n := h.HeadSize
	half := len(cos)
	x := headsData(h)
	for head := range h.NumHeads {
		base := h.Off + t*h.TokenStride + head*h.HeadStride
		for j := range n {
			y[j] = x.Float32At(base + j)
		}
		r := RMSNormScale(SumSquares(y), n, eps)
		for j := range n {
			normed := qkRound(h.DType, float32(y[j]*r))
			y[j] = qkRound(h.DType, float32(w.Float32At(w.Offset+j)*normed))
		}
		for i := range half {
			p, q := pairIndex(i, half, gptj)
			y[p], y[q] = rotatePair(y[p], y[q], cos[i], sin[i])
		}
		for j := range n {
			x.SetFloat32(base+j, y[j])
		}
	}
}
