package hf

import (
	"strings"
	"testing"
)

// TestHeadFloor: without head_dim, a hidden size the heads do not divide gives the floor where
// transformers' attention takes it unchecked (Qwen2Attention), with a note, and stays refused
// where the config class refuses it (LlamaConfig.validate_architecture).
func TestHeadFloor(t *testing.T) {
	const rest = `"hidden_size": 4100, "num_attention_heads": 32, "num_key_value_heads": 8, "rope_theta": 1000000`
	m, err := Parse([]byte(`{"model_type": "qwen2", ` + rest + `}`))
	if err != nil {
		t.Fatalf("qwen2: %v", err)
	}
	if m.Spec.HeadSize != 128 || m.Spec.RotaryDim != 128 || !strings.Contains(strings.Join(m.Notes, "\n"), "4100 // 32 heads = 128") {
		t.Errorf("qwen2: head %d rotary %d notes %q: want 128, 128 and the floor's note", m.Spec.HeadSize, m.Spec.RotaryDim, m.Notes)
	}
	if _, err := Parse([]byte(`{"model_type": "llama", ` + rest + `}`)); err == nil || !strings.Contains(err.Error(), "not divisible") {
		t.Errorf("llama: %v: want the divisibility refusal", err)
	}
}

// TestHeadsDivideHidden: the config classes whose validate_architecture checks hidden_size %
// num_attention_heads refuse a config that fails it even when head_dim gives the head size, and
// hf names the class; the others build the model from head_dim.
func TestHeadsDivideHidden(t *testing.T) {
	const keys = `"hidden_size": 4100, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128, "qk_rope_head_dim": 64`
	for typ, class := range map[string]string{
		"llama": "LlamaConfig", "deepseek_v2": "DeepseekV2Config", "gpt_neox": "GPTNeoXConfig", "gemma2": "Gemma2Config",
		"gemma3_text": "Gemma3TextConfig", "gemma3n_text": "Gemma3nTextConfig",
	} {
		_, err := Parse([]byte(`{"model_type": "` + typ + `", ` + keys + `}`))
		if err == nil || !strings.Contains(err.Error(), class+".validate_architecture") || !strings.Contains(err.Error(), "4100") {
			t.Errorf("%s: %v: want the refusal naming %s.validate_architecture", typ, err, class)
		}
	}
	// Nested under its wrapper, the text class's rule holds.
	_, err := Parse([]byte(`{"model_type": "gemma3", "text_config": {"model_type": "gemma3_text", ` + keys + `}}`))
	if err == nil || !strings.Contains(err.Error(), "Gemma3TextConfig.validate_architecture") {
		t.Errorf("gemma3 nested: %v", err)
	}
	// The class default hidden_size counts: LlamaConfig's 4096 over 48 heads.
	_, err = Parse([]byte(`{"model_type": "llama", "num_attention_heads": 48, "head_dim": 128}`))
	if err == nil || !strings.Contains(err.Error(), "LlamaConfig.validate_architecture") {
		t.Errorf("llama default hidden_size: %v", err)
	}
	for _, typ := range []string{"qwen2", "mistral", "qwen3"} {
		m, err := Parse([]byte(`{"model_type": "` + typ + `", ` + keys + `}`))
		if err != nil || m.Spec.HeadSize != 128 {
			t.Errorf("%s: %v: want head_dim 128 taken", typ, err)
		}
	}
}
