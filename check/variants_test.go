package check_test

import (
	"strings"
	"testing"

	"github.com/rotary-go/rotary/check"
)

// The 2025–2026 variants: no false errors on their valid configs, the findings where
// frameworks read them differently, and their parameters checked.
func TestVariants(t *testing.T) {
	cfg := func(s string) []byte { return []byte(s) }
	// Shaped like deepseek-ai/DeepSeek-V3.2-Exp's config.json (the keys rotary reads).
	ds32 := cfg(`{"model_type": "deepseek_v32", "hidden_size": 7168, "num_attention_heads": 128, "num_key_value_heads": 128,
		"num_hidden_layers": 61, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "index_head_dim": 128, "index_n_heads": 64,
		"max_position_embeddings": 163840, "rope_theta": 10000, "rope_scaling": {"type": "yarn", "factor": 40,
		"original_max_position_embeddings": 4096, "beta_fast": 32, "beta_slow": 1, "mscale": 1.0, "mscale_all_dim": 1.0}}`)
	ntk := func(params string) []byte {
		return cfg(`{"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 4096,
			"rope_theta": 10000, "rope_scaling": {"rope_type": "ntk"` + params + `}}`)
	}
	llama4 := func(tuning string) []byte {
		return cfg(`{"model_type": "llama4", "text_config": {"model_type": "llama4_text", "hidden_size": 5120, "head_dim": 128,
			"num_attention_heads": 40, "num_key_value_heads": 8, "num_hidden_layers": 8, "max_position_embeddings": 10485760,
			"rope_theta": 500000, "rope_scaling": {"rope_type": "llama3", "factor": 16, "low_freq_factor": 1, "high_freq_factor": 1,
			"original_max_position_embeddings": 8192}, "attn_temperature_tuning": ` + tuning + `, "floor_scale": 8192, "attn_scale": 0.1}}`)
	}
	ministral3 := func(beta string) []byte {
		return cfg(`{"model_type": "mistral3", "text_config": {"model_type": "ministral3", "hidden_size": 3072, "head_dim": 128,
			"num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 26, "max_position_embeddings": 262144,
			"rope_parameters": {"rope_type": "yarn", "factor": 16, "original_max_position_embeddings": 16384, "llama_4_scaling_beta": ` + beta + `,
			"rope_theta": 1000000, "mscale": 1, "mscale_all_dim": 1, "beta_fast": 32, "beta_slow": 1}}}`)
	}
	gemma4 := func(factor string) []byte {
		return cfg(`{"model_type": "gemma4", "text_config": {"model_type": "gemma4_text", "hidden_size": 5376, "num_attention_heads": 32,
			"num_key_value_heads": 16, "head_dim": 256, "global_head_dim": 512, "num_hidden_layers": 6, "max_position_embeddings": 262144,
			"rope_parameters": {"full_attention": {"partial_rotary_factor": 0.25, "rope_theta": 1000000.0, "rope_type": "proportional"` + factor + `},
			"sliding_attention": {"rope_theta": 10000.0, "rope_type": "default"}}}}`)
	}
	// Shaped like deepseek-ai/DeepSeek-V4-Flash's config.json (legacy compress_ratios and
	// rope_scaling), cut to 5 layers.
	dsv4 := func(ratios, scaling string) []byte {
		return cfg(`{"model_type": "deepseek_v4", "hidden_size": 4096, "num_attention_heads": 64, "num_key_value_heads": 1,
			"head_dim": 512, "qk_rope_head_dim": 64, "num_hidden_layers": 5, "max_position_embeddings": 1048576,
			"rope_theta": 10000, "compress_rope_theta": 160000, "compress_ratios": ` + ratios + scaling + `}`)
	}
	const dsv4YaRN = `, "rope_scaling": {"type": "yarn", "factor": 16, "original_max_position_embeddings": 65536, "beta_fast": 32, "beta_slow": 1}`
	variantCodes := []string{"indexer-rotary-mode", "ntk-vllm-only", "llama4-temperature-tuning", "query-scale", "proportional-factor", "deepseek-v4-sliding-yarn"}
	clean := func(name string, c []byte, l check.Launch, warn ...string) checkCase {
		absent := []string{"config", "rotary-dim", "model-type"}
		for _, code := range variantCodes {
			if !contains(warn, code) {
				absent = append(absent, code)
			}
		}
		var w []want
		for _, code := range warn {
			w = append(w, warningAt(code))
		}
		return checkCase{name: name, config: c, launch: l, want: w, absent: absent}
	}
	runCases(t, []checkCase{
		clean("deepseek-v3.2", ds32, check.Launch{}),
		clean("deepseek-v3.2, the MLA's rotary mode", ds32, check.Launch{RotaryMode: "interleave"}, "indexer-rotary-mode"),
		clean("deepseek-v3.2, the indexer's rotary mode", ds32, check.Launch{RotaryMode: "half"}, "indexer-rotary-mode"),
		{name: "deepseek-v3.2, index_head_dim below the rope part", config: cfg(`{"model_type": "deepseek_v32", "hidden_size": 7168,
			"num_attention_heads": 128, "qk_rope_head_dim": 64, "index_head_dim": 32, "rope_theta": 10000}`), want: []want{errorAt("config")}},
		clean("static ntk, fixed", ntk(`, "factor": 4`), check.Launch{}, "ntk-vllm-only"),
		clean("static ntk, mixed_b", ntk(`, "factor": 4, "mixed_b": 0.75`), check.Launch{}, "ntk-vllm-only"),
		{name: "static ntk without factor", config: ntk(``), want: []want{errorAt("config")}},
		{name: "static ntk, factor 0", config: ntk(`, "factor": 0`), want: []want{errorAt("config")}},
		clean("llama 4 temperature tuning", llama4("true"), check.Launch{}, "llama4-temperature-tuning"),
		clean("llama 4 without tuning", llama4("false"), check.Launch{}),
		{name: "llama 4 floor_scale 0", config: cfg(`{"model_type": "llama4_text", "hidden_size": 5120, "head_dim": 128,
			"num_attention_heads": 40, "num_hidden_layers": 4, "rope_theta": 500000, "floor_scale": 0}`), want: []want{errorAt("config")}},
		clean("ministral 3 beta", ministral3("0.1"), check.Launch{}),
		clean("ministral 3 beta, a rope op", ministral3("0.1"), check.Launch{Op: "npu_rotary_mul"}, "query-scale"),
		clean("ministral 3 beta, the query scale op", ministral3("0.1"), check.Launch{Op: "query_scale"}),
		{name: "ministral 3 beta not a number", config: ministral3(`"x"`), want: []want{errorAt("config")}},
		clean("gemma 4 proportional", gemma4(``), check.Launch{}),
		clean("gemma 4 proportional, factor 1", gemma4(`, "factor": 1.0`), check.Launch{}),
		clean("gemma 4 proportional, factor 8", gemma4(`, "factor": 8`), check.Launch{}, "proportional-factor"),
		clean("deepseek-v4, sliding layers", dsv4(`[0, 0, 4, 128, 4]`, dsv4YaRN), check.Launch{}, "deepseek-v4-sliding-yarn"),
		clean("deepseek-v4, no sliding layer", dsv4(`[128, 128, 4, 128, 4]`, dsv4YaRN), check.Launch{}),
		clean("deepseek-v4, no yarn", dsv4(`[0, 0, 4, 128, 4]`, ``), check.Launch{}),
		{name: "gemma 4 partial above 1", config: cfg(`{"model_type": "gemma4_text", "num_hidden_layers": 6, "rope_parameters": {
			"full_attention": {"partial_rotary_factor": 2, "rope_theta": 1e6, "rope_type": "proportional"},
			"sliding_attention": {"rope_theta": 1e4, "rope_type": "default"}}}`), want: []want{errorAt("config")}},
	})
	// Plain RoPE against vLLM's YaRN over the 64-dim slice at theta 10000 (_compute_yarn_parameters'
	// correction range over original 65536, beta 32/1: pairs 0..20 keep their frequency, 21..31
	// are interpolated).
	for _, f := range check.Config(dsv4(`[0, 0, 4, 128, 4]`, dsv4YaRN), check.Launch{}) {
		if f.Code == "deepseek-v4-sliding-yarn" && (!strings.Contains(f.What, "layers (0, 1)") || !strings.Contains(f.Why, "11 of 32 pairs")) {
			t.Errorf("deepseek-v4 sliding layers: %+v, want layers 0, 1 and 11 of 32 pairs", f)
		}
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
