package main

import (
	"flag"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// Flags of vision_rope_2d; the pairing comes from --rotary-mode (rotaryMode).
var (
	visionLayout string
	visionTheta  float64
)

func init() {
	registerApplyOp("vision_rope_2d", &applyOp{
		golden:  goldenVisionRoPE2D,
		reads:   []string{"vision-layout", "vision-theta", "rotary-mode"},
		summary: "positions [2,T] (each token's two coordinates), query [T,H,D], optional key → query, key (a vision tower's 2-D RoPE; --vision-layout split|pixtral, --vision-theta, --rotary-mode)",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&visionLayout, "vision-layout", "split", "vision_rope_2d `layout`: split (Qwen2-VL, Llama 4: each coordinate a D/2-wide RoPE's frequencies) or pixtral (coordinate 0 on the even, 1 on the odd frequencies)")
			fs.Float64Var(&visionTheta, "vision-theta", 0, "vision_rope_2d `base` (0: 10000)")
		},
		run: runVisionRoPE2D,
	})
}

func runVisionRoPE2D(env *applyEnv) ([]safetensors.Tensor, error) {
	layout, err := ops.ParseVisionLayout(visionLayout)
	if err != nil {
		return nil, usagef("--vision-layout: %v", err)
	}
	style, err := parseRotaryMode()
	if err != nil {
		return nil, err
	}
	in, err := env.inputsNamed("positions", "query")
	if err != nil {
		return nil, err
	}
	positions, query := in[0], in[1]
	key := env.inputs["key"]
	if query.Rank() != 3 {
		return nil, usagef("query: shape %s: want [T, H, D] (the head size comes from it)", tensor.ShapeString(query.Shape))
	}
	p := rotary.VisionRoPE2DParams{Positions: positions, Query: query, Key: key, HeadSize: query.Shape[2], Theta: visionTheta, Style: style, Layout: layout}
	if err := rotary.VisionRoPE2D(env.disp, p); err != nil {
		return nil, usageError{err}
	}
	return queryKey(query, key), nil
}

// goldenVisionRoPE2D: positions [2, T] (two coordinates per token), query [T, Hq, D], key [T, Hk,
// D] with the model's head size, --vision-layout split and --rotary-mode the model's pairing.
func goldenVisionRoPE2D(g *goldenGen) ([]goldenInput, error) {
	hq, hk := g.heads()
	T, D := g.c.tokens, g.spec.HeadSize
	g.opFlag("vision-layout", "split")
	g.opFlag("rotary-mode", rotaryModeOf(g.spec))
	return []goldenInput{{"positions", g.positions(2)}, {"query", g.values("query", T, hq, D)}, {"key", g.values("key", T, hk, D)}}, nil
}
