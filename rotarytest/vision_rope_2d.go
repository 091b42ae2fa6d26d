package rotarytest

import (
	"fmt"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

func init() { register(ops.VisionRoPE2D, (*sweep).visionRoPE2D) }

// visionRoPE2D checks the vision towers' 2-D RoPE in both layouts and pairings, on the head
// sizes of the towers (Qwen2-VL 80, Qwen3-VL 72, Llama 4 88, Pixtral 64) and a small one, with
// a key, coordinates random up to 2^12 or an image's row-major grid, and (0, 0) (Llama 4's
// CLS).
func (s *sweep) visionRoPE2D() {
	op := ops.VisionRoPE2D.Name()
	for _, d := range dtypes {
		for _, st := range styles {
			for _, layout := range []ops.VisionLayout{ops.VisionSplit, ops.VisionPixtral} {
				for _, D := range []int{8, 64, 72, 80, 88} {
					for _, T := range []int{1, 17, 257} {
						// Random coordinates, or an image's row-major grid (rows repeat, which
						// the cpu backend's reuse of a half's cos/sin meets).
						grid := T%2 == 1 && D != 8
						name := fmt.Sprintf("%v/%v/%v/head%d/tokens%d/grid=%t", d, st, layout, D, T, grid)
						r := rng(len(name)*31 + T)
						q := randomTensor(d, []int{T, 3, D}, &r)
						k := randomTensor(d, []int{T, 1, D}, &r)
						p := make([]int64, 2*T)
						for i := range p {
							p[i] = int64(r.next() % (1 << 12))
						}
						if grid {
							for i := range T {
								p[i], p[T+i] = int64(i/5), int64(i%5)
							}
						}
						p[0], p[T] = 0, 0
						pos := tensor.FromI64(p, 2, T)
						s.compareOp(op, name, func(disp *ops.Dispatcher) ([]tensor.Tensor, error) {
							qc, kc := q.Clone(), k.Clone()
							err := rotary.VisionRoPE2D(disp, rotary.VisionRoPE2DParams{Positions: pos, Query: qc, Key: kc, HeadSize: D, Style: st, Layout: layout})
							return []tensor.Tensor{qc, kc}, err
						})
					}
				}
			}
		}
	}
}
