package hf

import (
	"errors"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/rope"
)

// TestFlatWrapperRefused: a wrapper whose config class builds its text model from the text
// class's defaults when text_config is absent (Gemma3Config, Qwen3_5Config, ...) reads none of
// its top-level keys, while the text class loaded directly reads them all: a flat config that
// gives text keys is refused, naming both classes, and one that gives none reads as the defaults.
func TestFlatWrapperRefused(t *testing.T) {
	const keys = `"hidden_size": 2560, "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256, "rope_theta": 1000000`
	for typ, want := range map[string][2]string{
		"gemma3":                 {"Gemma3Config", "gemma3_text"},
		"gemma3n":                {"Gemma3nConfig", "gemma3n_text"},
		"gemma4":                 {"Gemma4Config", "gemma4_text"},
		"gemma4_unified":         {"Gemma4UnifiedConfig", "gemma4_unified_text"},
		"llama4":                 {"Llama4Config", "llama4_text"},
		"mistral3":               {"Mistral3Config", "mistral"},
		"qwen3_vl":               {"Qwen3VLConfig", "qwen3_vl_text"},
		"qwen3_vl_moe":           {"Qwen3VLMoeConfig", "qwen3_vl_moe_text"},
		"qwen3_5":                {"Qwen3_5Config", "qwen3_5_text"},
		"qwen3_5_moe":            {"Qwen3_5MoeConfig", "qwen3_5_moe_text"},
		"diffusion_gemma":        {"DiffusionGemmaConfig", "diffusion_gemma_text"},
		"qwen2_5_omni":           {"Qwen2_5OmniConfig", "qwen2_5_omni_text"},
		"qwen2_5_omni_thinker":   {"Qwen2_5OmniThinkerConfig", "qwen2_5_omni_text"},
		"qwen3_omni_moe":         {"Qwen3OmniMoeConfig", "qwen3_omni_moe_text"},
		"qwen3_omni_moe_thinker": {"Qwen3OmniMoeThinkerConfig", "qwen3_omni_moe_text"},
		"qwen4_exp":              {"Qwen4ExpConfig", "qwen4_exp_text"},
		"kimi_k25":               {"Kimi_K25Config", "deepseek_v3"},
		"minimax_m3_vl":          {"MiniMaxM3VLConfig", "minimax_m3_vl_text"},
	} {
		_, err := Parse([]byte(`{"model_type": "` + typ + `", ` + keys + `}`))
		if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), want[0]) ||
			!strings.Contains(err.Error(), "model_type "+want[1]) || !strings.Contains(err.Error(), "hidden_size") {
			t.Errorf("%s flat with text keys: %v: want a refusal naming %s, the keys and model_type %s", typ, err, want[0], want[1])
		}
		if _, err := Parse([]byte(`{"model_type": "` + typ + `", "text_config": {` + keys + `}}`)); err != nil &&
			strings.Contains(err.Error(), want[0]) {
			t.Errorf("%s nested: %v: the flat rule refused a nested config", typ, err)
		}
	}
	// Keys that are not the text model's leave the defaults HF takes.
	m := mustParse(t, `{"model_type": "gemma3", "image_token_index": 262144, "mm_tokens_per_image": 256}`)
	if m.Spec.HeadSize != 256 || m.Spec.Base != 1e6 {
		t.Errorf("gemma3 without text keys: head %d base %v, want Gemma3TextConfig's 256 and 1e6", m.Spec.HeadSize, m.Spec.Base)
	}
	// An Omni thinker without text_config builds the text model's defaults too.
	_, err := Parse([]byte(`{"model_type": "qwen3_omni_moe", "thinker_config": {"model_type": "qwen3_omni_moe_thinker", ` + keys + `}}`))
	if err == nil || !strings.Contains(err.Error(), "Qwen3OmniMoeThinkerConfig") {
		t.Errorf("thinker without text_config: %v", err)
	}
	// The text class's own model_type reads the flat keys.
	m = mustParse(t, `{"model_type": "qwen3_5_text", `+keys+`}`)
	if m.Spec.HeadSize != 256 || m.Spec.RotaryDim != 64 || m.Spec.Base != 1e6 {
		t.Errorf("qwen3_5_text flat: head %d rotary %d base %v", m.Spec.HeadSize, m.Spec.RotaryDim, m.Spec.Base)
	}
}

// TestHunYuanVLTopWins: HunYuanVLConfig.__post_init__ folds the top-level keys that are
// HunYuanVLTextConfig fields (and rope_scaling, rope_theta) into text_config, the top level's
// value winning, and HunYuanVLModel builds its language model from that text_config.
func TestHunYuanVLTopWins(t *testing.T) {
	m := mustParse(t, `{"model_type": "hunyuan_vl", "hidden_size": 2048, "num_attention_heads": 16, "rope_theta": 50000,
		"max_position_embeddings": 8192,
		"text_config": {"model_type": "hunyuan_vl_text", "hidden_size": 1024, "num_attention_heads": 16, "num_key_value_heads": 8,
		  "num_hidden_layers": 24, "max_position_embeddings": 131072, "rope_theta": 10000}}`)
	if m.Spec.HeadSize != 128 || m.Spec.Base != 50000 || m.Spec.MaxPositions != 8192 || m.NumKVHeads != 8 || m.NumLayers != 24 {
		t.Errorf("head %d base %v max %d kv %d layers %d: want 128, 50000, 8192 (the top level's) and 8, 24 (text_config's)",
			m.Spec.HeadSize, m.Spec.Base, m.Spec.MaxPositions, m.NumKVHeads, m.NumLayers)
	}
	if !hasNote(m, "HunYuanVLConfig") {
		t.Errorf("notes %q: want the fold named", m.Notes)
	}
	// A top-level rope_scaling is folded too, and wins over text_config's rope_parameters'
	// rope_theta only through the object it brings.
	m = mustParse(t, `{"model_type": "hunyuan_vl", "rope_scaling": {"rope_type": "linear", "factor": 2.0},
		"text_config": {"model_type": "hunyuan_vl_text", "hidden_size": 1024, "num_attention_heads": 16, "rope_theta": 10000}}`)
	if m.Spec.Scaling.Factor != 2 {
		t.Errorf("top-level rope_scaling: scaling %+v, want linear 2", m.Spec.Scaling)
	}
	// A top-level null folds too: head_dim None, hidden_size // heads.
	m = mustParse(t, `{"model_type": "hunyuan_vl", "head_dim": null,
		"text_config": {"model_type": "hunyuan_vl_text", "hidden_size": 1024, "head_dim": 128, "num_attention_heads": 32}}`)
	if m.Spec.HeadSize != 32 {
		t.Errorf("top-level head_dim null: head %d, want 1024 // 32", m.Spec.HeadSize)
	}
	// Other wrappers keep text_config's value.
	m = mustParse(t, `{"model_type": "qwen2_vl", "rope_theta": 50000,
		"text_config": {"model_type": "qwen2_vl_text", "hidden_size": 3584, "num_attention_heads": 28, "rope_theta": 1000000}}`)
	if m.Spec.Base != 1e6 {
		t.Errorf("qwen2_vl: base %v, want text_config's 1e6", m.Spec.Base)
	}
}

// TestRopeScalingNotRead: Gemma4TextConfig, Gemma4UnifiedTextConfig, DiffusionGemmaTextConfig and
// ZayaConfig override convert_rope_params_to_dict to return the kwargs untouched, so a legacy
// rope_scaling is never read: their rope_parameters (the config's, else the class default) rule.
func TestRopeScalingNotRead(t *testing.T) {
	for typ, class := range map[string]string{
		"gemma4_text": "Gemma4TextConfig", "gemma4_unified_text": "Gemma4UnifiedTextConfig",
		"diffusion_gemma_text": "DiffusionGemmaTextConfig", "zaya": "ZayaConfig", "mellum": "MellumConfig",
	} {
		m, err := Parse([]byte(`{"model_type": "` + typ + `", "rope_scaling": {"rope_type": "linear", "factor": 8.0}}`))
		if err != nil {
			t.Errorf("%s: %v", typ, err)
			continue
		}
		if m.Spec.Scaling.Factor == 8 || !hasNote(m, "rope_scaling ignored: "+class) {
			t.Errorf("%s: scaling %+v notes %q: want the class default, rope_scaling noted as ignored", typ, m.Spec.Scaling, m.Notes)
		}
	}
}

// TestTopLevelNotRead: every wrapper class hf knows builds its text model from text_config
// alone when the config nests one (Qwen2VLConfig and Qwen2_5_VLConfig pop the top-level text
// keys and drop them; the others leave them on the wrapper, which the text model never reads),
// so a key text_config lacks takes the text class's default, not the top level's, with a note.
// A wrapper hf does not know keeps the fallback, noted.
func TestTopLevelNotRead(t *testing.T) {
	for typ, class := range map[string]string{
		"qwen2_vl": "Qwen2VLConfig", "qwen2_5_vl": "Qwen2_5_VLConfig", "qwen3_vl": "Qwen3VLConfig",
		"qwen3_vl_moe": "Qwen3VLMoeConfig", "qwen3_5": "Qwen3_5Config", "qwen3_5_moe": "Qwen3_5MoeConfig",
		"gemma3": "Gemma3Config", "gemma3n": "Gemma3nConfig", "gemma4": "Gemma4Config",
		"gemma4_unified": "Gemma4UnifiedConfig", "diffusion_gemma": "DiffusionGemmaConfig", "llama4": "Llama4Config",
		"mistral3": "Mistral3Config", "glm4v": "Glm4vConfig", "glm4v_moe": "Glm4vMoeConfig",
		"ernie4_5_vl_moe": "Ernie4_5_VLMoeConfig", "glm_ocr": "GlmOcrConfig",
		"qwen2_5_omni_thinker": "Qwen2_5OmniThinkerConfig", "qwen3_omni_moe_thinker": "Qwen3OmniMoeThinkerConfig",
		"qwen4_exp": "Qwen4ExpConfig", "kimi_k25": "Kimi_K25Config", "minimax_m3_vl": "MiniMaxM3VLConfig",
	} {
		head := "128" // a head the family's default sections fit
		switch typ {
		case "qwen3_5", "qwen3_5_moe", "qwen4_exp":
			head = "256"
		case "glm_ocr":
			head = "64"
		}
		m, err := Parse([]byte(`{"model_type": "` + typ + `", "rope_theta": 12345, "max_position_embeddings": 777,
			"text_config": {"hidden_size": 4096, "num_attention_heads": 32, "head_dim": ` + head + `}}`))
		if err != nil {
			t.Errorf("%s: %v", typ, err)
			continue
		}
		if m.Spec.Base == 12345 || m.Spec.MaxPositions == 777 || !hasNote(m, "max_position_embeddings at the top level not read: "+class) {
			t.Errorf("%s: base %v max %d notes %q: want the text class's defaults, the top level noted as unread by %s",
				typ, m.Spec.Base, m.Spec.MaxPositions, m.Notes, class)
		}
	}
	// An old-style top-level rope_scaling beside a text_config without one: Qwen2VLConfig drops it.
	m := mustParse(t, `{"model_type": "qwen2_vl", "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
		"text_config": {"model_type": "qwen2_vl_text", "hidden_size": 3584, "num_attention_heads": 28, "rope_theta": 1e6}}`)
	if m.Spec.MRoPE != nil || !hasNote(m, "rope_scaling at the top level not read: Qwen2VLConfig") {
		t.Errorf("qwen2_vl top-level rope_scaling: mrope %v notes %q: want it unread, noted", m.Spec.MRoPE, m.Notes)
	}
	// A wrapper hf does not know: its class was not read, so the fallback stays.
	m = mustParse(t, `{"model_type": "some_vlm", "rope_theta": 12345,
		"text_config": {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32}}`)
	if m.Spec.Base != 12345 || !hasNote(m, "rope_theta read from the top level") {
		t.Errorf("unknown wrapper: base %v notes %q: want the top level's, noted", m.Spec.Base, m.Notes)
	}
}

// TestKimiK25Wrapper: Kimi_K25Config.__post_init__ (kimi_k25/configuration_kimi_k25.py,
// transformers decba1d2) builds text_config with CONFIG_MAPPING[its model_type, "deepseek_v3"
// when absent, kimi_k2 read as deepseek_v3](**text_config), or DeepseekV3Config() when the
// config has none, and Kimi_K25Model builds its language model from that text_config alone
// (AutoModel.from_config(config.text_config), modeling_kimi_k25.py).
func TestKimiK25Wrapper(t *testing.T) {
	const text = `"hidden_size": 7168, "num_attention_heads": 64, "qk_rope_head_dim": 64, "max_position_embeddings": 262144,
		"rope_theta": 50000, "rope_scaling": {"type": "yarn", "factor": 64, "original_max_position_embeddings": 4096, "mscale": 1, "mscale_all_dim": 1}`
	for _, inner := range []string{`"model_type": "kimi_k2", `, `"model_type": "deepseek_v3", `, ``} {
		m := mustParse(t, `{"model_type": "kimi_k25", "text_config": {`+inner+text+`}}`)
		if m.Spec.Style != rope.GPTJ || m.Spec.HeadSize != 64 || m.Spec.Base != 50000 || m.Spec.Scaling.Factor != 64 {
			t.Errorf("kimi_k25 with text_config {%s...}: %s head %d base %v scaling %+v, want DeepseekV3's MLA reading (gptj, 64, 50000, yarn 64)",
				inner, m.Spec.Style, m.Spec.HeadSize, m.Spec.Base, m.Spec.Scaling)
		}
	}
	// Without text_config, DeepseekV3Config's defaults: qk_rope_head_dim 64, 4096 positions.
	m := mustParse(t, `{"model_type": "kimi_k25", "vision_config": {"patch_size": 14}}`)
	if m.Spec.Style != rope.GPTJ || m.Spec.HeadSize != 64 || m.Spec.Base != 10000 || m.Spec.MaxPositions != 4096 {
		t.Errorf("kimi_k25 without text_config: %s head %d base %v max %d, want DeepseekV3Config's gptj, 64, 10000, 4096",
			m.Spec.Style, m.Spec.HeadSize, m.Spec.Base, m.Spec.MaxPositions)
	}
}
