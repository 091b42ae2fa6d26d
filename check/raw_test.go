package check_test

import (
	"strings"
	"testing"

	"github.com/rotary-go/rotary/check"
)

// TestRawReadsAsHF: the checks of a config read its keys as hf does (hf.ReadRaw), not by
// simpler rules of their own, which reported on keys hf does not read.
func TestRawReadsAsHF(t *testing.T) {
	t.Run("chatglm kv_channels", func(t *testing.T) {
		// hf refuses the factor; the head size that explains it is kv_channels (64), not
		// hidden_size / heads (128).
		fs := check.Config([]byte(`{"model_type": "chatglm", "hidden_size": 4096, "kv_channels": 64,
			"num_attention_heads": 32, "partial_rotary_factor": 1.5, "seq_length": 8192}`), check.Launch{})
		if len(fs) != 1 || fs[0].Code != "rotary-dim" || fs[0].What != "rotary dim 96 is larger than head dim 64" {
			t.Errorf("findings %s %v, want one rotary-dim of 96 past 64", codes(fs), fs)
		}
	})
	t.Run("rope_scaling over rope_parameters", func(t *testing.T) {
		// hf derives the sections from the rope object transformers keeps (rope_scaling or
		// rope_parameters): a non-empty rope_scaling, so the unread rope_parameters' sections
		// are not the model's.
		fs := check.Config([]byte(`{"model_type": "qwen2_vl", "hidden_size": 3584, "num_attention_heads": 28,
			"num_key_value_heads": 4, "rope_theta": 1000000, "max_position_embeddings": 32768,
			"rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
			"rope_parameters": {"rope_type": "default", "mrope_section": [16, 24, 25]}}`), check.Launch{})
		for _, f := range fs {
			if f.Code == "mrope-sections" {
				t.Errorf("finding on the unread rope_parameters: %v", f)
			}
		}
		fs = check.Config([]byte(`{"model_type": "qwen2_vl", "hidden_size": 3584, "num_attention_heads": 28,
			"rope_parameters": {"rope_type": "default", "mrope_section": [16, 24, 25]}}`), check.Launch{})
		if len(fs) != 1 || fs[0].Code != "mrope-sections" {
			t.Errorf("rope_parameters' own sections: %s, want mrope-sections", codes(fs))
		}
	})
	t.Run("a number past float64", func(t *testing.T) {
		// The config is a JSON object; the error is the key's, not "not a JSON object".
		fs := check.Config([]byte(`{"model_type": "llama", "rope_theta": 1e400}`), check.Launch{})
		if len(fs) != 1 || fs[0].Code != "config" || !strings.Contains(fs[0].What, "rope_theta") {
			t.Errorf("findings %s %v, want one config error naming rope_theta", codes(fs), fs)
		}
	})
}
