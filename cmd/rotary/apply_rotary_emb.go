package main

import (
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rope"
)

func init() {
	goldenMakers["apply_rotary_emb"] = func(g *goldenGen) ([]goldenInput, error) { return goldenRotaryEmb(g, false) }
	goldenMakers["apply_rotary_emb_backward"] = func(g *goldenGen) ([]goldenInput, error) { return goldenRotaryEmb(g, true) }
}

// goldenRotaryEmb: npu_rotary_mul's x in --layout (BSND unless given) with the model's head size,
// cos and sin gathered at the positions at full rotary width in --rotary-mode's pairing (the
// model's unless given), broadcast over heads; the backward pass's dy first.
func goldenRotaryEmb(g *goldenGen, backward bool) ([]goldenInput, error) {
	hq, _ := g.heads()
	T, D, rd := g.c.tokens, g.spec.HeadSize, g.spec.RotaryDim
	layout := g.opFlag("layout", string(ops.BSND))
	style, err := rope.ParseRotaryMode(g.opFlag("rotary-mode", rotaryModeOf(g.spec)))
	if err != nil {
		return nil, usagef("--rotary-mode: %v", err)
	}
	var xShape, csShape []int
	switch ops.Layout(layout) {
	case ops.BSND:
		xShape, csShape = []int{1, T, hq, D}, []int{1, T, 1, rd}
	case ops.BNSD:
		xShape, csShape = []int{1, hq, T, D}, []int{1, 1, T, rd}
	case ops.SBND:
		xShape, csShape = []int{T, 1, hq, D}, []int{T, 1, 1, rd}
	case ops.THD:
		xShape, csShape = []int{T, hq, D}, []int{T, 1, rd}
	default:
		return nil, usagef("--layout %q: want BSND, BNSD, SBND or THD", layout)
	}
	pos := g.positions(g.positionRows())
	var in []goldenInput
	if backward {
		in = append(in, goldenInput{"dy", g.values("dy", xShape...)})
	}
	in = append(in, goldenInput{"x", g.values("x", xShape...)})
	cs, err := g.gathered(pos)
	if err != nil {
		return nil, err
	}
	cos, sin, err := g.fullWidth(cs, style, csShape...)
	return append(in, goldenInput{"cos", cos}, goldenInput{"sin", sin}), err
}
