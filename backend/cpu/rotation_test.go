package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// BenchmarkRotateKernel times the rotation kernels alone on one thread, each implementation and
// dtype on Llama-3-8B's q and k (40 heads of 128, NeoX and GPT-J) against the limit pass over
// the same bytes in the same run: one token held in L1 (T=1), what a kernel costs per byte where
// memory costs least, and 512 tokens (10 MiB in f32) in the last-level cache, as bench's 512-token
// cases run, the run of tokens in one call per 16 (rotateTokens). Where the kernel is slower
// than that pass, the op cannot reach its limit from that cache however it is threaded; compare
// "kernel" and "limit" of one implementation, dtype and T.
func BenchmarkRotateKernel(b *testing.B) {
	const heads, size = 40, 128
	r := rand.New(rand.NewPCG(1, 2))
	row := make([]float32, size) // cos, then sin
	for i := range size / 2 {
		s, c := math.Sincos(r.Float64() * 6)
		row[i], row[size/2+i] = float32(c), float32(s)
	}
	var rows [tokenBlock]*float32
	for i := range rows {
		rows[i] = &row[0]
	}
	for _, T := range []int{1, 512} {
		for _, k := range available() {
			for _, d := range []tensor.DType{tensor.F32, tensor.BF16, tensor.F16} {
				n := T * heads * size
				h := ops.Heads{DType: d, Tokens: T, NumHeads: heads, HeadSize: size, TokenStride: heads * size, HeadStride: size}
				if d == tensor.F32 {
					h.F32 = make([]float32, n)
					for i := range h.F32 {
						h.F32[i] = float32(r.NormFloat64())
					}
				} else {
					h.Bits = make([]uint16, n)
					for i := range h.Bits {
						h.Bits[i] = tensor.FromFloat32(d, float32(r.NormFloat64()))
					}
				}
				moved := int64(2 * n * d.Size()) // read and written
				for _, gptj := range []bool{false, true} {
					rope := ops.RoPE{RotaryDim: size, GPTJ: gptj, Query: h}
					b.Run(fmt.Sprintf("T=%d/%s/%v/gptj=%v/kernel", T, k.name, d, gptj), func(b *testing.B) {
						b.SetBytes(moved)
						for b.Loop() {
							for t0 := 0; t0 < T; t0 += tokenBlock {
								rotateTokens(k, &rope, t0, rows[:min(tokenBlock, T-t0)], size/2)
							}
						}
					})
				}
				rw := [][]byte{make([]byte, moved/2)}
				b.Run(fmt.Sprintf("T=%d/%s/%v/limit", T, k.name, d), func(b *testing.B) {
					b.SetBytes(moved)
					for b.Loop() {
						Stream(rw, nil, false)
					}
				})
			}
		}
	}
}
