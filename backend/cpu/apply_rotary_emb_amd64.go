//go:build amd64 && !purego

package cpu

import "github.com/rotary-go/rotary/tensor"

// backwardSumsAsm runs the backward sums' kernel of the ISA for the first n pairs (n a multiple
// of 8) of `rows` rows of dy and x (dtype d, strides in bytes) and reports whether it had one.
func backwardSumsAsm(i isa, d tensor.DType, gptj bool, dcos, dsin *float64, dy, x *byte, rows, ystride, xstride, half, n int) bool {
	wide := i == isaAVX512 || i == isaAVX512BF16
	if i == isaGeneric {
		return false
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
		return false
	}
	return true
}
