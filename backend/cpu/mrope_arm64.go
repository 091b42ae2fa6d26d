//go:build arm64 && !purego

package cpu

import "github.com/rotary-go/rotary/ops"

// mropeGatherAsm assembles the leading whole chunks of 16 floats of dst from rows by masks (see
// mropeMasks) and returns how many floats it did; the caller finishes the rest in Go. The NEON
// kernel reads every float of a row whose axis a chunk takes, so every row must hold at least
// len(dst) floats.
func mropeGatherAsm(i isa, dst []float32, rows *[mropeMaxRows][]float32, masks []uint64) int {
	chunks := min(len(masks), len(dst)/16)
	if chunks == 0 || i != isaNEON {
		return 0
	}
	n := 16 * chunks
	for _, r := range rows {
		_ = r[n-1]
	}
	mropeGatherNEON(&dst[0], &rows[0][0], &rows[1][0], &rows[2][0], &rows[3][0], &masks[0], chunks)
	return n
}

// No kernel assembles an mrope token's cos/sin in registers here: every row is gathered first.
func mropeTokensOK(isa, *ops.RoPE) bool { return false }

func mropeTokensAsm(isa, *ops.RoPE, int, *[tokenBlock][mropeMaxRows]*float32, int, []uint64, int) {}
