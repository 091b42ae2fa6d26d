//go:build amd64 && !purego

package cpu

import (
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// mropeGatherAsm assembles the leading whole chunks of 16 floats of dst from rows by masks (see
// mropeMasks) and returns how many floats it did; the caller finishes the rest in Go. Every row
// must hold at least len(dst) floats.
func mropeGatherAsm(i isa, dst []float32, rows *[mropeMaxRows][]float32, masks []uint64) int {
	chunks := min(len(masks), len(dst)/16)
	if chunks == 0 || (i != isaAVX512 && i != isaAVX512BF16) {
		return 0
	}
	n := 16 * chunks
	for _, r := range rows {
		_ = r[n-1] // the kernel reads each row up to n where its mask is set
	}
	mropeGatherAVX512(&dst[0], &rows[0][0], &rows[1][0], &rows[2][0], &rows[3][0], &masks[0], chunks)
	return n
}

// mropeTokensOK reports whether mropeTokensAsm serves r on implementation i: NeoX, on AVX-512.
func mropeTokensOK(i isa, r *ops.RoPE) bool {
	d := r.Query.DType
	return (i == isaAVX512 || i == isaAVX512BF16) && !r.GPTJ && d.IsFloat() && (!r.Key.Present() || r.Key.DType == d)
}

// mropeTokensAsm rotates tokens lo ... lo+n−1 of r's q and k (mropeTokensOK) at 64 pairs with
// the kernel that assembles each token's cos/sin in registers from its axes' rows: rows[i], the
// cache rows of token lo+i's axes, 128 floats each; masks as mropeMasks, 8 of them; axes 4
// where the layout draws from a fourth row.
func mropeTokensAsm(i isa, r *ops.RoPE, lo int, rows *[tokenBlock][mropeMaxRows]*float32, n int, masks []uint64, axes int) {
	qx, qheads, qstride, qstep := tokensOf(&r.Query, lo)
	kx, kheads, kstride, kstep := tokensOf(&r.Key, lo)
	rp, mp := &rows[0][0], &masks[:2*mropePairs/16][0]
	switch d := r.Query.DType; {
	case i == isaAVX512BF16 && d == tensor.BF16:
		rotateMRoPE64BF16AVX512BF16(qx, qheads, qstride, qstep, kx, kheads, kstride, kstep, rp, n, mp, axes)
	case d == tensor.F32:
		rotateMRoPE64F32AVX512(qx, qheads, qstride, qstep, kx, kheads, kstride, kstep, rp, n, mp, axes)
	case d == tensor.F16:
		rotateMRoPE64F16AVX512(qx, qheads, qstride, qstep, kx, kheads, kstride, kstep, rp, n, mp, axes)
	default:
		rotateMRoPE64BF16AVX512(qx, qheads, qstride, qstep, kx, kheads, kstride, kstep, rp, n, mp, axes)
	}
}
