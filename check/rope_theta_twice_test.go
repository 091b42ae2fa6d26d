package check_test

import (
	"strings"
	"testing"

	"github.com/rotary-go/rotary/check"
)

// TestRopeThetaTwice: a config whose rope_scaling and top level give different rope_theta values
// gets an unread-key warning that says the readers disagree and to keep one value, not the
// misspelt-key advice.
func TestRopeThetaTwice(t *testing.T) {
	fs := check.Config([]byte(`{"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 250000,
		"rope_scaling": {"rope_type": "linear", "factor": 2, "rope_theta": 500000}}`), check.Launch{})
	for _, f := range fs {
		if f.Code == "unread-key" && strings.HasPrefix(f.What, "rope_theta: not read: rope_scaling.rope_theta 500000") {
			if !strings.Contains(f.Fix, "keep one value") {
				t.Errorf("fix %q: want keep one value", f.Fix)
			}
			return
		}
	}
	t.Errorf("findings %v: want an unread-key warning on rope_theta", fs)
}

// TestRopePctReported: a StableLM config's rope_pct, which no transformers class reads and
// vLLM's stablelm.py takes ahead of partial_rotary_factor, is an unread-key warning that says
// who reads it, in words that fit a key given once.
func TestRopePctReported(t *testing.T) {
	fs := check.Config([]byte(`{"model_type": "stablelm", "hidden_size": 2560, "num_attention_heads": 32, "rope_theta": 10000, "rope_pct": 0.5}`), check.Launch{})
	for _, f := range fs {
		if f.Code == "unread-key" && strings.HasPrefix(f.What, "rope_pct: not read") {
			if !strings.Contains(f.What, "StablelmAttention") || strings.Contains(f.Why, "twice") {
				t.Errorf("finding %+v: want vLLM's reader named, and no word of a key given twice", f)
			}
			return
		}
	}
	t.Errorf("findings %v: want an unread-key warning on rope_pct", fs)
}
