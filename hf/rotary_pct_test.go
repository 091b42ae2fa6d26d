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
		{"llama with rotary_dim", `{` + llama + `, "rotary_dim": 64, "rotary_pct": 0.25}`, DialectReference, 128, "LlamaConfig keeps it"},
		{"gptj with rotary_dim", `{"model_type": "gptj", "n_embd": 4096, "n_head": 16, "rotary_dim": 64, "rotary_pct": 0.5}`, DialectReference, 64, "rotary_dim is read"},
		{"llama alone", `{` + llama + `, "rotary_pct": 0.25}`, DialectReference, 128, "LlamaConfig keeps it"},
		{"llama alone, vllm", `{` + llama + `, "rotary_pct": 0.25}`, DialectVLLM, 32, ""},
		{"deepseek", `{"model_type": "deepseek_v3", "hidden_size": 7168, "num_attention_heads": 128, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "rotary_pct": 0.5}`,
			DialectReference, 64, "DeepseekV3Config"},
		{"gpt_neox", `{` + neox + `, "rotary_pct": 0.5}`, DialectReference, 64, ""},
		{"gpt_neox with rotary_dim", `{` + neox + `, "rotary_pct": 0.5, "rotary_dim": 32}`, DialectReference, 64, ""},
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

// TestRotaryPctByClass: which config classes read rotary_pct and rotary_emb_fraction, per
// reading. transformers main (decba1d2) and v4.57 (59eba492) read rotary_pct in GPTNeoXConfig
// and GPTNeoXJapaneseConfig only (StableLmConfig.__post_init__ only setdefaults
// partial_rotary_factor to 0.25) and rotary_emb_fraction nowhere. vLLM's patch_rope_parameters
// (transformers_utils/config.py, 0036026e) sets the config's partial_rotary_factor to
// getattr_iter(config, [partial_rotary_factor, rotary_pct, rotary_emb_fraction]), the first
// attribute the config object has (config/utils.py getattr_iter, 7a3bde4c): a class that sets
// partial_rotary_factor among its kwargs has that attribute whatever the file says, and
// GPTNeoXConfig pops rotary_pct into rope_parameters. A model type outside the family table is
// read as a generic decoder, rotary_pct its fraction.
func TestRotaryPctByClass(t *testing.T) {
	const stablelm = `"model_type": "stablelm", "hidden_size": 2560, "num_attention_heads": 32, "rope_theta": 10000`
	const llama = `"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 10000`
	const neox = `"model_type": "gpt_neox", "hidden_size": 4096, "num_attention_heads": 32`
	const other = `"model_type": "other_lm", "hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": 2, "rope_theta": 10000`
	type want struct {
		d        Dialect
		rot      int
		pct, emb string // a word of rotary_pct's and rotary_emb_fraction's warnings; "" for none
	}
	for _, c := range []struct {
		name, cfg string
		wants     []want
	}{
		{"stablelm rotary_pct", `{` + stablelm + `, "rotary_pct": 0.5}`, []want{
			{DialectReference, 20, "StableLmConfig", ""}, {DialectHF, 20, "StableLmConfig", ""},
			{DialectHF457, 20, "StableLmConfig", ""}, {DialectVLLM, 20, "getattr_iter", ""}}},
		{"persimmon rotary_pct", `{"model_type": "persimmon", "hidden_size": 4096, "num_attention_heads": 64, "rotary_pct": 0.25}`, []want{
			{DialectReference, 32, "PersimmonConfig", ""}, {DialectHF457, 32, "PersimmonConfig", ""}, {DialectVLLM, 32, "getattr_iter", ""}}},
		{"llama rotary_pct", `{` + llama + `, "rotary_pct": 0.25}`, []want{
			{DialectReference, 128, "LlamaConfig", ""}, {DialectHF457, 128, "LlamaConfig", ""}, {DialectVLLM, 32, "", ""}}},
		{"llama rotary_emb_fraction", `{` + llama + `, "rotary_emb_fraction": 0.5}`, []want{
			{DialectReference, 128, "", "patch_rope_parameters"}, {DialectHF, 128, "", "patch_rope_parameters"}, {DialectVLLM, 64, "", ""}}},
		{"llama both", `{` + llama + `, "rotary_pct": 0.25, "rotary_emb_fraction": 0.5}`, []want{
			{DialectReference, 128, "LlamaConfig", "patch_rope_parameters"}, {DialectVLLM, 32, "", "rotary_pct"}}},
		{"gpt_neox rotary_emb_fraction", `{` + neox + `, "rotary_pct": 0.5, "rotary_emb_fraction": 0.25}`, []want{
			{DialectReference, 64, "", "patch_rope_parameters"}, {DialectVLLM, 32, "rotary_emb_fraction", ""}}},
		{"unknown type", `{` + other + `, "rotary_pct": 0.5}`, []want{
			{DialectReference, 64, "", ""}, {DialectVLLM, 64, "", ""}}},
		{"unknown type rotary_emb_fraction", `{` + other + `, "rotary_emb_fraction": 0.5}`, []want{
			{DialectReference, 128, "", "patch_rope_parameters"}, {DialectVLLM, 64, "", ""}}},
	} {
		for _, w := range c.wants {
			m := parseAs(t, w.d, c.cfg)
			if m.Spec.RotaryDim != w.rot {
				t.Errorf("%s, %s: rotary dim %d: want %d", c.name, w.d, m.Spec.RotaryDim, w.rot)
			}
			for _, k := range []struct{ path, why string }{{"rotary_pct", w.pct}, {"rotary_emb_fraction", w.emb}} {
				warned := false
				for _, u := range m.Unread {
					warned = warned || u.Path == k.path
				}
				if warned != (k.why != "") || k.why != "" && !unreadWith(m, k.path, k.why) {
					t.Errorf("%s, %s: unread %v: want %s warned about %t (%q)", c.name, w.d, m.Unread, k.path, k.why != "", k.why)
				}
			}
		}
	}
}

// TestRopePctUnread: rope_pct, the rotary fraction of StableLM's original configs, is read by
// no transformers config class (main at decba1d2: StableLmConfig takes partial_rotary_factor,
// default 0.25), while vLLM's StablelmAttention.__init__ (models/stablelm.py, 4819ff71) takes it
// ahead of partial_rotary_factor. rotary does not model that reading, so a config that carries
// it is reported under every reading instead of being read silently otherwise than vLLM does.
func TestRopePctUnread(t *testing.T) {
	const stablelm = `"model_type": "stablelm", "hidden_size": 2560, "num_attention_heads": 32, "rope_theta": 10000`
	const llama = `"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 10000`
	for _, c := range []struct {
		name, cfg string
		rot       int
	}{
		{"stablelm", `{` + stablelm + `, "rope_pct": 0.5}`, 20},
		{"stablelm beside partial_rotary_factor", `{` + stablelm + `, "rope_pct": 0.5, "partial_rotary_factor": 0.25}`, 20},
		{"llama", `{` + llama + `, "rope_pct": 0.5}`, 128},
	} {
		for _, d := range []Dialect{DialectReference, DialectHF, DialectHF457, DialectVLLM} {
			m := parseAs(t, d, c.cfg)
			if s, err := m.Spec.ForLayer(0); err != nil || s.RotaryDim != c.rot {
				t.Errorf("%s, %s: rotary dim %d, %v; want %d", c.name, d, s.RotaryDim, err, c.rot)
			}
			if !unreadWith(m, "rope_pct", "StablelmAttention") || !unreadWith(m, "rope_pct", "no transformers config class") {
				t.Errorf("%s, %s: unread %v: want rope_pct reported, naming who reads it", c.name, d, m.Unread)
			}
		}
	}
	// Without rope_pct, nothing is said of it.
	for _, u := range parseAs(t, DialectVLLM, `{`+stablelm+`}`).Unread {
		if u.Path == "rope_pct" {
			t.Errorf("rope_pct reported without being given: %v", u)
		}
	}
}
