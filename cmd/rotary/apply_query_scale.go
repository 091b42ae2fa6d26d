package main

import (
	"flag"
	"fmt"
	"strconv"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/safetensors"
)

// Flags of query_scale. The parameters are optional values, so that a parameter given with the
// other kind (or without --query-scale) is refused instead of silently ignored.
var (
	queryScaleKind       string
	queryScaleCast       string
	queryScaleFloor      optFloat
	queryScaleAttn       optFloat
	queryScaleBeta       optFloat
	queryScaleOrigMax    optFloat
	queryScaleParamFlags = []struct {
		name string
		v    *optFloat
	}{{"floor-scale", &queryScaleFloor}, {"attn-scale", &queryScaleAttn}, {"beta", &queryScaleBeta}, {"original-max", &queryScaleOrigMax}}
)

func init() {
	registerApplyOp("query_scale", &applyOp{
		golden:        goldenQueryScale,
		reads:         []string{"query-scale", "floor-scale", "attn-scale", "beta", "original-max", "query-scale-cast"},
		summary:       "positions [T], query [T,H,D] or [T,H·D] → query scaled by the position-dependent factor (Llama 4 attn_temperature_tuning, Ministral 3 / Mistral 4 llama_4_scaling_beta); --query-scale llama4|beta with its parameters, or the rule of --config/--model at --layer",
		modelOptional: true,
		flags: func(fs *flag.FlagSet) {
			// fs.Var keeps a value's state: a second command line in one process (the tests)
			// must not see the first one's parameters as given.
			for _, f := range queryScaleParamFlags {
				*f.v = optFloat{}
			}
			fs.StringVar(&queryScaleKind, "query-scale", "", "query_scale rule `kind`: llama4 (log1p(⌊(p+1)/floor_scale⌋)·attn_scale + 1) or beta (1 + β·log(1 + ⌊p/original_max⌋))")
			fs.Var(&queryScaleFloor, "floor-scale", "query_scale llama4 floor_scale `tokens` (default 8192, Llama4TextConfig's)")
			fs.Var(&queryScaleAttn, "attn-scale", "query_scale llama4 attn_scale `a` (default 0.1, Llama4TextConfig's)")
			fs.Var(&queryScaleBeta, "beta", "query_scale beta llama_4_scaling_beta `β` (required with --query-scale beta)")
			fs.Var(&queryScaleOrigMax, "original-max", "query_scale beta original_max_position_embeddings `N` (required with --query-scale beta)")
			fs.StringVar(&queryScaleCast, "query-scale-cast", "default", "query_scale rounding `order`: default (Hugging Face's for the kind), product (q·s in float32, rounded once: HF Llama 4, vLLM) or scale (s rounded to q's dtype first: HF Ministral 3, Mistral 4)")
		},
		run: runQueryScale,
	})
}

// optFloat is a float flag that records whether it was given.
type optFloat struct {
	v   float64
	set bool
}

func (o *optFloat) String() string {
	if o == nil || !o.set {
		return ""
	}
	return strconv.FormatFloat(o.v, 'g', -1, 64)
}

func (o *optFloat) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("want a number")
	}
	o.v, o.set = v, true
	return nil
}

// queryScaleFlagRule builds the rule from the flags.
func queryScaleFlagRule() (rope.QueryScaleRule, error) {
	var r rope.QueryScaleRule
	var err error
	if r.Cast, err = rope.ParseQueryScaleCast(queryScaleCast); err != nil {
		return r, usagef("--query-scale-cast: %v", err)
	}
	if queryScaleKind == "" {
		for _, f := range queryScaleParamFlags {
			if f.v.set {
				return r, usagef("--%s: given without --query-scale (want --query-scale llama4 or beta)", f.name)
			}
		}
		return r, usagef("--query-scale: missing (want llama4 or beta)")
	}
	if r.Kind, err = rope.ParseQueryScaleKind(queryScaleKind); err != nil || r.Kind == rope.QueryScaleNone {
		return r, usagef("--query-scale %q: want llama4 or beta", queryScaleKind)
	}
	own := map[rope.QueryScaleKind][]string{rope.QueryScaleLlama4: {"floor-scale", "attn-scale"}, rope.QueryScaleBeta: {"beta", "original-max"}}[r.Kind]
	for _, f := range queryScaleParamFlags {
		if f.v.set && f.name != own[0] && f.name != own[1] {
			return r, usagef("--%s: not a parameter of --query-scale %v (it takes --%s and --%s)", f.name, r.Kind, own[0], own[1])
		}
	}
	switch r.Kind {
	case rope.QueryScaleLlama4:
		r.FloorScale, r.AttnScale = 8192, 0.1
		if queryScaleFloor.set {
			r.FloorScale = queryScaleFloor.v
		}
		if queryScaleAttn.set {
			r.AttnScale = queryScaleAttn.v
		}
	case rope.QueryScaleBeta:
		for _, name := range own {
			for _, f := range queryScaleParamFlags {
				if f.name == name && !f.v.set {
					return r, usagef("--%s: missing (--query-scale beta needs --beta and --original-max)", name)
				}
			}
		}
		n := queryScaleOrigMax.v
		if n != float64(int(n)) || n < 1 || n > 1<<53 {
			return r, usagef("--original-max %v: want a positive integer", n)
		}
		r.Beta, r.OriginalMax = queryScaleBeta.v, int(n)
	}
	if err := r.Validate(); err != nil {
		return r, usagef("--query-scale %v: %v", r.Kind, err)
	}
	return r, nil
}

// queryScaleModelRule is the rule of the model's layer env.layer; none (with a line on stderr)
// on a layer the model does not scale.
func queryScaleModelRule(env *applyEnv) (rope.QueryScaleRule, error) {
	if queryScaleKind != "" {
		return rope.QueryScaleRule{}, usagef("--query-scale: give it or --config/--model, not both")
	}
	for _, f := range queryScaleParamFlags {
		if f.v.set {
			return rope.QueryScaleRule{}, usagef("--%s: the rule comes from --config/--model (give --query-scale and its parameters without a model instead)", f.name)
		}
	}
	m := env.model
	if m.Spec.QueryScale.Kind == rope.QueryScaleNone {
		return rope.QueryScaleRule{}, usagef("model_type %q: the config has no query scale (attn_temperature_tuning for llama4, llama_4_scaling_beta in rope_parameters); give --query-scale and its parameters instead", m.ModelType)
	}
	r, err := m.QueryScaleAt(env.layer)
	if err != nil {
		return r, usagef("--layer: %v", err)
	}
	if r.Kind == rope.QueryScaleNone {
		fmt.Fprintf(env.stderr, "rotary apply: layer %d is not scaled (%v applies to the layers without RoPE): query written unchanged\n", env.layer, m.Spec.QueryScale.Kind)
		return r, nil
	}
	if r.Cast, err = rope.ParseQueryScaleCast(queryScaleCast); err != nil {
		return r, usagef("--query-scale-cast: %v", err)
	}
	return r, nil
}

func runQueryScale(env *applyEnv) ([]safetensors.Tensor, error) {
	var rule rope.QueryScaleRule
	var err error
	if env.model != nil {
		rule, err = queryScaleModelRule(env)
	} else {
		rule, err = queryScaleFlagRule()
	}
	if err != nil {
		return nil, err
	}
	in, err := env.inputsNamed("positions", "query")
	if err != nil {
		return nil, err
	}
	positions, query := in[0], in[1]
	if err := rotary.QueryScale(env.disp, rotary.QueryScaleParams{Positions: positions, Query: query, Rule: rule}); err != nil {
		return nil, usageError{err}
	}
	return []safetensors.Tensor{toFile("query", query)}, nil
}

// goldenQueryScale: positions [T], query [T, Hq, D]; the rule is the model's (or --query-scale's).
func goldenQueryScale(g *goldenGen) ([]goldenInput, error) {
	hq, _ := g.heads()
	pos := g.positions(1)
	return []goldenInput{{"positions", pos}, {"query", g.values("query", g.c.tokens, hq, g.spec.HeadSize)}}, nil
}
