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

// TestVisionRoPE2DTableAcrossCalls: the per-coordinate cos/sin table outlives a call, for the
// next layer's call on the same patches; calls in turn with another theta, the other layout
// (other frequencies), another head size and the first again must each rotate bit for bit as
// native, from one goroutine (the caller's scratch) and through the pool (each chunk's).
func TestVisionRoPE2DTableAcrossCalls(t *testing.T) {
	defer cpu.SetImplementation(cpu.Implementations()[0])
	r := rand.New(rand.NewPCG(11, 12))
	type call struct {
		d      int
		theta  float64
		layout ops.VisionLayout
	}
	calls := []call{{80, 0, ops.VisionSplit}, {80, 500, ops.VisionSplit}, {80, 500, ops.VisionPixtral}, {64, 500, ops.VisionPixtral}, {80, 0, ops.VisionSplit}}
	for _, T := range []int{3, 700} {
		p := make([]int64, 2*T)
		for i := range T {
			p[i], p[T+i] = int64(i/20), int64(i%20)
		}
		pos := tensor.FromI64(p, 2, T)
		for round := range 2 {
			for i, c := range calls {
				q := randomTensor(r, tensor.BF16, normalValues, T, 2, c.d)
				sameAsNative(t, fmt.Sprintf("T%d/round%d/call%d", T, round, i), func(disp *ops.Dispatcher) tensor.Tensor {
					qc := q.Clone()
					if err := rotary.VisionRoPE2D(disp, rotary.VisionRoPE2DParams{Positions: pos, Query: qc, HeadSize: c.d, Theta: c.theta, Style: rotary.NeoX, Layout: c.layout}); err != nil {
						t.Fatal(err)
					}
					return qc
				})
			}
		}
	}
}
