package hf

import (
	"fmt"

	"github.com/rotary-go/rotary/rope"
)

// The position-dependent query scales that ship beside RoPE (op query_scale), as the Hugging
// Face modeling code applies them (transformers main):
//
//   - Llama 4, modeling_llama4.py Llama4TextAttention.forward: with attn_temperature_tuning, on
//     the layers without RoPE (`not self.use_rope`), queries times
//     log1p(⌊(cache position + 1) / floor_scale⌋) · attn_scale + 1. Llama4TextConfig defaults:
//     attn_temperature_tuning True, floor_scale 8192, attn_scale 0.1.
//   - Ministral 3 and Mistral 4, get_llama_4_attn_scale in modeling_ministral3.py and
//     modeling_mistral4.py: on every layer after RoPE, queries times
//     1 + llama_4_scaling_beta · log(1 + ⌊position / original_max_position_embeddings⌋), both
//     read from rope_parameters.

// QueryScaleAt is the query scale of layer l: the Spec's ForLayer(l).QueryScale (Llama 4's
// temperature tuning on the layers without RoPE, the beta rule on every layer), checked against
// the model's layer count.
func (m *Model) QueryScaleAt(l int) (rope.QueryScaleRule, error) {
	if m.NumLayers > 0 && (l < 0 || l >= m.NumLayers) {
		return rope.QueryScaleRule{}, fmt.Errorf("layer %d: the model has %d layers (0..%d)", l, m.NumLayers, m.NumLayers-1)
	}
	s, err := m.Spec.ForLayer(l)
	if err != nil {
		return rope.QueryScaleRule{}, err
	}
	return s.QueryScale, nil
}

// queryScale fills Spec.QueryScale: the beta rule wherever the rope object names
// llama_4_scaling_beta, Llama 4's temperature tuning for the llama4 families.
func (p *parser) queryScale(ri ropeInfo) error {
	if ri.main != nil {
		if _, _, ok := ri.main.get("llama_4_scaling_beta"); ok {
			return p.betaScale(*ri.main)
		}
	}
	if p.fam.layers == llama4Layers {
		return p.llama4Scale()
	}
	return nil
}

// betaScale reads llama_4_scaling_beta and its original_max_position_embeddings (the
// config's own, else the rope object's, as the YaRN part reads it).
func (p *parser) betaScale(n node) error {
	beta, _, err := n.number("llama_4_scaling_beta")
	if err != nil {
		return err
	}
	orig, err := p.originalMax(n)
	if err != nil {
		return err
	}
	if orig == 0 {
		return configErr("%s: llama_4_scaling_beta needs original_max_position_embeddings (get_llama_4_attn_scale divides the position by it)", n.path)
	}
	r := rope.QueryScaleRule{Kind: rope.QueryScaleBeta, Beta: beta, OriginalMax: orig}
	if err := r.Validate(); err != nil {
		return configErr("%s: %v", n.path, err)
	}
	p.m.Spec.QueryScale = r
	p.note("%s: queries are also scaled after RoPE, on every layer, by 1 + llama_4_scaling_beta·ln(1 + ⌊position / original_max_position_embeddings⌋) = 1 + %v·ln(1 + ⌊p / %d⌋), the scale rounded to the query's dtype first as Hugging Face does (op query_scale)",
		n.path, beta, orig)
	switch p.m.ModelType {
	case "ministral3", "mistral4":
	default:
		p.note("Hugging Face applies llama_4_scaling_beta in Ministral3Attention and Mistral4Attention; model_type %q's own modeling code may not (vLLM applies it wherever the config has it, rounding the product instead: --query-scale-cast product)", p.m.ModelType)
	}
	return nil
}

// llama4Scale reads attn_temperature_tuning, floor_scale and attn_scale, with
// Llama4TextConfig's defaults.
func (p *parser) llama4Scale() error {
	on := true
	if path, v, ok := p.src.given("attn_temperature_tuning"); ok {
		switch t := v.(type) {
		case bool:
			on = t
		default:
			// Llama4TextAttention tests it for truth, so a number counts as Python counts it.
			f, err := asNumber(path, v)
			if err != nil {
				return configErr("%s: want true, false or a number, got %s", path, describe(v))
			}
			on = f != 0
			p.note("%s %v: a number, on when nonzero as in Python", path, v)
		}
	} else {
		p.note("attn_temperature_tuning absent: using the llama4 default true")
	}
	if !on {
		return nil
	}
	r := rope.QueryScaleRule{Kind: rope.QueryScaleLlama4, FloorScale: 8192, AttnScale: 0.1}
	for _, k := range []struct {
		key string
		dst *float64
	}{{"floor_scale", &r.FloorScale}, {"attn_scale", &r.AttnScale}} {
		path, v, ok := p.src.given(k.key)
		if !ok {
			p.note("%s absent: using the llama4 default %v", k.key, *k.dst)
			continue
		}
		f, err := asNumber(path, v)
		if err != nil {
			return err
		}
		*k.dst = f
	}
	if err := r.Validate(); err != nil {
		return configErr("%v", err)
	}
	p.m.Spec.QueryScale = r
	p.note("attn_temperature_tuning: the layers without RoPE scale their queries by log1p(⌊(position + 1) / %v⌋)·%v + 1 (op query_scale; Model.QueryScaleAt says which layers)", r.FloorScale, r.AttnScale)
	return nil
}
