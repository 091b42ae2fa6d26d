package hf_test

import (
	"strings"
	"testing"

	"github.com/rotary-go/rotary/hf"
)

// TestWarnings: an assumed pairing first, then each failure of transformers main, then each
// key not read, one line each; none for a known family read whole, nor for a nil Model.
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
	// A config transformers main cannot run: its failure before the keys not read.
	m, err = hf.Parse([]byte(`{"model_type": "mellum", "num_hidden_layers": 2, "layer_types": ["sliding_attention", "full_attention"],
		"rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 500000.0}, "sliding_attention": {"rope_type": "default", "rope_thta": 1}}}`))
	if err != nil {
		t.Fatal(err)
	}
	w = m.Warnings()
	if len(m.HFFails) != 1 || len(m.Unread) != 1 || len(w) != 2 || w[0] != m.HFFails[0].String() || w[1] != m.Unread[0].String() ||
		!strings.Contains(w[0], "transformers main cannot run this config") {
		t.Errorf("mellum: Warnings %q: want the failure, then the unread key", w)
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
