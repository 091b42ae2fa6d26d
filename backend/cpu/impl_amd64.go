//go:build amd64 && !purego

package cpu

import (
	"math"
	"unsafe"

	"golang.org/x/sys/cpu"

	"github.com/rotary-go/rotary/tensor"
)

//go:generate sh -c "cd _asm && go run . -pkg cpu -out ../rotate_amd64.s -stubs ../rotate_amd64_stubs.go -dispatch ../dispatch_amd64.go"

var (
	avx512bf16 = &kernels{name: "avx512bf16", isa: isaAVX512BF16}
	avx512     = &kernels{name: "avx512", isa: isaAVX512}
	avx2       = &kernels{name: "avx2", isa: isaAVX2}
)

// available lists the implementations this machine runs, best first.
func available() []*kernels {
	var impls []*kernels
	x := cpu.X86
	if x.HasAVX512F && x.HasAVX512BW && x.HasAVX512VL && x.HasAVX512DQ && x.HasAVX2 && x.HasF16C {
		if x.HasAVX512BF16 {
			impls = append(impls, avx512bf16)
		}
		impls = append(impls, avx512)
	}
	if x.HasAVX2 && x.HasF16C {
		impls = append(impls, avx2)
	}
	return append(impls, generic)
}

// kv_rmsnorm_rope_cache's bulk conversions. Each does the leading multiple of 16 elements of its
// slices and returns how many; the caller finishes in Go.

// widenAsm widens src (bf16 or f16 bits) into dst, len(dst) ≤ len(src): exactly, except that
// f16 signalling NaNs come out quieted (VCVTPH2PS), which is all the same to its callers: every
// widened value goes through a multiplication before it is stored.
func widenAsm(i isa, d tensor.DType, dst []float32, src []uint16) int {
	n := len(dst) &^ 15
	if n == 0 || i == isaGeneric {
		return 0
	}
	_ = src[n-1]
	wide := i == isaAVX512 || i == isaAVX512BF16
	switch {
	case d == tensor.BF16 && wide:
		widenBF16AVX512(&dst[0], &src[0], n)
	case d == tensor.BF16:
		widenBF16AVX2(&dst[0], &src[0], n)
	case d == tensor.F16 && wide:
		widenF16AVX512(&dst[0], &src[0], n)
	case d == tensor.F16:
		widenF16AVX2(&dst[0], &src[0], n)
	default:
		return 0
	}
	return n
}

// narrowAsm rounds src into dst (bf16 or f16 bits, nearest even), len(src) ≤ len(dst).
func narrowAsm(i isa, d tensor.DType, dst []uint16, src []float32) int {
	n := len(src) &^ 15
	if n == 0 || i == isaGeneric {
		return 0
	}
	_ = dst[n-1]
	switch {
	case d == tensor.BF16 && i == isaAVX512BF16:
		narrowBF16AVX512BF16(&dst[0], &src[0], n)
	case d == tensor.BF16 && i == isaAVX512:
		narrowBF16AVX512(&dst[0], &src[0], n)
	case d == tensor.BF16:
		narrowBF16AVX2(&dst[0], &src[0], n)
	case d == tensor.F16 && i == isaAVX2:
		narrowF16AVX2(&dst[0], &src[0], n)
	case d == tensor.F16:
		narrowF16AVX512(&dst[0], &src[0], n)
	default:
		return 0
	}
	return n
}

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

// kvcTokenAsm runs kv_rmsnorm_rope_cache's one-token kernel (kvcTokenOK says when there is one):
// ckv and krope receive the rounded rows, kv, cos and sin are the token's rows, g the widened
// gamma.
func kvcTokenAsm(i isa, d tensor.DType, ckv, krope, kv, cos, sin *byte, g []float32, dk int, eps float32) {
	switch d {
	case tensor.F32:
		kvcTokenF32AVX512(ckv, krope, kv, cos, sin, &g[0], len(g), dk, eps)
	case tensor.F16:
		kvcTokenF16AVX512(ckv, krope, kv, cos, sin, &g[0], len(g), dk, eps)
	case tensor.BF16:
		kvcTokenBF16AVX512BF16(ckv, krope, kv, cos, sin, &g[0], len(g), dk, eps)
	}
}

// interleaveRoPEOK reports whether the ISA has interleaveRoPEAsm's kernel for rows of n elements
// of dtype d: kv_rmsnorm_rope_cache's rotation, so the one-token kernels' ISAs and dtypes and a
// multiple of 64.
func interleaveRoPEOK(i isa, d tensor.DType, n int) bool { return kvcTokenOK(i, d, 32, n) }

// interleaveRoPEAsm runs interleave_rope's kernel (interleaveRoPEOK says when there is one) on
// `rows` rows of n elements, strides in bytes, all by the cos/sin row at cos and sin (dtype d).
func interleaveRoPEAsm(d tensor.DType, x, out *byte, rows, xstride, ostride int, cos, sin *byte, n int) {
	switch d {
	case tensor.F32:
		interleaveRoPEF32AVX512(x, out, rows, xstride, ostride, cos, sin, n)
	case tensor.F16:
		interleaveRoPEF16AVX512(x, out, rows, xstride, ostride, cos, sin, n)
	case tensor.BF16:
		interleaveRoPEBF16AVX512BF16(x, out, rows, xstride, ostride, cos, sin, n)
	}
}

// kvcGroupOK reports whether the ISA has kvcGroupAsm's multi-token kernel for dtype d (for rows
// kvcTokenOK accepts): bf16 on AVX512BF16.
func kvcGroupOK(i isa, d tensor.DType) bool { return d == tensor.BF16 && i == isaAVX512BF16 }

// kvcGroupAsm runs kv_rmsnorm_rope_cache's multi-token kernel on the n (1..kvcGroupSize) tokens of
// grp (kvcGroupOK says when there is one), gd the widened gamma as kvcDeinterleave lays it out.
func kvcGroupAsm(grp *kvcGroup, n int, gd []float32, scratch *[kvcGroupSize]float32, dk int, eps float32) {
	kvcGroupBF16AVX512BF16((*byte)(unsafe.Pointer(grp)), n, &gd[0], &scratch[0], len(gd), dk, eps)
}

// kvcGammaSplitAsm widens the bf16 gamma src into dst in the multi-token kernel's layout (as
// kvcDeinterleave lays it out) and reports true, or false, having done nothing, when the ISA has
// no kernel for it or the length is not a multiple of 32.
func kvcGammaSplitAsm(i isa, dst []float32, src []uint16) bool {
	n := len(dst)
	if i != isaAVX512BF16 && i != isaAVX512 || n == 0 || n%32 != 0 || len(src) < n {
		return false
	}
	kvcGammaSplitBF16(&dst[0], &src[0], n)
	return true
}

// kvcTokenOK reports whether the ISA has a one-token kernel for dtype d with dv normalized and dk
// rotated elements: dv a multiple of 32, dk of 64; f32 and f16 on AVX-512, bf16 on AVX512BF16.
func kvcTokenOK(i isa, d tensor.DType, dv, dk int) bool {
	if dv == 0 || dv%32 != 0 || dk == 0 || dk%64 != 0 {
		return false
	}
	switch d {
	case tensor.F32, tensor.F16:
		return i == isaAVX512 || i == isaAVX512BF16
	case tensor.BF16:
		return i == isaAVX512BF16
	}
	return false
}

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
// f32 and f16 on AVX-512, bf16 on AVX512BF16 (with fw, w as qkFusedWeight lays it out, and its
// scratch). It returns how many heads it wrote (the bf16 kernel stops before a head whose exact
// rounding it cannot do: the caller finishes that one) and false when there is no kernel, and
// then nothing was done.
func qkNormRoPEAsm(i isa, d tensor.DType, gptj bool, x *byte, heads, stride int, w []float32, fw *[128]float32, cos, sin []float32, eps float32, scratch *qkScratch) (int, bool) {
	if gptj || len(w) != 128 || len(cos) != 64 || len(sin) != 64 || (i != isaAVX512 && i != isaAVX512BF16) {
		return 0, false
	}
	switch {
	case d == tensor.F32:
		qkNormRoPENeoX128F32AVX512(x, heads, stride, &w[0], &cos[0], &sin[0], eps)
	case d == tensor.F16:
		qkNormRoPENeoX128F16AVX512(x, heads, stride, &w[0], &cos[0], &sin[0], eps)
	case d == tensor.BF16 && i == isaAVX512BF16 && fw != nil:
		return qkNormRoPENeoX128BF16AVX512BF16(x, heads, stride, &fw[0], &cos[0], &sin[0], &scratch[0], eps), true
	default:
		return 0, false
	}
	return heads, true
}

// qkFusedWeight lays w out in dst for the fused bf16 kernel and returns dst, or nil when that
// kernel does not take it (another ISA or dtype, not 128 values, or an infinite weight: the
// kernel's fast variant assumes none, see qkHead in the generator).
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
