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
		Setup: func(d tensor.DType, T int, disp *ops.Dispatcher) (func() error, []Operand, error) {
			x := Filled(d, 1, T, 32, 128)
			out := tensor.Zeros(d, 1, T, 32, 128)
			cos, sin := Filled(d, 1, T, 1, 128), Filled(d, 1, T, 1, 128)
			return func() error {
				return rotary.ApplyRotaryEmb(disp, rotary.ApplyRotaryEmbParams{Layout: ops.BSND, X: x, Cos: cos, Sin: sin, Out: out, Style: rotary.NeoX})
			}, append(Reads(x, cos, sin), Writes(out)...), nil
		}})
	Register(Case{Op: ops.ApplyRotaryEmbBackward.Name(), Model: "llama-3-8b", MaxTokens: 16384,
		Setup: func(d tensor.DType, T int, disp *ops.Dispatcher) (func() error, []Operand, error) {
			x, dy := Filled(d, 1, T, 32, 128), Filled(d, 1, T, 32, 128)
			dx := tensor.Zeros(d, 1, T, 32, 128)
			cos, sin := Filled(d, 1, T, 1, 128), Filled(d, 1, T, 1, 128)
			dcos, dsin := tensor.Zeros(d, 1, T, 1, 128), tensor.Zeros(d, 1, T, 1, 128)
			return func() error {
				return rotary.ApplyRotaryEmbBackward(disp, rotary.ApplyRotaryEmbBackwardParams{Layout: ops.BSND, DY: dy, X: x, Cos: cos, Sin: sin, DX: dx, DCos: dcos, DSin: dsin, Style: rotary.NeoX})
			}, append(Reads(dy, x, cos, sin), Writes(dx, dcos, dsin)...), nil
		}})
}
