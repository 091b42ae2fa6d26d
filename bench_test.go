package rotary_test

import (
	"fmt"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/bench"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// BenchmarkForward times Embedding.Forward on Llama-3-8B shapes (32 query and 8 key heads of
// 128) per backend, dtype and token count. Bytes are the read and write of q and k.
func BenchmarkForward(b *testing.B) {
	spec := rotary.Spec{HeadSize: 128, RotaryDim: 128, Base: 500000, Style: rotary.NeoX, MaxPositions: 4096}
	for _, backend := range []string{ops.Native, "cpu"} {
		disp, err := ops.NewDispatcher("all", backend)
		if err != nil {
			b.Fatal(err)
		}
		emb, err := rotary.New(spec, rotary.WithDispatcher(disp))
		if err != nil {
			b.Fatal(err)
		}
		for _, d := range []tensor.DType{tensor.F32, tensor.BF16, tensor.F16} {
			for _, T := range []int{1, 16, 512, 4096} {
				b.Run(fmt.Sprintf("%s/%v/T=%d", backend, d, T), func(b *testing.B) {
					q, k := bench.Filled(d, T, 32, 128), bench.Filled(d, T, 8, 128)
					p := make([]int64, T)
					for i := range p {
						p[i] = int64(i)
					}
					pos := tensor.FromI64(p, T)
					b.SetBytes(int64(2 * (q.Len() + k.Len()) * d.Size()))
					for b.Loop() {
						if err := emb.Forward(pos, q, k); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// BenchmarkNewCache times building the cos/sin cache of 131072 positions × 128 dims.
func BenchmarkNewCache(b *testing.B) {
	spec := rotary.Spec{HeadSize: 128, RotaryDim: 128, Base: 500000, Style: rotary.NeoX, MaxPositions: 131072}
	b.SetBytes(131072 * 128 * 4)
	for b.Loop() {
		if _, err := rotary.New(spec); err != nil {
			b.Fatal(err)
		}
	}
}
