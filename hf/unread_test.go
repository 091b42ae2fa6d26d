package hf

import (
	"slices"
	"testing"

	"github.com/rotary-go/rotary/internal/textdist"
)

// TestUnreadKeys: a rope-object key the variant does not read, and a near miss of a RoPE key,
// are reported with the closest known key; keys that are read, and keys far from any RoPE key,
// are not.
func TestUnreadKeys(t *testing.T) {
	for _, c := range []struct {
		name, config string
		want         []string
	}{
		{"misspelt original", `{"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 500000,
			"max_position_embeddings": 131072, "rope_scaling": {"rope_type": "yarn", "factor": 4, "orginal_max_position_embeddings": 32768}}`,
			[]string{"rope_scaling.orginal_max_position_embeddings: not read: no rope type has it; did you mean original_max_position_embeddings?"}},
		{"another variant's key", `{"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 500000,
			"rope_scaling": {"rope_type": "linear", "factor": 4, "low_freq_factor": 1}}`,
			[]string{"rope_scaling.low_freq_factor: not read: rope type linear does not use it"}},
		{"default reads no factor", `{"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
			"rope_parameters": {"rope_type": "default", "rope_theta": 500000, "factor": 8}}`,
			[]string{"rope_parameters.factor: not read: rope type default does not use it"}},
		{"misspelt top-level theta", `{"model_type": "qwen2", "hidden_size": 4096, "num_attention_heads": 32, "rope_thetta": 1000000}`,
			[]string{"rope_thetta: not read; did you mean rope_theta?"}},
		{"misspelt in text_config", `{"model_type": "qwen2_vl", "text_config": {"model_type": "qwen2_vl_text", "hidden_size": 3584,
			"num_attention_heads": 28, "rope_theta": 1000000, "partial_rotary_factr": 0.5}}`,
			[]string{"text_config.partial_rotary_factr: not read; did you mean partial_rotary_factor?"}},
		{"per-type entry", `{"model_type": "gemma3_text", "layer_types": ["sliding_attention", "full_attention"], "num_hidden_layers": 2,
			"rope_parameters": {"full_attention": {"rope_type": "linear", "factor": 8, "rope_theta": 1000000},
			"sliding_attention": {"rope_type": "default", "rope_theta": 10000, "beta_fastt": 3}}}`,
			[]string{"rope_parameters.sliding_attention.beta_fastt: not read: no rope type has it; did you mean beta_fast?"}},
		{"all read", `{"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 500000, "max_position_embeddings": 131072,
			"rope_scaling": {"rope_type": "llama3", "factor": 8, "low_freq_factor": 1, "high_freq_factor": 4, "original_max_position_embeddings": 8192},
			"vocab_size": 128256, "qk_nope_head_dim": 128, "v_head_dim": 128, "intermediate_size": 14336}`, nil},
		{"type and rope_type both", `{"model_type": "qwen2_vl", "hidden_size": 3584, "num_attention_heads": 28, "rope_theta": 1000000,
			"rope_scaling": {"type": "mrope", "rope_type": "default", "mrope_section": [16, 24, 24]}}`, nil},
	} {
		m, err := Parse([]byte(c.config))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got []string
		for _, u := range m.Unread {
			got = append(got, u.String())
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: unread %q, want %q", c.name, got, c.want)
		}
	}
}

// TestPresetsReadEveryKey: every embedded config is read whole (no warning on a real model).
func TestPresetsReadEveryKey(t *testing.T) {
	for _, name := range PresetNames() {
		m, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Unread) > 0 {
			t.Errorf("%s: unread %v", name, m.Unread)
		}
	}
}

func TestClosest(t *testing.T) {
	for _, c := range []struct{ key, want string }{
		{"rope_theat", "rope_theta"}, // swapped neighbours: one edit
		{"head_dims", "head_dim"},    // one insertion
		{"hidden_dim", ""},           // three edits from head_dim
		{"rope", ""},                 // too short to guess
		{"max_position_embedding", "max_position_embeddings"},
	} {
		if got := textdist.Closest(c.key, textRopeKeys); got != c.want {
			t.Errorf("closest(%q) = %q, want %q", c.key, got, c.want)
		}
	}
}
