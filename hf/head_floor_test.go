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
