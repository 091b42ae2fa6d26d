package hf_test

import (
	"strings"
	"testing"

	"github.com/rotary-go/rotary/hf"
)

// TestWarnings: an assumed pairing first, then each key not read, one line each; none for a
// known family read whole, nor for a nil Model.
func TestWarnings(t *testing.T) {
	m, err := hf.Parse([]byte(`{"model_type": "acme_lm", "hidden_size": 2048, "num_attention_heads": 16,
		"rope_theta": 500000, "rope_scalling": {"type": "linear"}}`))
	if err != nil {
		t.Fatal(err)
	}
	w := m.Warnings()
	if len(w) != 1+len(m.Unread) || len(m.Unread) == 0 || w[0] != m.Assumption() || !strings.Contains(w[0], "acme_lm") {
		t.Fatalf("Warnings %q: want the assumption, then the %d unread keys", w, len(m.Unread))
	}
	for i, u := range m.Unread {
		if w[1+i] != u.String() {
			t.Errorf("warning %d: %q, want %q", 1+i, w[1+i], u)
		}
	}
	llama, err := hf.Preset("llama-3.1-8b")
	if err != nil {
		t.Fatal(err)
	}
	var nilModel *hf.Model
	if w := llama.Warnings(); w != nil {
		t.Errorf("llama-3.1-8b: warnings %q", w)
	}
	if w := nilModel.Warnings(); w != nil {
		t.Errorf("nil Model: warnings %q", w)
	}
}
