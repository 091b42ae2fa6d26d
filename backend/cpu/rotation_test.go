package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// BenchmarkRotateKernel times the rotation kernels alone, each implementation and dtype on one
// token of Llama-3-8B's q and k (40 heads of 128, NeoX and GPT-J) held in L1, against the limit
// pass over the same bytes in the same run: what a kernel costs per byte where memory costs
// least. Where the kernel is slower than that pass, the op cannot reach its limit from a
// cache however it is threaded; compare "kernel" and "limit" of one implementation and dtype.
func BenchmarkRotateKernel(b *testing.B) {
	const heads, size = 40, 128
	r := rand.New(rand.NewPCG(1, 2))
	cos, sin := make([]float32, size/2), make([]float32, size/2)
	for i := range cos {
		s, c := math.Sincos(r.Float64() * 6)
		cos[i], sin[i] = float32(c), float32(s)
	}
	for _, k := range available() {
		for _, d := range []tensor.DType{tensor.F32, tensor.BF16, tensor.F16} {
			h := ops.Heads{DType: d, Tokens: 1, NumHeads: heads, HeadSize: size, TokenStride: heads * size, HeadStride: size}
			if d == tensor.F32 {
				h.F32 = make([]float32, heads*size)
				for i := range h.F32 {
					h.F32[i] = float32(r.NormFloat64())
				}
			} else {
				h.Bits = make([]uint16, heads*size)
				for i := range h.Bits {
					h.Bits[i] = tensor.FromFloat32(d, float32(r.NormFloat64()))
				}
			}
			moved := int64(2 * heads * size * d.Size()) // read and written
			for _, gptj := range []bool{false, true} {
				b.Run(fmt.Sprintf("%s/%v/gptj=%v/kernel", k.name, d, gptj), func(b *testing.B) {
					b.SetBytes(moved)
					for b.Loop() {
						rotateHeads(k, &h, 0, cos, sin, gptj)
					}
				})
			}
			rw := [][]byte{make([]byte, moved/2)}
			b.Run(fmt.Sprintf("%s/%v/limit", k.name, d), func(b *testing.B) {
				b.SetBytes(moved)
				for b.Loop() {
					Stream(rw, nil, false)
				}
			})
		}
	}
}
