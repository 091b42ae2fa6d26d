package bench

import (
	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// apply_rotary_emb (npu_rotary_mul) on Llama-3-8B query shapes, BSND with batch 1: x [1,T,32,128],
// cos and sin [1,T,1,128] broadcast over heads: x, cos and sin read, out written; backward dy, x,
// cos and sin read, dx, dcos and dsin written.
func init() {
	Register(Case{Op: ops.ApplyRotaryEmb.Name(), Model: "llama-3-8b", MaxTokens: 16384,
		Setup: applyRotaryEmbSetup(32, 128, 128, rotary.NeoX, false),
		Derive: anyRoPE(func(s Shape) SetupFunc {
			return applyRotaryEmbSetup(s.Heads, s.Spec.HeadSize, s.Spec.RotaryDim, s.Spec.Style, false)
		})})
	Register(Case{Op: ops.ApplyRotaryEmbBackward.Name(), Model: "llama-3-8b", MaxTokens: 16384,
		Setup: applyRotaryEmbSetup(32, 128, 128, rotary.NeoX, true),
		Derive: anyRoPE(func(s Shape) SetupFunc {
			return applyRotaryEmbSetup(s.Heads, s.Spec.HeadSize, s.Spec.RotaryDim, s.Spec.Style, true)
		})})
}

// applyRotaryEmbSetup: x [1,T,H,D], cos and sin [1,T,1,rd] (rd ≤ D: the dims past it pass).
func applyRotaryEmbSetup(H, D, rd int, style rotary.Style, backward bool) SetupFunc {
	return func(d tensor.DType, T int, disp *ops.Dispatcher) (func() error, []Operand, error) {
		x := Filled(d, 1, T, H, D)
		cos, sin := Filled(d, 1, T, 1, rd), Filled(d, 1, T, 1, rd)
		if backward {
			dy := Filled(d, 1, T, H, D)
			dx := tensor.Zeros(d, 1, T, H, D)
			dcos, dsin := tensor.Zeros(d, 1, T, 1, rd), tensor.Zeros(d, 1, T, 1, rd)
			return func() error {
				return rotary.ApplyRotaryEmbBackward(disp, rotary.ApplyRotaryEmbBackwardParams{Layout: ops.BSND, DY: dy, X: x, Cos: cos, Sin: sin, DX: dx, DCos: dcos, DSin: dsin, Style: style})
			}, append(Reads(dy, x, cos, sin), Writes(dx, dcos, dsin)...), nil
		}
		out := tensor.Zeros(d, 1, T, H, D)
		return func() error {
			return rotary.ApplyRotaryEmb(disp, rotary.ApplyRotaryEmbParams{Layout: ops.BSND, X: x, Cos: cos, Sin: sin, Out: out, Style: style})
		}, append(Reads(x, cos, sin), Writes(out)...), nil
	}
}
