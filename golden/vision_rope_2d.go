package golden

import (
	"fmt"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

func init() {
	register(&Op{
		Name:    "vision_rope_2d",
		Summary: "positions [2,T] (each token's two coordinates), query [T,H,D], optional key → query, key (a vision tower's 2-D RoPE; --vision-layout split|pixtral, --vision-theta, --rotary-mode)",
		Params: []Param{
			{Name: "vision-layout", Kind: String, Default: "split", Usage: "vision_rope_2d `layout`: split (Qwen2-VL, Llama 4: each coordinate a D/2-wide RoPE's frequencies) or pixtral (coordinate 0 on the even, 1 on the odd frequencies)"},
			{Name: "vision-theta", Kind: Float, Default: "0", Usage: "vision_rope_2d `base` (0: 10000)"},
		},
		Reads:  []string{"vision-layout", "vision-theta", "rotary-mode"},
		run:    runVisionRoPE2D,
		inputs: goldenVisionRoPE2D,
	})
}

func runVisionRoPE2D(c *Call) ([]safetensors.Tensor, error) {
	layout, err := ops.ParseVisionLayout(c.Args.str("vision-layout"))
	if err != nil {
		return nil, fmt.Errorf("--vision-layout: %v", err)
	}
	style, err := rotaryMode(c.Args)
	if err != nil {
		return nil, err
	}
	theta, err := c.Args.float("vision-theta")
	if err != nil {
		return nil, err
	}
	in, err := c.inputsNamed("positions", "query")
	if err != nil {
		return nil, err
	}
	positions, query := in[0], in[1]
	key := c.Inputs["key"]
	if query.Rank() != 3 {
		return nil, fmt.Errorf("query: shape %s: want [T, H, D] (the head size comes from it)", tensor.ShapeString(query.Shape))
	}
	p := rotary.VisionRoPE2DParams{Positions: positions, Query: query, Key: key, HeadSize: query.Shape[2], Theta: theta, Style: style, Layout: layout}
	if err := rotary.VisionRoPE2D(c.Dispatcher, p); err != nil {
		return nil, err
	}
	return queryKey(query, key), nil
}

// goldenVisionRoPE2D: positions [2, T] (two coordinates per token), query [T, Hq, D], key [T, Hk,
// D] with the model's head size, --vision-layout split and --rotary-mode the model's pairing.
func goldenVisionRoPE2D(g *gen) ([]input, error) {
	hq, hk := g.heads()
	T, D := g.c.tokens, g.spec.HeadSize
	g.opFlag("vision-layout", "split")
	g.opFlag("rotary-mode", rotaryModeOf(g.spec))
	return []input{{"positions", g.positions(2)}, {"query", g.values("query", T, hq, D)}, {"key", g.values("key", T, hk, D)}}, nil
}
