package hf

import (
	"errors"
	"strings"
	"testing"
)

// TestNoRoPEFamilies2026: families without RoPE whose configs keep a rope_theta (or MLA keys)
// are refused as models without RoPE, not read as a generic decoder.
func TestNoRoPEFamilies2026(t *testing.T) {
	for name, cfg := range map[string]string{
		"kimi_linear": `{"model_type": "kimi_linear", "hidden_size": 2304, "num_attention_heads": 32, "rope_theta": 10000,
			"kv_lora_rank": 512, "qk_rope_head_dim": 64}`,
		"glm5_next": `{"model_type": "glm5_next", "text_config": {"model_type": "glm5_next_text", "hidden_size": 4096,
			"num_attention_heads": 64, "head_dim": 0, "qk_rope_head_dim": 0, "rope_theta": 10000}}`,
		"glm5_next_text without head_dim": `{"model_type": "glm5_next_text", "hidden_size": 4096, "num_attention_heads": 64, "rope_theta": 10000}`,
	} {
		if _, err := Parse([]byte(cfg)); !errors.Is(err, ErrNoRoPE) {
			t.Errorf("%s: %v, want ErrNoRoPE", name, err)
		}
	}
}

// TestUnrepresentableFamilies: families whose RoPE rope.Spec cannot describe are refused with
// the reason, not read as a generic NeoX decoder.
func TestUnrepresentableFamilies(t *testing.T) {
	for _, c := range []struct{ modelType, why string }{
		{"nanochat", "-θ"},
		{"deepseek_v41", "compress_ratios"},
		{"k2_horizon", "rope_head_dim"},
		{"bailing_hybrid", "pairing"},
		{"cohere2_moe", "prefix"},
	} {
		cfg := `{"model_type": "` + c.modelType + `", "hidden_size": 2048, "num_attention_heads": 16, "rope_theta": 10000}`
		_, err := Parse([]byte(cfg))
		if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), c.why) || !strings.Contains(err.Error(), "not supported") {
			t.Errorf("%s: %v, want a refusal naming %q", c.modelType, err, c.why)
		}
	}
	// Nested under a composite config too.
	_, err := Parse([]byte(`{"model_type": "deepseek_v41", "text_config": {"model_type": "deepseek_v41_text", "hidden_size": 5120,
		"num_attention_heads": 64, "rope_theta": 10000}}`))
	if err == nil || !strings.Contains(err.Error(), "compress_ratios") {
		t.Errorf("nested deepseek_v41: %v", err)
	}
}
