//go:build amd64 && !purego

package cpu

import "github.com/rotary-go/rotary/tensor"

// interleaveRoPEOK reports whether the ISA has interleaveRoPEAsm's kernel for rows of n elements
// of dtype d: kv_rmsnorm_rope_cache's rotation, so that op's one-token kernels' ISAs and dtypes
// and a multiple of 64. The kernel reads a row 64 values at a time while it stores: in place
// (out overlapping x), only rows of 64.
func interleaveRoPEOK(i isa, d tensor.DType, n int, inPlace bool) bool {
	return n != 0 && n%64 == 0 && avx512For(i, d) && (!inPlace || n == 64)
}

// interleaveRoPEAsm runs interleave_rope's kernel (interleaveRoPEOK says when there is one) on
// `rows` rows of n elements, strides in bytes, all by the cos/sin row at cos and sin (dtype d).
func interleaveRoPEAsm(d tensor.DType, x, out *byte, rows, xstride, ostride int, cos, sin *byte, n int, _ bool) {
	switch d {
	case tensor.F32:
		interleaveRoPEF32AVX512(x, out, rows, xstride, ostride, cos, sin, n)
	case tensor.F16:
		interleaveRoPEF16AVX512(x, out, rows, xstride, ostride, cos, sin, n)
	case tensor.BF16:
		interleaveRoPEBF16AVX512BF16(x, out, rows, xstride, ostride, cos, sin, n)
	}
}
