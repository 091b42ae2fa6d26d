package cpu

import (
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// qk_rmsnorm_rope: each token's heads are normalized in place, in the activations' dtype, and
// then rotated by the same kernels as rotary_embedding. The normalized values are exactly the
// reference's intermediate y (already rounded to the dtype), so the rotation reads them back
// without loss and the result matches backend/native bit for bit.

func init() {
	ops.QKRMSNormRoPE.Register(&ops.Impl[ops.QKRMSNormRoPEArgs]{Backend: Name, Priority: 10, Fn: func(a ops.QKRMSNormRoPEArgs) {
		qkRMSNormRoPE(&a, 0, a.Query.Tokens)
	}})
}

// maxStackWeight is the head size up to which the widened weights live on the stack.
const maxStackWeight = 512

func qkRMSNormRoPE(a *ops.QKRMSNormRoPEArgs, lo, hi int) {
	k := active
	n := a.Query.HeadSize
	var qStack, kStack [maxStackWeight]float32
	qw, kw := qStack[:0], kStack[:0]
	if n > maxStackWeight {
		qw, kw = make([]float32, 0, n), make([]float32, 0, n)
	}
	qw = widen(qw[:n], a.QWeight)
	if a.Key.Present() {
		kw = widen(kw[:n], a.KWeight)
	}
	for t := lo; t < hi; t++ {
		cos, sin := a.CosSin(t)
		normHeads(&a.Query, t, qw, a.Epsilon)
		rotateHeads(k, &a.Query, t, cos, sin, a.GPTJ)
		if a.Key.Present() {
			normHeads(&a.Key, t, kw, a.Epsilon)
			rotateHeads(k, &a.Key, t, cos, sin, a.GPTJ)
		}
	}
}

// widen converts the contiguous 1-D float tensor w into dst (len(dst) elements).
func widen(dst []float32, w tensor.Tensor) []float32 {
	if w.DType == tensor.F32 {
		copy(dst, w.F32[w.Offset:w.Offset+len(dst)])
		return dst
	}
	src := w.Bits[w.Offset : w.Offset+len(dst)]
	for j, b := range src {
		dst[j] = tensor.ToFloat32(w.DType, b)
	}
	return dst
}

// normHeads replaces every head of token t of h by its RMS norm times w, with the reference's
// roundings (ops.QKRMSNormRoPEArgs).
func normHeads(h *ops.Heads, t int, w []float32, eps float32) {
	n := h.HeadSize
	base := h.Off + t*h.TokenStride
	for head := range h.NumHeads {
		off := base + head*h.HeadStride
		if h.DType == tensor.F32 {
			normF32(h.F32[off:off+n:off+n], w, eps)
		} else {
			normBits(h.DType, h.Bits[off:off+n:off+n], w, eps)
		}
	}
}

func normF32(x, w []float32, eps float32) {
	w = w[:len(x)]
	sum := 0.0
	for _, v := range x {
		f := float64(v)
		sum += float64(f * f)
	}
	r := ops.RMSNormScale(sum, len(x), eps)
	for j, v := range x {
		x[j] = w[j] * float32(v*r)
	}
}

func normBits(d tensor.DType, x []uint16, w []float32, eps float32) {
	w = w[:len(x)]
	sum := 0.0
	for _, b := range x {
		f := float64(tensor.ToFloat32(d, b))
		sum += float64(f * f)
	}
	r := ops.RMSNormScale(sum, len(x), eps)
	for j, b := range x {
		normed := tensor.ToFloat32(d, tensor.FromFloat32(d, float32(tensor.ToFloat32(d, b)*r)))
		x[j] = tensor.FromFloat32(d, w[j]*normed)
	}
}
