//go:build amd64 && !purego

package cpu

import "github.com/rotary-go/rotary/tensor"

// query_scale's kernels scale the leading multiple of 16 elements of a run in one pass (widen,
// multiply, round, store) and return how many; the caller finishes in Go.

// queryScaleF32Asm multiplies x's leading multiple of 16 elements by m in place.
func queryScaleF32Asm(i isa, x []float32, m float32) int {
	n := len(x) &^ 15
	if n == 0 {
		return 0
	}
	switch i {
	case isaAVX512, isaAVX512BF16:
		queryScaleF32AVX512(&x[0], n, m)
	case isaAVX2:
		queryScaleF32AVX2(&x[0], n, m)
	default:
		return 0
	}
	return n
}

// queryScaleBitsAsm multiplies x's leading multiple of 16 elements (bf16 or f16 bits) by m in
// place, each product rounded to d as tensor.FromFloat32 rounds.
func queryScaleBitsAsm(i isa, d tensor.DType, x []uint16, m float32) int {
	n := len(x) &^ 15
	if n == 0 || i == isaGeneric {
		return 0
	}
	switch {
	case d == tensor.BF16 && i == isaAVX512BF16:
		queryScaleBF16AVX512BF16(&x[0], n, m)
	case d == tensor.BF16 && i == isaAVX512:
		queryScaleBF16AVX512(&x[0], n, m)
	case d == tensor.BF16:
		queryScaleBF16AVX2(&x[0], n, m)
	case d == tensor.F16 && i == isaAVX2:
		queryScaleF16AVX2(&x[0], n, m)
	case d == tensor.F16:
		queryScaleF16AVX512(&x[0], n, m)
	default:
		return 0
	}
	return n
}
