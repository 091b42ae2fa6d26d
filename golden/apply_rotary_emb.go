package golden

import (
	"fmt"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

func init() {
	register(&Op{
		Name:    "apply_rotary_emb",
		Summary: "x, cos, sin (cos/sin full rotary width, broadcastable) → out = x·cos + rotate(x)·sin",
		Params: []Param{
			{Name: "layout", Kind: String, Usage: "layout of apply_rotary_emb's x: BSND, BNSD, SBND, THD (default: any rank); of rotary_embedding's query and key: BNSD for Hugging Face's [B,H,S,D] with position_ids [B,S], BSND [B,S,H,D], SBND [S,B,H,D] (default: [T,H,D] or [T,H·D])"},
			{Name: "rotary-mode", Kind: String, Default: "half", Usage: "apply_rotary_emb pairs: half (NeoX) or interleave (GPT-J)"},
		},
		Reads:  []string{"layout", "rotary-mode"},
		run:    runApplyRotaryEmb,
		inputs: func(g *gen) ([]input, error) { return goldenRotaryEmb(g, false) },
	})
	register(&Op{
		Name:    "apply_rotary_emb_backward",
		Summary: "dy, x, cos, sin → dx, dcos, dsin (apply_rotary_emb's gradients)",
		Reads:   []string{"layout", "rotary-mode"},
		run:     runApplyRotaryEmbBackward,
		inputs:  func(g *gen) ([]input, error) { return goldenRotaryEmb(g, true) },
	})
}

func rotaryOptions(a Args) (ops.Layout, rotary.Style, error) {
	var layout ops.Layout
	if s := a.str("layout"); s != "" {
		l, err := ops.ParseLayout(s)
		if err != nil {
			return "", 0, fmt.Errorf("--layout: %v", err)
		}
		layout = l
	}
	style, err := rotaryMode(a)
	if err != nil {
		return "", 0, err
	}
	return layout, style, nil
}

// rotaryMode reads --rotary-mode, which every op with a pair style shares.
func rotaryMode(a Args) (rotary.Style, error) {
	mode := a.str("rotary-mode")
	style, err := rope.ParseRotaryMode(mode)
	if err != nil {
		return 0, fmt.Errorf("--rotary-mode %q: want half or interleave", mode)
	}
	return style, nil
}

func runApplyRotaryEmb(c *Call) ([]safetensors.Tensor, error) {
	layout, style, err := rotaryOptions(c.Args)
	if err != nil {
		return nil, err
	}
	in, err := c.inputsNamed("x", "cos", "sin")
	if err != nil {
		return nil, err
	}
	out := tensor.Zeros(in[0].DType, in[0].Shape...)
	if err := rotary.ApplyRotaryEmb(c.Dispatcher, rotary.ApplyRotaryEmbParams{Layout: layout, X: in[0], Cos: in[1], Sin: in[2], Out: out, Style: style}); err != nil {
		return nil, err
	}
	return []safetensors.Tensor{toFile("out", out)}, nil
}

func runApplyRotaryEmbBackward(c *Call) ([]safetensors.Tensor, error) {
	layout, style, err := rotaryOptions(c.Args)
	if err != nil {
		return nil, err
	}
	in, err := c.inputsNamed("dy", "x", "cos", "sin")
	if err != nil {
		return nil, err
	}
	dx := tensor.Zeros(in[1].DType, in[1].Shape...)
	dcos := tensor.Zeros(in[2].DType, in[2].Shape...)
	dsin := tensor.Zeros(in[3].DType, in[3].Shape...)
	if err := rotary.ApplyRotaryEmbBackward(c.Dispatcher, rotary.ApplyRotaryEmbBackwardParams{Layout: layout, DY: in[0], X: in[1], Cos: in[2], Sin: in[3], DX: dx, DCos: dcos, DSin: dsin, Style: style}); err != nil {
		return nil, err
	}
	return []safetensors.Tensor{toFile("dx", dx), toFile("dcos", dcos), toFile("dsin", dsin)}, nil
}

// goldenRotaryEmb: npu_rotary_mul's x in --layout (BSND unless given) with the model's head size,
// cos and sin gathered at the positions at full rotary width in --rotary-mode's pairing (the
// model's unless given), broadcast over heads; the backward pass's dy first.
func goldenRotaryEmb(g *gen, backward bool) ([]input, error) {
	hq, _ := g.heads()
	T, D, rd := g.c.tokens, g.spec.HeadSize, g.spec.RotaryDim
	layout := g.opFlag("layout", string(ops.BSND))
	style, err := rope.ParseRotaryMode(g.opFlag("rotary-mode", rotaryModeOf(g.spec)))
	if err != nil {
		return nil, fmt.Errorf("--rotary-mode: %v", err)
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
		return nil, fmt.Errorf("--layout %q: want BSND, BNSD, SBND or THD", layout)
	}
	pos := g.positions(g.positionRows())
	var in []input
	if backward {
		in = append(in, input{"dy", g.values("dy", xShape...)})
	}
	in = append(in, input{"x", g.values("x", xShape...)})
	cs, err := g.gathered(pos)
	if err != nil {
		return nil, err
	}
	cos, sin, err := g.fullWidth(cs, style, csShape...)
	return append(in, input{"cos", cos}, input{"sin", sin}), err
}
