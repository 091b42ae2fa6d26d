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
		Setup: interleaveRoPESetup(128, dsDk),
		// The op pairs (2i, 2i+1) over the whole of x: a model's query heads of its rotary dim.
		Derive: anyRoPE(func(s Shape) SetupFunc { return interleaveRoPESetup(s.Heads, s.Spec.RotaryDim) })})
}

// interleaveRoPESetup: x [T,H,1,D], cos and sin [T,1,1,D].
func interleaveRoPESetup(H, D int) SetupFunc {
	return func(d tensor.DType, T int, disp *ops.Dispatcher) (func() error, []Operand, error) {
		x := Filled(d, T, H, 1, D)
		out := tensor.Zeros(d, T, H, 1, D)
		cos, sin := Filled(d, T, 1, 1, D), Filled(d, T, 1, 1, D)
		return func() error {
			return rotary.InterleaveRoPE(disp, rotary.InterleaveRoPEParams{X: x, Cos: cos, Sin: sin, Out: out})
		}, append(Reads(x, cos, sin), Writes(out)...), nil
	}
}
