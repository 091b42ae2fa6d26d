package bench

import (
	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// interleave_rope (npu_interleave_rope) on DeepSeek-V3's decode query: the rope part of 128
// heads, x [T, 128, 1, 64] (B = T tokens, S = 1), cos and sin [T, 1, 1, 64]: x, cos and sin
// read, out written.
func init() {
	Register(Case{Op: ops.InterleaveRoPE.Name(), Model: "deepseek-v3", MaxTokens: 16384,
		Setup: func(d tensor.DType, T int, disp *ops.Dispatcher) (func() error, []Operand, error) {
			x := Filled(d, T, 128, 1, dsDk)
			out := tensor.Zeros(d, T, 128, 1, dsDk)
			cos, sin := Filled(d, T, 1, 1, dsDk), Filled(d, T, 1, 1, dsDk)
			return func() error {
				return rotary.InterleaveRoPE(disp, rotary.InterleaveRoPEParams{X: x, Cos: cos, Sin: sin, Out: out})
			}, append(Reads(x, cos, sin), Writes(out)...), nil
		}})
}
