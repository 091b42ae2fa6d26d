package cpu_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/backend/cpu"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// TestVisionRoPE2DThreads: calls large enough for the pool, whose chunks each start with their
// own cos/sin and table: every coordinate zero (a chunk that kept the zero its "last" starts
// from would rotate by nothing), coordinates that collide in the table (p and p+64 in turn), a
// row-major grid wider than the table, and random ones, on every implementation, bit for bit
// as native.
func TestVisionRoPE2DThreads(t *testing.T) {
	defer cpu.SetImplementation(cpu.Implementations()[0])
	r := rand.New(rand.NewPCG(9, 10))
	const T = 700
	grids := map[string]func(i int) (int64, int64){
		"zero":     func(int) (int64, int64) { return 0, 0 },
		"collide":  func(i int) (int64, int64) { return int64(i % 3), int64(64 * (i % 2)) },
		"wide":     func(i int) (int64, int64) { return int64(i / 100), int64(i % 100) },
		"random":   func(int) (int64, int64) { return r.Int64N(1 << 12), r.Int64N(1 << 12) },
		"rowmajor": func(i int) (int64, int64) { return int64(i / 37), int64(i % 37) },
	}
	for name, grid := range grids {
		p := make([]int64, 2*T)
		for i := range T {
			p[i], p[T+i] = grid(i)
		}
		pos := tensor.FromI64(p, 2, T)
		for _, D := range []int{80, 64} {
			for _, d := range []tensor.DType{tensor.F32, tensor.BF16} {
				for _, layout := range []ops.VisionLayout{ops.VisionSplit, ops.VisionPixtral} {
					q := randomTensor(r, d, normalValues, T, 4, D)
					k := randomTensor(r, d, normalValues, T, 2, D)
					sameAsNative(t, fmt.Sprintf("%s/head%d/%v/%v", name, D, d, layout), func(disp *ops.Dispatcher) tensor.Tensor {
						qc, kc := q.Clone(), k.Clone()
						if err := rotary.VisionRoPE2D(disp, rotary.VisionRoPE2DParams{Positions: pos, Query: qc, Key: kc, HeadSize: D, Style: rotary.NeoX, Layout: layout}); err != nil {
							t.Fatal(err)
						}
						return concat(qc, kc)
					})
				}
			}
		}
	}
}
