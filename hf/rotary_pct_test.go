package hf

import (
	"fmt"
	"testing"
)

// TestRotaryPctUnread: transformers main (decba1d2) reads rotary_pct in two config classes
// only, GPTNeoXConfig and GPTNeoXJapaneseConfig (configuration_gpt_neox.py,
// configuration_gpt_neox_japanese.py: convert_rope_params_to_dict setdefaults
// rope_parameters["partial_rotary_factor"] to kwargs.pop("rotary_pct", …)); every other class
// keeps it as an attribute nothing reads, and vLLM's patch_rope_parameters reads it as the
// config's partial_rotary_factor, after that key. Where the reading does not take it, it is
// reported unread with the reason.
func TestRotaryPctUnread(t *testing.T) {
	zaya := func(top string) string {
		return fmt.Sprintf(`{"model_type": "zaya", "num_hidden_layers": 2, "sliding_window": 4096, "layer_types": ["hybrid", "hybrid_sliding"]%s,
			"rope_parameters": {"hybrid": {"rope_type": "linear", "factor": 2, "rope_theta": 5000000.0, "partial_rotary_factor": 0.5},
				"hybrid_sliding": {"rope_type": "linear", "factor": 2, "rope_theta": 10000.0, "partial_rotary_factor": 0.5}}}`, top)
	}
	gemma4 := `{"model_type": "gemma4_text", "hidden_size": 2304, "num_attention_heads": 8, "head_dim": 256, "global_head_dim": 512, "num_hidden_layers": 2,
		"layer_types": ["sliding_attention", "full_attention"], "rotary_pct": 0.5,
		"rope_parameters": {"sliding_attention": {"rope_type": "default", "rope_theta": 10000}, "full_attention": {"rope_type": "default", "rope_theta": 1000000}}}`
	const llama = `"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 10000`
	const neox = `"model_type": "gpt_neox", "hidden_size": 4096, "num_attention_heads": 32`
	for _, c := range []struct {
		name, cfg string
		d         Dialect
		rot       int    // layer 0's rotary dim
		why       string // a word of rotary_pct's warning; "" for none
	}{
		{"zaya, reference", zaya(`, "rotary_pct": 0.25`), DialectReference, 64, "GPTNeoXConfig"},
		{"zaya, hf", zaya(`, "rotary_pct": 0.25`), DialectHF, 64, "patch_rope_parameters"},
		{"zaya, vllm", zaya(`, "rotary_pct": 0.25`), DialectVLLM, 32, ""},
		{"zaya beside partial_rotary_factor, vllm", zaya(`, "partial_rotary_factor": 0.5, "rotary_pct": 0.25`), DialectVLLM, 64, "partial_rotary_factor"},
		{"gemma 4 default entries", gemma4, DialectReference, 256, "Gemma4TextConfig"},
		{"llama beside partial_rotary_factor", `{` + llama + `, "partial_rotary_factor": 0.5, "rotary_pct": 0.25}`, DialectReference, 64, "partial_rotary_factor"},
		{"llama with rotary_dim", `{` + llama + `, "rotary_dim": 64, "rotary_pct": 0.25}`, DialectReference, 64, "rotary_dim"},
		{"llama alone", `{` + llama + `, "rotary_pct": 0.25}`, DialectReference, 32, ""},
		{"deepseek", `{"model_type": "deepseek_v3", "hidden_size": 7168, "num_attention_heads": 128, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "rotary_pct": 0.5}`,
			DialectReference, 64, "DeepseekV3Config"},
		{"gpt_neox", `{` + neox + `, "rotary_pct": 0.5}`, DialectReference, 64, ""},
		{"gpt_neox with rotary_dim", `{` + neox + `, "rotary_pct": 0.5, "rotary_dim": 32}`, DialectReference, 32, "GPTNeoXConfig reads"},
	} {
		m := parseAs(t, c.d, c.cfg)
		if s, err := m.Spec.ForLayer(0); err != nil || s.RotaryDim != c.rot {
			t.Errorf("%s: layer 0: %v, %v: want rotary dim %d", c.name, s.RotaryDim, err, c.rot)
		}
		warned := false
		for _, u := range m.Unread {
			warned = warned || u.Path == "rotary_pct"
		}
		if warned != (c.why != "") || c.why != "" && !unreadWith(m, "rotary_pct", c.why) {
			t.Errorf("%s: unread %v: want rotary_pct warned about %t (%q)", c.name, m.Unread, c.why != "", c.why)
		}
	}
}
