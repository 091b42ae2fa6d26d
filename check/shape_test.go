package check_test

import (
	"testing"

	"github.com/rotary-go/rotary/check"
)

// TestChecksUseHFShape: the rope-object checks measure sections and factor lists against the
// head size and rotary dim hf derives (config-class defaults, family rules), not a simpler
// guess of their own. Qwen3VLTextConfig's head_dim is 128 whatever hidden_size / heads is.
func TestChecksUseHFShape(t *testing.T) {
	cfg := []byte(`{"model_type": "qwen3_vl_text", "hidden_size": 5120, "num_attention_heads": 64, "rope_theta": 5000000,
		"rope_scaling": {"rope_type": "default", "mrope_section": [24, 20, 20], "mrope_interleaved": true}}`)
	if fs := check.Config(cfg, check.Launch{}); countCode(fs, "mrope-sections") != 0 || check.HasErrors(fs) {
		t.Errorf("a config hf reads with head 128: findings %s", codes(fs))
	}
	// The same sections against a head hf derives as 80 wide are wrong.
	bad := []byte(`{"model_type": "qwen3_vl_text", "hidden_size": 5120, "num_attention_heads": 64, "head_dim": 80, "rope_theta": 5000000,
		"rope_scaling": {"rope_type": "default", "mrope_section": [24, 20, 20], "mrope_interleaved": true}}`)
	if fs := check.Config(bad, check.Launch{}); countCode(fs, "mrope-sections") != 1 {
		t.Errorf("head_dim 80: findings %s, want one mrope-sections", codes(fs))
	}
}
