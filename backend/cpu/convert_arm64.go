//go:build arm64 && !purego

package cpu

import "github.com/rotary-go/rotary/tensor"

// The bulk conversions of widenBits and narrowBits on NEON. Each does the leading multiple of
// 16 elements of its slices and returns how many; the caller finishes in Go.

// widenAsm widens src (bf16 or f16 bits) into dst, len(dst) ≤ len(src): exactly, except that
// f16 signalling NaNs come out quieted (FCVTL), which is all the same to its callers: every
// widened value goes through a multiplication before it is stored.
func widenAsm(i isa, d tensor.DType, dst []float32, src []uint16) int {
	n := len(dst) &^ 15
	if n == 0 || i != isaNEON {
		return 0
	}
	_ = src[n-1]
	switch d {
	case tensor.BF16:
		widenBF16NEON(&dst[0], &src[0], n)
	case tensor.F16:
		widenF16NEON(&dst[0], &src[0], n)
	default:
		return 0
	}
	return n
}

// narrowAsm rounds src into dst (bf16 or f16 bits, nearest even), len(src) ≤ len(dst).
func narrowAsm(i isa, d tensor.DType, dst []uint16, src []float32) int {
	n := len(src) &^ 15
	if n == 0 || i != isaNEON {
		return 0
	}
	_ = dst[n-1]
	switch d {
	case tensor.BF16:
		narrowBF16NEON(&dst[0], &src[0], n)
	case tensor.F16:
		narrowF16NEON(&dst[0], &src[0], n)
	default:
		return 0
	}
	return n
}
