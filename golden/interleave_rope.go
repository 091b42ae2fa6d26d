package golden

import (
	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

func init() {
	register(&Op{
		Name:    "interleave_rope",
		Summary: "x [B,N,S,D], cos, sin [B,1,S,D] → out (npu_interleave_rope: pairs (2i,2i+1) in, de-interleaved NeoX order out)",
		run:     runInterleaveRoPE,
		inputs:  goldenInterleaveRoPE,
	})
}

func runInterleaveRoPE(c *Call) ([]safetensors.Tensor, error) {
	in, err := c.inputsNamed("x", "cos", "sin")
	if err != nil {
		return nil, err
	}
	out := tensor.Zeros(in[0].DType, in[0].Shape...)
	if err := rotary.InterleaveRoPE(c.Dispatcher, rotary.InterleaveRoPEParams{X: in[0], Cos: in[1], Sin: in[2], Out: out}); err != nil {
		return nil, err
	}
	return []safetensors.Tensor{toFile("out", out)}, nil
}

// goldenInterleaveRoPE: x [1, Hq, T, rotary_dim] and cos, sin [1, 1, T, rotary_dim] gathered at
// the positions (not an input of the op) as cat(c, c), the NeoX order the op's output takes.
func goldenInterleaveRoPE(g *gen) ([]input, error) {
	hq, _ := g.heads()
	T, rd := g.c.tokens, g.spec.RotaryDim
	pos := g.positions(g.positionRows())
	x := g.values("x", 1, hq, T, rd)
	cs, err := g.gathered(pos)
	if err != nil {
		return nil, err
	}
	cos, sin, err := g.fullWidth(cs, rotary.NeoX, 1, 1, T, rd)
	return []input{{"x", x}, {"cos", cos}, {"sin", sin}}, err
}
