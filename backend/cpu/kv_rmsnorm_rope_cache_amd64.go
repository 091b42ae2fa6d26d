//go:build amd64 && !purego

package cpu

import (
	"math"
	"unsafe"

	"github.com/rotary-go/rotary/tensor"
)

// kvcNormAsm writes y = float32(float32(x·r)·g) with r the RMSNorm factor of x
// (native.RMSNormScale(native.SumSquares(x), len(x), eps)), len(x) a multiple of 16, len(y), len(g) ≥
// len(x); false when there is no kernel for the ISA and length, and then nothing was done.
func kvcNormAsm(i isa, y, x, g []float32, eps float32) bool {
	n := len(x)
	if n == 0 || n%16 != 0 || len(y) < n || len(g) < n || (i != isaAVX512 && i != isaAVX512BF16) {
		return false
	}
	kvcNormAVX512(&y[0], &x[0], &g[0], n, eps)
	return true
}

// kvcGroupOK reports whether the ISA has kvcGroupAsm's multi-token kernel for dtype d with dv
// normalized and dk rotated elements: dv a multiple of 32, dk of 64; f32 and f16 on AVX-512,
// bf16 on AVX512BF16.
func kvcGroupOK(i isa, d tensor.DType, dv, dk int) bool {
	return dv != 0 && dv%32 == 0 && dk != 0 && dk%64 == 0 && avx512For(i, d)
}

// kvcGroupAsm runs kv_rmsnorm_rope_cache's multi-token kernel for dtype d on the n
// (1..kvcGroupSize) tokens of grp (kvcGroupOK says when there is one), w's gamma widened: in
// bf16 as kvcDeinterleave lays it out, in element order otherwise.
func kvcGroupAsm(d tensor.DType, grp *kvcGroup, n int, w *kvcWeight, scratch *kvcScratch, dk int) {
	g, gd := (*byte)(unsafe.Pointer(grp)), w.g
	switch d {
	case tensor.F32:
		kvcGroupF32AVX512(g, n, &gd[0], &scratch[0], len(gd), dk, w.eps)
	case tensor.F16:
		kvcGroupF16AVX512(g, n, &gd[0], &scratch[0], len(gd), dk, w.eps)
	case tensor.BF16:
		kvcGroupBF16AVX512BF16(g, n, &gd[0], &scratch[0], len(gd), dk, w.eps, w.rMin)
	}
}

// kvcGammaSplitAsm widens the bf16 gamma src into dst in the multi-token kernel's layout (as
// kvcDeinterleave lays it out) and returns kvcLeast of the result and true, or false, having
// done nothing, when the ISA has no kernel for it or the length is not a multiple of 32.
func kvcGammaSplitAsm(i isa, dst []float32, src []uint16) (least float32, ok bool) {
	n := len(dst)
	if i != isaAVX512BF16 && i != isaAVX512 || n == 0 || n%32 != 0 || len(src) < n {
		return 0, false
	}
	m := kvcGammaSplitBF16(&dst[0], &src[0], n) + 1 // the least magnitude, 0 when all are zero
	return math.Float32frombits(uint32(m) << 16), true
}
