package main

import (
	"github.com/rotary-go/rotary"
)

func init() { goldenMakers["interleave_rope"] = goldenInterleaveRoPE }

// goldenInterleaveRoPE: x [1, Hq, T, rotary_dim] and cos, sin [1, 1, T, rotary_dim] gathered at
// the positions (not an input of the op) as cat(c, c), the NeoX order the op's output takes.
func goldenInterleaveRoPE(g *goldenGen) ([]goldenInput, error) {
	hq, _ := g.heads()
	T, rd := g.c.tokens, g.spec.RotaryDim
	pos := g.positions(g.positionRows())
	x := g.values("x", 1, hq, T, rd)
	cs, err := g.gathered(pos)
	if err != nil {
		return nil, err
	}
	cos, sin, err := g.fullWidth(cs, rotary.NeoX, 1, 1, T, rd)
	return []goldenInput{{"x", x}, {"cos", cos}, {"sin", sin}}, err
}
