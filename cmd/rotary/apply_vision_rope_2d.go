package main

import ()

func init() { goldenMakers["vision_rope_2d"] = goldenVisionRoPE2D }

// goldenVisionRoPE2D: positions [2, T] (two coordinates per token), query [T, Hq, D], key [T, Hk,
// D] with the model's head size, --vision-layout split and --rotary-mode the model's pairing.
func goldenVisionRoPE2D(g *goldenGen) ([]goldenInput, error) {
	hq, hk := g.heads()
	T, D := g.c.tokens, g.spec.HeadSize
	g.opFlag("vision-layout", "split")
	g.opFlag("rotary-mode", rotaryModeOf(g.spec))
	return []goldenInput{{"positions", g.positions(2)}, {"query", g.values("query", T, hq, D)}, {"key", g.values("key", T, hk, D)}}, nil
}
