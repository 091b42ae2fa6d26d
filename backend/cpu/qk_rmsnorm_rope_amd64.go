//go:build amd64 && !purego

package cpu

import (
	"math"

	"github.com/rotary-go/rotary/tensor"
)

// qkNormAsm normalizes `heads` heads of n elements at x (stride bytes apart) in place, as
// qk_rmsnorm_rope does, with w the widened weight; false when there is no kernel for the ISA,
// dtype and n (a multiple of 16), and then nothing was done.
func qkNormAsm(i isa, d tensor.DType, x *byte, heads, stride int, w []float32, n int, eps float32) bool {
	if n == 0 || n%16 != 0 || len(w) < n || (i != isaAVX512 && i != isaAVX512BF16) {
		return false
	}
	switch {
	case d == tensor.F32:
		qkNormF32AVX512(x, heads, stride, &w[0], n, eps)
	case d == tensor.BF16 && i == isaAVX512BF16:
		qkNormBF16AVX512BF16(x, heads, stride, &w[0], n, eps)
	case d == tensor.BF16:
		qkNormBF16AVX512(x, heads, stride, &w[0], n, eps)
	case d == tensor.F16:
		qkNormF16AVX512(x, heads, stride, &w[0], n, eps)
	default:
		return false
	}
	return true
}

// qkNormRoPEAsm normalizes and rotates up to `heads` heads at x (stride bytes apart) in one
// kernel, when there is one for the ISA, dtype and shape: heads of 128 rotated full width, NeoX;
// f32 and f16 on AVX-512, bf16 on AVX512BF16 (with fw, w as qkFusedWeight lays it out). It
// returns how many heads it wrote (the bf16 kernel stops before a head whose exact
// rounding it cannot do: the caller finishes that one) and false when there is no kernel, and
// then nothing was done. scratch holds qkScales float32, a qkScratch's worth in f16.
func qkNormRoPEAsm(i isa, d tensor.DType, gptj bool, x *byte, heads, stride int, w []float32, fw *[128]float32, cos, sin []float32, eps float32, scratch []float32) (int, bool) {
	if gptj || len(w) != 128 || len(cos) != 64 || len(sin) != 64 || (i != isaAVX512 && i != isaAVX512BF16) ||
		len(scratch) < qkScales || d == tensor.F16 && len(scratch) < len(qkScratch{}) {
		return 0, false
	}
	switch {
	case d == tensor.F32:
		qkNormRoPENeoX128F32AVX512(x, heads, stride, &w[0], &cos[0], &sin[0], &scratch[0], eps)
	case d == tensor.F16:
		qkNormRoPENeoX128F16AVX512(x, heads, stride, &w[0], &cos[0], &sin[0], &scratch[0], eps)
	case d == tensor.BF16 && i == isaAVX512BF16 && fw != nil:
		return qkNormRoPENeoX128BF16AVX512BF16(x, heads, stride, &fw[0], &cos[0], &sin[0], &scratch[0], eps), true
	default:
		return 0, false
	}
	return heads, true
}

// qkFusedWeight lays w out in dst for the fused bf16 kernel and returns dst, or nil when that
// kernel does not take it (another ISA or dtype, not 128 values, or an infinite weight: the
// kernel's fast variant assumes none, see qkKernel.heads in the generator).
func qkFusedWeight(i isa, d tensor.DType, dst *[128]float32, w []float32) *[128]float32 {
	if i != isaAVX512BF16 || d != tensor.BF16 || len(w) != 128 {
		return nil
	}
	for _, v := range w {
		if math.IsInf(float64(v), 0) {
			return nil
		}
	}
	qkWeightBF16(&dst[0], &w[0])
	return dst
}
