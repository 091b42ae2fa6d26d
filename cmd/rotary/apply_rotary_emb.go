package main

import (
	"flag"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// Flags of the apply_rotary_emb ops (torch_npu npu_rotary_mul).
var (
	rotaryLayout string
	rotaryMode   string
)

func init() {
	flags := func(fs *flag.FlagSet) {
		fs.StringVar(&rotaryLayout, "layout", "", "layout of apply_rotary_emb's x: BSND, BNSD, SBND, THD (default: any rank); of rotary_embedding's query and key: BNSD for Hugging Face's [B,H,S,D] with position_ids [B,S], BSND [B,S,H,D], SBND [S,B,H,D] (default: [T,H,D] or [T,H·D])")
		fs.StringVar(&rotaryMode, "rotary-mode", "half", "apply_rotary_emb pairs: half (NeoX) or interleave (GPT-J)")
	}
	registerApplyOp("apply_rotary_emb", &applyOp{
		golden:  func(g *goldenGen) ([]goldenInput, error) { return goldenRotaryEmb(g, false) },
		reads:   []string{"layout", "rotary-mode"},
		summary: "x, cos, sin (cos/sin full rotary width, broadcastable) → out = x·cos + rotate(x)·sin",
		flags:   flags,
		run:     runApplyRotaryEmb,
	})
	registerApplyOp("apply_rotary_emb_backward", &applyOp{
		golden:  func(g *goldenGen) ([]goldenInput, error) { return goldenRotaryEmb(g, true) },
		reads:   []string{"layout", "rotary-mode"},
		summary: "dy, x, cos, sin → dx, dcos, dsin (apply_rotary_emb's gradients)",
		run:     runApplyRotaryEmbBackward,
	})
}

func rotaryOptions() (ops.Layout, rotary.Style, error) {
	var layout ops.Layout
	if rotaryLayout != "" {
		l, err := ops.ParseLayout(rotaryLayout)
		if err != nil {
			return "", 0, usagef("--layout: %v", err)
		}
		layout = l
	}
	style, err := parseRotaryMode()
	if err != nil {
		return "", 0, err
	}
	return layout, style, nil
}

// parseRotaryMode reads --rotary-mode, which every op with a pair style shares.
func parseRotaryMode() (rotary.Style, error) {
	style, err := rope.ParseRotaryMode(rotaryMode)
	if err != nil {
		return 0, usagef("--rotary-mode %q: want half or interleave", rotaryMode)
	}
	return style, nil
}

// inputsNamed fetches the named input tensors in order.
func (e *applyEnv) inputsNamed(names ...string) ([]tensor.Tensor, error) {
	out := make([]tensor.Tensor, len(names))
	for i, n := range names {
		t, err := e.tensor(n)
		if err != nil {
			return nil, err
		}
		out[i] = t
	}
	return out, nil
}

func runApplyRotaryEmb(env *applyEnv) ([]safetensors.Tensor, error) {
	layout, style, err := rotaryOptions()
	if err != nil {
		return nil, err
	}
	in, err := env.inputsNamed("x", "cos", "sin")
	if err != nil {
		return nil, err
	}
	out := tensor.Zeros(in[0].DType, in[0].Shape...)
	if err := rotary.ApplyRotaryEmb(env.disp, rotary.ApplyRotaryEmbParams{Layout: layout, X: in[0], Cos: in[1], Sin: in[2], Out: out, Style: style}); err != nil {
		return nil, usageError{err}
	}
	return []safetensors.Tensor{toFile("out", out)}, nil
}

func runApplyRotaryEmbBackward(env *applyEnv) ([]safetensors.Tensor, error) {
	layout, style, err := rotaryOptions()
	if err != nil {
		return nil, err
	}
	in, err := env.inputsNamed("dy", "x", "cos", "sin")
	if err != nil {
		return nil, err
	}
	dx := tensor.Zeros(in[1].DType, in[1].Shape...)
	dcos := tensor.Zeros(in[2].DType, in[2].Shape...)
	dsin := tensor.Zeros(in[3].DType, in[3].Shape...)
	if err := rotary.ApplyRotaryEmbBackward(env.disp, rotary.ApplyRotaryEmbBackwardParams{Layout: layout, DY: in[0], X: in[1], Cos: in[2], Sin: in[3], DX: dx, DCos: dcos, DSin: dsin, Style: style}); err != nil {
		return nil, usageError{err}
	}
	return []safetensors.Tensor{toFile("dx", dx), toFile("dcos", dcos), toFile("dsin", dsin)}, nil
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
