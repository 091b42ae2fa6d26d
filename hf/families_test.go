package hf

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/rotary-go/rotary"
)

// TestFamilies parses a hand-written config shaped like each family's published config.json
// (the keys it carries, nesting included) and checks the derived spec.
func TestFamilies(t *testing.T) {
	factors := func(n int, v string) string { return "[" + strings.TrimSuffix(strings.Repeat(v+",", n), ",") + "]" }
	cases := []struct {
		name, cfg string
		want      want
	}{
		{"granite", `{"model_type": "granite", "architectures": ["GraniteForCausalLM"], "hidden_size": 4096,
			"num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 40, "max_position_embeddings": 131072,
			"rope_theta": 10000000.0, "rope_scaling": null, "attention_multiplier": 0.0078125, "embedding_multiplier": 12.0}`,
			want{modelType: "granite", layers: 40, heads: 32, kv: 8, head: 128, rot: 128, base: 1e7,
				style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 131072}},
		{"granitemoe", `{"model_type": "granitemoe", "hidden_size": 1536, "num_attention_heads": 24, "num_key_value_heads": 8,
			"num_hidden_layers": 32, "max_position_embeddings": 4096, "rope_theta": 10000, "num_local_experts": 40}`,
			want{modelType: "granitemoe", layers: 32, heads: 24, kv: 8, head: 64, rot: 64, base: 10000,
				style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 4096}},
		{"granitemoehybrid rope", `{"model_type": "granitemoehybrid", "hidden_size": 1536, "num_attention_heads": 12,
			"num_key_value_heads": 4, "num_hidden_layers": 4, "max_position_embeddings": 131072, "rope_theta": 10000,
			"position_embedding_type": "rope", "layer_types": ["mamba", "attention", "mamba", "mamba"]}`,
			want{modelType: "granitemoehybrid", layers: 4, heads: 12, kv: 4, head: 128, rot: 128, base: 10000,
				style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 131072, notesContain: "mamba layers"}},
		{"bamba", `{"model_type": "bamba", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
			"num_hidden_layers": 32, "max_position_embeddings": 262144, "rope_theta": 10000, "attn_layer_indices": [9, 18, 27],
			"attn_rotary_emb": 64}`,
			want{modelType: "bamba", layers: 32, heads: 32, kv: 8, head: 128, rot: 64, base: 10000,
				style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 262144, notesContain: "mamba layers"}},
		{"qwen3_next", `{"model_type": "qwen3_next", "hidden_size": 2048, "head_dim": 256, "num_attention_heads": 16,
			"num_key_value_heads": 2, "num_hidden_layers": 48, "max_position_embeddings": 262144, "rope_theta": 10000000,
			"partial_rotary_factor": 0.25, "full_attention_interval": 4, "rope_scaling": null}`,
			want{modelType: "qwen3_next", layers: 48, heads: 16, kv: 2, head: 256, rot: 64, base: 1e7,
				style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 262144, notesContain: "Gated DeltaNet"}},
		{"qwen3_next class defaults", `{"model_type": "qwen3_next", "hidden_size": 2048, "num_attention_heads": 16,
			"num_key_value_heads": 2, "max_position_embeddings": 262144, "rope_theta": 10000000}`,
			want{modelType: "qwen3_next", layers: 48, heads: 16, kv: 2, head: 256, rot: 64, base: 1e7,
				style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 262144, notesContain: "head_dim absent: using the Qwen3NextConfig default 256"}},
		{"qwen3_5", `{"model_type": "qwen3_5", "architectures": ["Qwen3_5ForConditionalGeneration"],
			"text_config": {"model_type": "qwen3_5_text", "hidden_size": 5120, "head_dim": 256, "num_attention_heads": 24,
			  "num_key_value_heads": 4, "num_hidden_layers": 4, "max_position_embeddings": 262144,
			  "layer_types": ["linear_attention", "linear_attention", "linear_attention", "full_attention"],
			  "rope_parameters": {"rope_type": "default", "rope_theta": 10000000, "partial_rotary_factor": 0.25,
			    "mrope_interleaved": true, "mrope_section": [11, 11, 10]}},
			"vision_config": {"model_type": "qwen3_5", "depth": 27, "hidden_size": 1152, "num_heads": 16}}`,
			want{modelType: "qwen3_5_text", top: "qwen3_5", layers: 4, heads: 24, kv: 4, head: 256, rot: 64, base: 1e7,
				style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 262144,
				mropeSections: []int{11, 11, 10}, mropeInterleaved: true, notesContain: "Gated DeltaNet"}},
		{"qwen3_5_moe default sections", `{"model_type": "qwen3_5_moe", "text_config": {"model_type": "qwen3_5_moe_text",
			"hidden_size": 2048, "num_attention_heads": 16, "num_key_value_heads": 2, "max_position_embeddings": 262144,
			"rope_parameters": {"rope_type": "default", "rope_theta": 10000000}}}`,
			want{modelType: "qwen3_5_moe_text", top: "qwen3_5_moe", layers: 40, heads: 16, kv: 2, head: 256, rot: 64, base: 1e7,
				style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 262144,
				mropeSections: []int{11, 11, 10}, mropeInterleaved: true, notesContain: "Qwen3_5TextRotaryEmbedding"}},
		{"ministral", `{"model_type": "ministral", "hidden_size": 4096, "head_dim": 128, "num_attention_heads": 32,
			"num_key_value_heads": 8, "num_hidden_layers": 36, "max_position_embeddings": 32768, "rope_theta": 100000000.0,
			"sliding_window": 32768}`,
			want{modelType: "ministral", layers: 36, heads: 32, kv: 8, head: 128, rot: 128, base: 1e8,
				style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 32768}},
		{"mistral3 with ministral3 text", `{"model_type": "mistral3", "architectures": ["Mistral3ForConditionalGeneration"],
			"text_config": {"model_type": "ministral3", "hidden_size": 4096, "head_dim": 128, "num_attention_heads": 32,
			  "num_key_value_heads": 8, "num_hidden_layers": 34, "max_position_embeddings": 262144,
			  "rope_parameters": {"type": "yarn", "rope_theta": 1000000.0, "factor": 16.0, "original_max_position_embeddings": 16384,
			    "beta_fast": 32.0, "beta_slow": 1.0, "mscale": 1.0, "mscale_all_dim": 1.0, "llama_4_scaling_beta": 0.1}},
			"vision_config": {"model_type": "pixtral", "hidden_size": 1024, "num_attention_heads": 16}}`,
			want{modelType: "ministral3", top: "mistral3", layers: 34, heads: 32, kv: 8, head: 128, rot: 128, base: 1e6,
				style: rotary.NeoX, scaling: rotary.ScalingYaRN, maxPos: 262144, factor: 16, orig: 16384,
				notesContain: "llama_4_scaling_beta"}},
		{"mistral3 with mistral text", `{"model_type": "mistral3", "text_config": {"model_type": "mistral", "hidden_size": 5120,
			"head_dim": 128, "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 40,
			"max_position_embeddings": 131072, "rope_theta": 1000000000.0}}`,
			want{modelType: "mistral", top: "mistral3", layers: 40, heads: 32, kv: 8, head: 128, rot: 128, base: 1e9,
				style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 131072}},
		{"phimoe", `{"model_type": "phimoe", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
			"num_hidden_layers": 32, "max_position_embeddings": 131072, "rope_theta": 10000.0,
			"rope_scaling": {"type": "longrope", "short_factor": ` + factors(64, "1.05") + `, "long_factor": ` + factors(64, "1.5") + `,
			  "short_mscale": 1.243163121016122, "long_mscale": 1.243163121016122, "original_max_position_embeddings": 4096}}`,
			want{modelType: "phimoe", layers: 32, heads: 32, kv: 8, head: 128, rot: 128, base: 10000,
				style: rotary.NeoX, scaling: rotary.ScalingLongRoPE, maxPos: 131072, factor: 32, orig: 4096,
				check: func(t *testing.T, m *Model) {
					// HF's PhimoeRotaryEmbedding and vLLM scale cos/sin by the mscale, not by
					// √(1 + ln 32 / ln 4096) = 1.19.
					if _, att := m.Spec.Frequencies(-1); att != 1.243163121016122 {
						t.Errorf("attention factor %v, want short_mscale 1.243163121016122", att)
					}
					if _, att := m.Spec.Frequencies(4096); att != 1.243163121016122 {
						t.Errorf("long attention factor %v, want long_mscale 1.243163121016122", att)
					}
				}}},
		{"phi-4-mini (phi3, partial 0.75)", `{"model_type": "phi3", "architectures": ["Phi3ForCausalLM"], "hidden_size": 3072,
			"num_attention_heads": 24, "num_key_value_heads": 8, "num_hidden_layers": 32, "max_position_embeddings": 131072,
			"original_max_position_embeddings": 4096, "partial_rotary_factor": 0.75, "rope_theta": 10000.0,
			"rope_scaling": {"type": "longrope", "short_factor": ` + factors(48, "1") + `, "long_factor": ` + factors(48, "1.5") + `}}`,
			want{modelType: "phi3", layers: 32, heads: 24, kv: 8, head: 128, rot: 96, base: 10000,
				style: rotary.NeoX, scaling: rotary.ScalingLongRoPE, maxPos: 131072, factor: 32, orig: 4096}},
		{"minimax_m2", `{"model_type": "minimax_m2", "architectures": ["MiniMaxM2ForCausalLM"], "hidden_size": 3072,
			"head_dim": 128, "rotary_dim": 64, "num_attention_heads": 48, "num_key_value_heads": 8, "num_hidden_layers": 62,
			"max_position_embeddings": 196608, "rope_theta": 5000000}`,
			want{modelType: "minimax_m2", layers: 62, heads: 48, kv: 8, head: 128, rot: 64, base: 5e6,
				style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 196608, notesContain: "rotates the whole head"}},
		{"minimax_text_01", `{"model_type": "minimax_text_01", "hidden_size": 6144, "head_dim": 128, "rotary_dim": 64,
			"num_attention_heads": 64, "num_key_value_heads": 8, "num_hidden_layers": 80, "max_position_embeddings": 10240000,
			"rope_theta": 10000000, "attn_type_list": [0, 0, 0, 0, 0, 0, 0, 1]}`,
			want{modelType: "minimax_text_01", layers: 80, heads: 64, kv: 8, head: 128, rot: 64, base: 1e7,
				style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 10240000, notesContain: "lightning"}},
		{"glm4v", `{"model_type": "glm4v", "architectures": ["Glm4vForConditionalGeneration"],
			"text_config": {"model_type": "glm4v_text", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 2,
			  "num_hidden_layers": 40, "max_position_embeddings": 65536, "partial_rotary_factor": 0.5, "rope_theta": 10000,
			  "rope_scaling": {"type": "default", "mrope_section": [8, 12, 12]}}}`,
			want{modelType: "glm4v_text", top: "glm4v", layers: 40, heads: 32, kv: 2, head: 128, rot: 64, base: 10000,
				style: rotary.GPTJ, scaling: rotary.ScalingDefault, maxPos: 65536, mropeSections: []int{8, 12, 12}}},
		{"glm4v_moe", `{"model_type": "glm4v_moe", "text_config": {"model_type": "glm4v_moe_text", "hidden_size": 4096,
			"head_dim": 128, "num_attention_heads": 96, "num_key_value_heads": 8, "num_hidden_layers": 46,
			"max_position_embeddings": 65536, "partial_rotary_factor": 0.5, "rope_theta": 10000,
			"rope_scaling": {"rope_type": "default", "mrope_section": [8, 12, 12]}}}`,
			want{modelType: "glm4v_moe_text", top: "glm4v_moe", layers: 46, heads: 96, kv: 8, head: 128, rot: 64, base: 10000,
				style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 65536, mropeSections: []int{8, 12, 12}}},
		{"ernie4_5", `{"model_type": "ernie4_5", "architectures": ["Ernie4_5ForCausalLM"], "hidden_size": 1024, "head_dim": 128,
			"num_attention_heads": 16, "num_key_value_heads": 2, "num_hidden_layers": 18, "max_position_embeddings": 131072,
			"rope_theta": 500000, "use_bias": false}`,
			want{modelType: "ernie4_5", layers: 18, heads: 16, kv: 2, head: 128, rot: 128, base: 500000,
				style: rotary.GPTJ, scaling: rotary.ScalingDefault, maxPos: 131072}},
		{"ernie4_5_moe", `{"model_type": "ernie4_5_moe", "hidden_size": 2560, "num_attention_heads": 20, "num_key_value_heads": 4,
			"num_hidden_layers": 28, "max_position_embeddings": 131072, "rope_theta": 500000, "moe_num_experts": 64}`,
			want{modelType: "ernie4_5_moe", layers: 28, heads: 20, kv: 4, head: 128, rot: 128, base: 500000,
				style: rotary.GPTJ, scaling: rotary.ScalingDefault, maxPos: 131072}},
		{"hunyuan_v1_dense", `{"model_type": "hunyuan_v1_dense", "hidden_size": 4096, "head_dim": 128, "num_attention_heads": 32,
			"num_key_value_heads": 8, "num_hidden_layers": 32, "max_position_embeddings": 32768, "rope_theta": 10000.0,
			"rope_scaling": {"alpha": 1000.0, "beta_fast": 32, "beta_slow": 1, "factor": 1.0, "mscale": 1.0,
			  "mscale_all_dim": 1.0, "type": "dynamic"}}`,
			want{modelType: "hunyuan_v1_dense", layers: 32, heads: 32, kv: 8, head: 128, rot: 128, base: 10000,
				style: rotary.NeoX, scaling: rotary.ScalingNTKAlpha, maxPos: 32768,
				check: func(t *testing.T, m *Model) {
					if m.Spec.Scaling.Alpha != 1000 {
						t.Errorf("alpha %v, want 1000", m.Spec.Scaling.Alpha)
					}
				}}},
		{"hunyuan_v1_moe", `{"model_type": "hunyuan_v1_moe", "hidden_size": 4096, "head_dim": 128, "num_attention_heads": 32,
			"num_key_value_heads": 8, "num_hidden_layers": 32, "max_position_embeddings": 32768, "rope_theta": 10000.0,
			"rope_scaling": {"alpha": 1000.0, "type": "dynamic"}}`,
			want{modelType: "hunyuan_v1_moe", layers: 32, heads: 32, kv: 8, head: 128, rot: 128, base: 10000,
				style: rotary.NeoX, scaling: rotary.ScalingNTKAlpha, maxPos: 32768}},
		{"seed_oss", `{"model_type": "seed_oss", "hidden_size": 5120, "head_dim": 128, "num_attention_heads": 80,
			"num_key_value_heads": 8, "num_hidden_layers": 64, "max_position_embeddings": 524288, "rope_theta": 10000000.0,
			"rope_scaling": {"rope_type": "default"}}`,
			want{modelType: "seed_oss", layers: 64, heads: 80, kv: 8, head: 128, rot: 128, base: 1e7,
				style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 524288}},
		{"apertus", `{"model_type": "apertus", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
			"num_hidden_layers": 32, "max_position_embeddings": 65536, "rope_theta": 12000000,
			"rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
			  "original_max_position_embeddings": 8192}}`,
			want{modelType: "apertus", layers: 32, heads: 32, kv: 8, head: 128, rot: 128, base: 1.2e7,
				style: rotary.NeoX, scaling: rotary.ScalingLlama3, maxPos: 65536, factor: 8, orig: 8192}},
		{"nemotron", `{"model_type": "nemotron", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
			"num_hidden_layers": 32, "max_position_embeddings": 4096, "rope_theta": 10000, "partial_rotary_factor": 0.5}`,
			want{modelType: "nemotron", layers: 32, heads: 32, kv: 8, head: 128, rot: 64, base: 10000,
				style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 4096}},
		{"nemotron default partial", `{"model_type": "nemotron", "hidden_size": 3072, "head_dim": 128, "num_attention_heads": 24,
			"num_key_value_heads": 8, "max_position_embeddings": 4096, "rope_theta": 10000}`,
			want{modelType: "nemotron", layers: 32, heads: 24, kv: 8, head: 128, rot: 64, base: 10000,
				style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 4096}},
		{"internlm3", `{"model_type": "internlm3", "hidden_size": 4096, "head_dim": 128, "num_attention_heads": 32,
			"num_key_value_heads": 2, "num_hidden_layers": 48, "max_position_embeddings": 32768, "rope_theta": 50000000,
			"rope_scaling": {"factor": 6.0, "rope_type": "dynamic"}, "qkv_bias": false}`,
			want{modelType: "internlm3", layers: 48, heads: 32, kv: 2, head: 128, rot: 128, base: 5e7,
				style: rotary.NeoX, scaling: rotary.ScalingDynamic, maxPos: 32768, factor: 6}},
		{"stablelm", `{"model_type": "stablelm", "hidden_size": 2048, "num_attention_heads": 32, "num_key_value_heads": 32,
			"num_hidden_layers": 24, "max_position_embeddings": 4096, "rope_theta": 10000, "partial_rotary_factor": 0.25}`,
			want{modelType: "stablelm", layers: 24, heads: 32, kv: 32, head: 64, rot: 16, base: 10000,
				style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 4096}},
		// The config classes' defaults when the file names no rotary fraction.
		{"phi default partial", `{"model_type": "phi", "hidden_size": 2048, "num_attention_heads": 32, "max_position_embeddings": 2048}`,
			want{modelType: "phi", layers: 24, heads: 32, kv: 32, head: 64, rot: 32, base: 10000,
				style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 2048}},
		{"persimmon default partial", `{"model_type": "persimmon", "hidden_size": 4096, "num_attention_heads": 64, "max_position_embeddings": 16384, "rope_theta": 25000}`,
			want{modelType: "persimmon", layers: 36, heads: 64, kv: 64, head: 64, rot: 32, base: 25000,
				style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 16384}},
		{"stablelm default partial", `{"model_type": "stablelm", "hidden_size": 2560, "num_attention_heads": 32, "max_position_embeddings": 4096}`,
			want{modelType: "stablelm", layers: 32, heads: 32, kv: 32, head: 80, rot: 20, base: 10000,
				style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 4096}},
		{"gpt_neox default rotary_pct", `{"model_type": "gpt_neox", "hidden_size": 6144, "num_attention_heads": 64, "max_position_embeddings": 2048}`,
			want{modelType: "gpt_neox", layers: 44, heads: 64, kv: 64, head: 96, rot: 24, base: 10000,
				style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 2048}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := mustParse(t, c.cfg)
			if m.StyleAssumed {
				t.Errorf("StyleAssumed for a known family")
			}
			checkModel(t, m, c.want)
		})
	}
}

// TestGraniteHybridNoPE: GraniteMoeHybridModel builds a rotary embedding only for
// position_embedding_type "rope"; the Granite 4.0 hybrids publish "nope".
func TestGraniteHybridNoPE(t *testing.T) {
	for _, pet := range []string{`"nope"`, `null`} {
		_, err := Parse([]byte(`{"model_type": "granitemoehybrid", "hidden_size": 1536, "num_attention_heads": 12,
			"rope_theta": 10000, "position_embedding_type": ` + pet + `}`))
		if !errors.Is(err, ErrNoRoPE) || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "position_embedding_type") {
			t.Errorf("position_embedding_type %s: %v, want ErrNoRoPE naming position_embedding_type", pet, err)
		}
	}
}

func TestPhiMoEMscales(t *testing.T) {
	const head = `{"model_type": "phimoe", "hidden_size": 128, "num_attention_heads": 8, "max_position_embeddings": 16384,
		"rope_scaling": {"type": "longrope", "short_factor": [1, 1, 1, 1, 1, 1, 1, 1], "long_factor": [2, 2, 2, 2, 2, 2, 2, 2],
		"original_max_position_embeddings": 4096`
	for _, extra := range []string{`, "short_mscale": 1.2, "long_mscale": 1.3`, `, "long_mscale": 1.3`} {
		if _, err := Parse([]byte(head + extra + `}}`)); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "mscale") {
			t.Errorf("%s: %v, want an error naming the mscales", extra, err)
		}
	}
}

// TestUnknownModelType: a model_type outside the table whose config has the generic keys is
// read as a NeoX decoder, with a note and StyleAssumed; ParseOptions.Style names the pairing.
func TestUnknownModelType(t *testing.T) {
	const cfg = `{"model_type": "acme_lm", "hidden_size": 2048, "num_attention_heads": 16, "num_key_value_heads": 4,
		"num_hidden_layers": 24, "max_position_embeddings": 8192, "rope_theta": 500000, "partial_rotary_factor": 0.5}`
	m := mustParse(t, cfg)
	if !m.StyleAssumed || m.Spec.Style != rotary.NeoX || m.Spec.RotaryDim != 64 || m.Spec.Base != 500000 || m.NumKVHeads != 4 {
		t.Fatalf("unknown model: assumed %v, spec %+v", m.StyleAssumed, m.Spec)
	}
	if !slices.ContainsFunc(m.Notes, func(n string) bool {
		return strings.Contains(n, `"acme_lm"`) && strings.Contains(n, "NeoX") && strings.Contains(n, "--style")
	}) {
		t.Errorf("notes %q lack the NeoX assumption", m.Notes)
	}

	m, err := ParseOptions{Style: new(rotary.GPTJ)}.Parse([]byte(cfg))
	if err != nil {
		t.Fatal(err)
	}
	if m.StyleAssumed || m.Spec.Style != rotary.GPTJ {
		t.Errorf("with Style gptj: assumed %v style %v", m.StyleAssumed, m.Spec.Style)
	}

	// A rope object alone is enough; nested text configs are read as for any family.
	m = mustParse(t, `{"model_type": "acme_vl", "text_config": {"model_type": "acme_text", "hidden_size": 1024,
		"num_attention_heads": 8, "rope_parameters": {"rope_type": "yarn", "factor": 4, "rope_theta": 1000000,
		"original_max_position_embeddings": 4096}}}`)
	if !m.StyleAssumed || m.Spec.Scaling.Type != rotary.ScalingYaRN || m.ModelType != "acme_text" || m.TopModelType != "acme_vl" {
		t.Errorf("nested unknown: %+v", m)
	}

	// Without the generic keys nothing says the model uses RoPE.
	for _, bad := range []string{
		`{"model_type": "acme_lm", "hidden_size": 2048, "num_attention_heads": 16}`,
		`{"model_type": "acme_lm", "d_model": 2048, "num_heads": 16, "rope_theta": 10000}`,
		`{"model_type": "acme_lm", "hidden_size": 2048, "num_attention_heads": 16, "rope_scaling": null}`,
	} {
		_, err := Parse([]byte(bad))
		if !errors.Is(err, ErrConfig) || errors.Is(err, ErrNoRoPE) || !strings.Contains(err.Error(), `"acme_lm"`) || !strings.Contains(err.Error(), "llama") {
			t.Errorf("%s: %v, want ErrConfig naming the type, the missing keys and the known families", bad, err)
		}
	}
}

// TestEmptyModelType: an empty model_type names no family; it counts as absent.
func TestEmptyModelType(t *testing.T) {
	_, err := Parse([]byte(`{"model_type": "", "hidden_size": 100, "num_attention_heads": 1, "rope_scaling": {}}`))
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "model_type: missing") {
		t.Errorf("empty model_type: %v, want model_type: missing", err)
	}
	m := mustParse(t, `{"model_type": "", "text_config": {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 8}}`)
	if m.ModelType != "llama" || m.TopModelType != "llama" {
		t.Errorf("empty top-level model_type: %q/%q, want llama/llama", m.ModelType, m.TopModelType)
	}
}

// TestStyleOverride: ParseOptions.Style wins over the family's pairing and over the config's
// own switches, with a note when it departs from the family.
func TestStyleOverride(t *testing.T) {
	llama := []byte(`{"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 500000}`)
	m, err := ParseOptions{Style: new(rotary.GPTJ)}.Parse(llama)
	if err != nil {
		t.Fatal(err)
	}
	if m.Spec.Style != rotary.GPTJ || !slices.ContainsFunc(m.Notes, func(n string) bool { return strings.Contains(n, "llama family") }) {
		t.Errorf("llama as gptj: %v, notes %q", m.Spec.Style, m.Notes)
	}
	m, err = ParseOptions{Style: new(rotary.NeoX)}.Parse(llama)
	if err != nil || m.Spec.Style != rotary.NeoX || slices.ContainsFunc(m.Notes, func(n string) bool { return strings.Contains(n, "caller") }) {
		t.Errorf("llama as neox: %v %v, notes %q", m, err, m.Notes)
	}
	m, err = ParseOptions{Style: new(rotary.NeoX)}.Parse([]byte(`{"model_type": "deepseek_v3", "hidden_size": 7168,
		"num_attention_heads": 128, "qk_rope_head_dim": 64, "rope_interleave": true}`))
	if err != nil || m.Spec.Style != rotary.NeoX {
		t.Errorf("deepseek_v3 as neox: %v %v", m, err)
	}
	if _, err := (ParseOptions{Style: new(rotary.Style(7))}).Parse(llama); !errors.Is(err, ErrConfig) {
		t.Errorf("style 7: %v, want ErrConfig", err)
	}
	p, err := ParseOptions{Style: new(rotary.GPTJ)}.Preset("llama-3.2-1b")
	if err != nil || p.Spec.Style != rotary.GPTJ {
		t.Errorf("Preset with Style: %v %v", p, err)
	}
}

// TestNoRoPEFamilies: model types whose HF modeling code uses no RoPE are refused with what
// they use instead, even when their config has hidden_size, heads and a rope_theta-like key.
func TestNoRoPEFamilies(t *testing.T) {
	cases := map[string]string{
		`{"model_type": "bert", "hidden_size": 768, "num_attention_heads": 12, "position_embedding_type": "absolute"}`: "learned absolute",
		`{"model_type": "gpt2", "n_embd": 768, "n_head": 12}`:                                                          "wpe",
		`{"model_type": "t5", "d_model": 512, "num_heads": 8}`:                                                         "relative position buckets",
		`{"model_type": "bloom", "hidden_size": 1024, "n_head": 16}`:                                                   "ALiBi",
		`{"model_type": "mpt", "d_model": 4096, "n_heads": 32}`:                                                        "ALiBi",
		`{"model_type": "mamba", "hidden_size": 768}`:                                                                  "state",
		`{"model_type": "mamba2", "hidden_size": 768, "num_heads": 24}`:                                                "state",
		`{"model_type": "llava", "text_config": {"model_type": "mamba"}}`:                                              "state",
		`{"model_type": "roberta", "hidden_size": 768, "num_attention_heads": 12, "rope_theta": 10000}`:                "learned absolute",
	}
	for cfg, uses := range cases {
		for _, opts := range []ParseOptions{{}, {Style: new(rotary.NeoX)}} {
			_, err := opts.Parse([]byte(cfg))
			if !errors.Is(err, ErrNoRoPE) || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), uses) {
				t.Errorf("%s: %v, want ErrNoRoPE saying %q", cfg, err, uses)
			}
		}
	}
}

// TestNewFamiliesKnown: the families added for current models stay known, and no model_type is
// both a RoPE family and a no-RoPE one.
func TestNewFamiliesKnown(t *testing.T) {
	known := KnownModelTypes()
	for _, name := range []string{"granite", "granitemoe", "granitemoeshared", "granitemoehybrid", "bamba", "qwen3_next",
		"qwen3_5", "qwen3_5_text", "qwen3_5_moe", "qwen3_5_moe_text", "ministral", "ministral3", "mistral3", "phimoe",
		"minimax", "minimax_text_01", "minimax_m2", "glm4v", "glm4v_text", "glm4v_moe", "glm4v_moe_text", "ernie4_5",
		"ernie4_5_moe", "hunyuan_v1_dense", "hunyuan_v1_moe", "seed_oss", "apertus", "nemotron", "internlm3"} {
		if !slices.Contains(known, name) {
			t.Errorf("%s missing from KnownModelTypes", name)
		}
		if _, no := noRoPE[name]; no {
			t.Errorf("%s is both a RoPE family and a no-RoPE one", name)
		}
	}
	for name := range noRoPE {
		if slices.Contains(known, name) {
			t.Errorf("%s is both a RoPE family and a no-RoPE one", name)
		}
	}
}
