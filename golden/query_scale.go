package golden

import (
	"fmt"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/safetensors"
)

// queryScaleParams are the parameters of query_scale's rules: optional values, so that one
// given with the other kind (or without --query-scale) is refused instead of silently ignored.
var queryScaleParams = []string{"floor-scale", "attn-scale", "beta", "original-max"}

func init() {
	register(&Op{
		Name:    "query_scale",
		Summary: "positions [T], query [T,H,D] or [T,H·D] → query scaled by the position-dependent factor (Llama 4 attn_temperature_tuning, Ministral 3 / Mistral 4 llama_4_scaling_beta); --query-scale llama4|beta with its parameters, or the rule of --config/--model at --layer",
		Model:   ModelOptional,
		Params: []Param{
			{Name: "query-scale", Kind: String, Usage: "query_scale rule `kind`: llama4 (log1p(⌊(p+1)/floor_scale⌋)·attn_scale + 1) or beta (1 + β·log(1 + ⌊p/original_max⌋))"},
			{Name: "floor-scale", Kind: OptFloat, Usage: "query_scale llama4 floor_scale `tokens` (default 8192, Llama4TextConfig's)"},
			{Name: "attn-scale", Kind: OptFloat, Usage: "query_scale llama4 attn_scale `a` (default 0.1, Llama4TextConfig's)"},
			{Name: "beta", Kind: OptFloat, Usage: "query_scale beta llama_4_scaling_beta `β` (required with --query-scale beta)"},
			{Name: "original-max", Kind: OptFloat, Usage: "query_scale beta original_max_position_embeddings `N` (required with --query-scale beta)"},
			{Name: "query-scale-cast", Kind: String, Default: "default", Usage: "query_scale rounding `order`: default (Hugging Face's for the kind), product (q·s in float32, rounded once: HF Llama 4, vLLM) or scale (s rounded to q's dtype first: HF Ministral 3, Mistral 4)"},
		},
		Reads:       []string{"query-scale", "floor-scale", "attn-scale", "beta", "original-max", "query-scale-cast"},
		run:         runQueryScale,
		inputs:      goldenQueryScale,
		withoutRoPE: true,
	})
}

// queryScaleArgsRule builds the rule from the parameters.
func queryScaleArgsRule(a Args) (rope.QueryScaleRule, error) {
	var r rope.QueryScaleRule
	var err error
	if r.Cast, err = rope.ParseQueryScaleCast(a.str("query-scale-cast")); err != nil {
		return r, fmt.Errorf("--query-scale-cast: %v", err)
	}
	kind := a.str("query-scale")
	if kind == "" {
		for _, name := range queryScaleParams {
			if a.given(name) {
				return r, fmt.Errorf("--%s: given without --query-scale (want --query-scale llama4 or beta)", name)
			}
		}
		return r, fmt.Errorf("--query-scale: missing (want llama4 or beta)")
	}
	if r.Kind, err = rope.ParseQueryScaleKind(kind); err != nil || r.Kind == rope.QueryScaleNone {
		return r, fmt.Errorf("--query-scale %q: want llama4 or beta", kind)
	}
	own := map[rope.QueryScaleKind][]string{rope.QueryScaleLlama4: {"floor-scale", "attn-scale"}, rope.QueryScaleBeta: {"beta", "original-max"}}[r.Kind]
	for _, name := range queryScaleParams {
		if a.given(name) && name != own[0] && name != own[1] {
			return r, fmt.Errorf("--%s: not a parameter of --query-scale %v (it takes --%s and --%s)", name, r.Kind, own[0], own[1])
		}
	}
	// optional returns a given parameter's value, or def.
	optional := func(name string, def float64) (float64, error) {
		if !a.given(name) {
			return def, nil
		}
		return a.float(name)
	}
	switch r.Kind {
	case rope.QueryScaleLlama4:
		if r.FloorScale, err = optional("floor-scale", 8192); err != nil {
			return r, err
		}
		if r.AttnScale, err = optional("attn-scale", 0.1); err != nil {
			return r, err
		}
	case rope.QueryScaleBeta:
		for _, name := range own {
			if !a.given(name) {
				return r, fmt.Errorf("--%s: missing (--query-scale beta needs --beta and --original-max)", name)
			}
		}
		if r.Beta, err = a.float("beta"); err != nil {
			return r, err
		}
		n, err := a.float("original-max")
		if err != nil {
			return r, err
		}
		if n != float64(int(n)) || n < 1 || n > 1<<53 {
			return r, fmt.Errorf("--original-max %v: want a positive integer", n)
		}
		r.OriginalMax = int(n)
	}
	if err := r.Validate(); err != nil {
		return r, fmt.Errorf("--query-scale %v: %v", r.Kind, err)
	}
	return r, nil
}

// queryScaleModelRule is the rule of the model's layer c.Layer; none (with a note) on a layer
// the model does not scale.
func queryScaleModelRule(c *Call) (rope.QueryScaleRule, error) {
	if c.Args.str("query-scale") != "" {
		return rope.QueryScaleRule{}, fmt.Errorf("--query-scale: give it or --config/--model, not both")
	}
	for _, name := range queryScaleParams {
		if c.Args.given(name) {
			return rope.QueryScaleRule{}, fmt.Errorf("--%s: the rule comes from --config/--model (give --query-scale and its parameters without a model instead)", name)
		}
	}
	m := c.Model
	if m.Spec.QueryScale.Kind == rope.QueryScaleNone {
		return rope.QueryScaleRule{}, fmt.Errorf("model_type %q: the config has no query scale (attn_temperature_tuning for llama4, llama_4_scaling_beta in rope_parameters); give --query-scale and its parameters instead", m.ModelType)
	}
	r, err := m.QueryScaleAt(c.Layer)
	if err != nil {
		return r, fmt.Errorf("--layer: %v", err)
	}
	if r.Kind == rope.QueryScaleNone {
		fmt.Fprintf(c.Notes, "layer %d is not scaled (%v applies to the layers without RoPE): query written unchanged\n", c.Layer, m.Spec.QueryScale.Kind)
		return r, nil
	}
	if r.Cast, err = rope.ParseQueryScaleCast(c.Args.str("query-scale-cast")); err != nil {
		return r, fmt.Errorf("--query-scale-cast: %v", err)
	}
	return r, nil
}

func runQueryScale(c *Call) ([]safetensors.Tensor, error) {
	var rule rope.QueryScaleRule
	var err error
	if c.Model != nil {
		rule, err = queryScaleModelRule(c)
	} else {
		rule, err = queryScaleArgsRule(c.Args)
	}
	if err != nil {
		return nil, err
	}
	in, err := c.inputsNamed("positions", "query")
	if err != nil {
		return nil, err
	}
	positions, query := in[0], in[1]
	if err := rotary.QueryScale(c.Dispatcher, rotary.QueryScaleParams{Positions: positions, Query: query, Rule: rule}); err != nil {
		return nil, err
	}
	return []safetensors.Tensor{toFile("query", query)}, nil
}

// goldenQueryScale: positions [T], query [T, Hq, D]; the rule is the model's (or --query-scale's).
func goldenQueryScale(g *gen) ([]input, error) {
	hq, _ := g.heads()
	pos := g.positions(1)
	return []input{{"positions", pos}, {"query", g.values("query", g.c.tokens, hq, g.spec.HeadSize)}}, nil
}
