//go:build amd64 && !purego

package cpu

import (
	"unsafe"

	"github.com/rotary-go/rotary/tensor"
)

// backwardSumsAsm runs the backward sums' kernel of the ISA for the leading pairs of `rows` rows
// of dy and x (dtype d, half pairs a row, strides in bytes) and returns how many pairs it did:
// a multiple of 8, of 16 for bf16 NeoX on AVX-512; 0 without a kernel.
func backwardSumsAsm(i isa, d tensor.DType, gptj bool, dcos, dsin *float64, dy, x *byte, rows, ystride, xstride, half int) int {
	wide := i == isaAVX512 || i == isaAVX512BF16
	n := half &^ 7
	if wide && d == tensor.BF16 && !gptj {
		n = half &^ 15
	}
	if i == isaGeneric || n == 0 {
		return 0
	}
	switch {
	case wide && d == tensor.F32 && !gptj:
		backwardSumsNeoXF32AVX512(dcos, dsin, dy, x, rows, ystride, xstride, half, n)
	case wide && d == tensor.F32:
		backwardSumsGPTJF32AVX512(dcos, dsin, dy, x, rows, ystride, xstride, half, n)
	case wide && d == tensor.BF16 && !gptj:
		backwardSumsNeoXBF16AVX512(dcos, dsin, dy, x, rows, ystride, xstride, half, n)
	case wide && d == tensor.BF16:
		backwardSumsGPTJBF16AVX512(dcos, dsin, dy, x, rows, ystride, xstride, half, n)
	case wide && d == tensor.F16 && !gptj:
		backwardSumsNeoXF16AVX512(dcos, dsin, dy, x, rows, ystride, xstride, half, n)
	case wide && d == tensor.F16:
		backwardSumsGPTJF16AVX512(dcos, dsin, dy, x, rows, ystride, xstride, half, n)
	case d == tensor.F32 && !gptj:
		backwardSumsNeoXF32AVX2(dcos, dsin, dy, x, rows, ystride, xstride, half, n)
	case d == tensor.F32:
		backwardSumsGPTJF32AVX2(dcos, dsin, dy, x, rows, ystride, xstride, half, n)
	case d == tensor.BF16 && !gptj:
		backwardSumsNeoXBF16AVX2(dcos, dsin, dy, x, rows, ystride, xstride, half, n)
	case d == tensor.BF16:
		backwardSumsGPTJBF16AVX2(dcos, dsin, dy, x, rows, ystride, xstride, half, n)
	case d == tensor.F16 && !gptj:
		backwardSumsNeoXF16AVX2(dcos, dsin, dy, x, rows, ystride, xstride, half, n)
	case d == tensor.F16:
		backwardSumsGPTJF16AVX2(dcos, dsin, dy, x, rows, ystride, xstride, half, n)
	default:
		return 0
	}
	return n
}

// hasBackwardFused reports whether the ISA has fused backward kernels (every dtype, both styles).
func hasBackwardFused(i isa) bool {
	return i == isaAVX512 || i == isaAVX512BF16
}

// backwardFusedAsm runs the fused backward kernel of the ISA, dtype and style
// (hasBackwardFused) on p.
func backwardFusedAsm(i isa, d tensor.DType, gptj bool, p *backwardFused) {
	b := (*byte)(unsafe.Pointer(p))
	switch {
	case d == tensor.BF16 && i == isaAVX512BF16 && gptj:
		backwardFusedGPTJBF16AVX512BF16(b)
	case d == tensor.BF16 && i == isaAVX512BF16:
		backwardFusedNeoXBF16AVX512BF16(b)
	case d == tensor.BF16 && gptj:
		backwardFusedGPTJBF16AVX512(b)
	case d == tensor.BF16:
		backwardFusedNeoXBF16AVX512(b)
	case d == tensor.F16 && gptj:
		backwardFusedGPTJF16AVX512(b)
	case d == tensor.F16:
		backwardFusedNeoXF16AVX512(b)
	case gptj:
		backwardFusedGPTJF32AVX512(b)
	default:
		backwardFusedNeoXF32AVX512(b)
	}
}
