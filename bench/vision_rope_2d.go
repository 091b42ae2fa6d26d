package bench

import (
	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// vision_rope_2d on Qwen2-VL's vision tower (16 heads of 80, NeoX, the split layout): T
// patches' q and k rotated in place by their (h, w), the positions [2, T] (I64) read.
func init() {
	Register(Case{Op: ops.VisionRoPE2D.Name(), Model: "qwen2-vl-vision", MaxTokens: 16384, Setup: visionRoPE2DSetup(16, 80)})
}

func visionRoPE2DSetup(H, D int) SetupFunc {
	return func(d tensor.DType, T int, disp *ops.Dispatcher) (func() error, []Operand, error) {
		q, k := Filled(d, T, H, D), Filled(d, T, H, D)
		p := make([]int64, 2*T)
		for i := range T {
			p[i], p[T+i] = int64(i/64), int64(i%64) // a 64-patch-wide image, row-major
		}
		pos := tensor.FromI64(p, 2, T)
		touched := append(Updates(q, k), Reads(pos)...)
		return func() error {
			return rotary.VisionRoPE2D(disp, rotary.VisionRoPE2DParams{Positions: pos, Query: q, Key: k, HeadSize: D, Style: rotary.NeoX, Layout: rotary.VisionSplit})
		}, touched, nil
	}
}
