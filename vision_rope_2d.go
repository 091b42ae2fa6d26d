package rotary

import "github.com/rotary-go/rotary/ops"

// VisionRoPE2DParams are VisionRoPE2D's arguments (see ops.VisionRoPE2DParams).
type VisionRoPE2DParams = ops.VisionRoPE2DParams

// The vision layouts (ops.VisionLayout).
const (
	VisionSplit   = ops.VisionSplit
	VisionPixtral = ops.VisionPixtral
)

// VisionRoPE2D is op vision_rope_2d, the 2-D RoPE of a vision tower, fused: each token's q and
// k rotated in place by its two coordinates, Positions [2, T]. With D the head size and
// q = D/4, pair i < q turns by coordinate 0 times theta^(−4i/D) and pair q + k by coordinate 1
// times theta^(−4k/D) (VisionSplit: Qwen2-VL, Qwen2.5-VL, Qwen3-VL, Llama 4) or
// theta^(−(4k+2)/D) (VisionPixtral: Pixtral, Mistral 3), computed in float64, cos and sin
// rounded once to float32, the rotation in float32. It gives the multimodal package's
// Qwen2VisionCosSin, Llama4VisionCosSin and PixtralVisionCosSin tables without building them.
// d chooses the backend (nil: ops.Default). On error nothing is written.
func VisionRoPE2D(d *ops.Dispatcher, p VisionRoPE2DParams) error {
	a, err := ops.NewVisionRoPE2D(p)
	if err != nil {
		return err
	}
	_, err = ops.Run(dispatcher(d), ops.VisionRoPE2D, a)
	return err
}
