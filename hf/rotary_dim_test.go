package hf

import "testing"

// TestRotaryDimByClass: which config classes read rotary_dim, per reading. transformers main
// (decba1d2) and v4.57 (59eba492) read it in GPTJConfig and CodeGenConfig only
// (modeling_gptj.py GPTJAttention.__init__, modeling_codegen.py CodeGenAttention.__init__:
// self.rotary_dim = config.rotary_dim); MiniMaxM3VLTextConfig declares one that its rotary
// embedding never reads, and every other class keeps a given one as an attribute nothing reads.
// vLLM's get_rope (rotary_embedding/__init__.py, 07b12f1b) sizes the rotary part by
// rope_parameters["partial_rotary_factor"] alone, and a model file reads rotary_dim only by
// turning it into that (models/gpt_j.py, models/minimax_m2.py); models/llama.py passes
// config.rope_parameters as it is. MiniMax's reading is RuleMiniMaxRotaryDim's; a model type
// outside the family table is read as a generic decoder, rotary_dim its rotary part.
func TestRotaryDimByClass(t *testing.T) {
	all := []Dialect{DialectReference, DialectHF, DialectHF457, DialectVLLM}
	const llama = `"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 10000`
	type want struct {
		rot int    // layer 0's rotary dim
		why string // a word of rotary_dim's warning; "" for none
	}
	for _, c := range []struct {
		name, cfg string
		dialects  []Dialect
		want      want
	}{
		{"llama", `{` + llama + `, "rotary_dim": 64}`, all, want{128, "LlamaConfig keeps it"}},
		{"qwen3", `{"model_type": "qwen3", "hidden_size": 4096, "num_attention_heads": 32, "head_dim": 128, "rope_theta": 1000000, "rotary_dim": 32}`,
			all, want{128, "Qwen3Config keeps it"}},
		{"stablelm", `{"model_type": "stablelm", "hidden_size": 2560, "num_attention_heads": 32, "rope_theta": 10000, "rotary_dim": 40}`,
			all, want{20, "GPTJConfig and CodeGenConfig"}},
		{"phi beside partial_rotary_factor", `{"model_type": "phi", "hidden_size": 2560, "num_attention_heads": 32, "rope_theta": 10000,
			"partial_rotary_factor": 0.4, "rotary_dim": 64}`, all, want{32, "models/gpt_j.py"}},
		{"gpt_neox beside rotary_pct", `{"model_type": "gpt_neox", "hidden_size": 4096, "num_attention_heads": 32, "rotary_pct": 0.25, "rotary_dim": 64}`,
			all, want{32, "GPTNeoXConfig keeps it"}},
		{"deepseek_v3", `{"model_type": "deepseek_v3", "hidden_size": 7168, "num_attention_heads": 128, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128,
			"rope_theta": 10000, "rotary_dim": 32}`, all, want{64, "DeepseekV3Config"}},
		{"llama per layer type", `{` + llama + `, "rotary_dim": 64, "num_hidden_layers": 2, "layer_types": ["sliding_attention", "full_attention"],
			"rope_parameters": {"sliding_attention": {"rope_type": "default", "rope_theta": 10000}, "full_attention": {"rope_type": "default", "rope_theta": 500000}}}`,
			[]Dialect{DialectReference, DialectHF, DialectVLLM}, want{128, "LlamaConfig keeps it"}},
		{"gptj", `{"model_type": "gptj", "n_embd": 4096, "n_head": 16, "rotary_dim": 64}`, all, want{64, ""}},
		{"codegen", `{"model_type": "codegen", "n_embd": 4096, "n_head": 16, "rotary_dim": 32}`, all, want{32, ""}},
		{"unknown type", `{"model_type": "other_lm", "hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": 2, "rope_theta": 10000, "rotary_dim": 64}`,
			all, want{64, ""}},
	} {
		for _, d := range c.dialects {
			m := parseAs(t, d, c.cfg)
			if s, err := m.Spec.ForLayer(0); err != nil || s.RotaryDim != c.want.rot {
				t.Errorf("%s, %s: layer 0: rotary dim %d, %v: want %d", c.name, d, s.RotaryDim, err, c.want.rot)
			}
			warned := false
			for _, u := range m.Unread {
				warned = warned || u.Path == "rotary_dim"
			}
			if warned != (c.want.why != "") || c.want.why != "" && !unreadWith(m, "rotary_dim", c.want.why) {
				t.Errorf("%s, %s: unread %v: want rotary_dim warned about %t (%q)", c.name, d, m.Unread, c.want.why != "", c.want.why)
			}
		}
	}
}

// TestRotaryDimMiniMaxM2Fraction: a partial_rotary_factor, top level or in rope_parameters, wins
// over MiniMax-M2's rotary_dim in every reading: vLLM's minimax_m2.py MiniMaxM2Attention.__init__
// (01d99586) sets rope_parameters["partial_rotary_factor"] = rotary_dim / head_dim only where it
// has none (transformers' convert_rope_params_to_dict has put a top-level one there), and
// transformers main's MiniMaxM2RotaryEmbedding (modeling_minimax_m2.py, decba1d2) reads the
// fraction alone. A rotary_dim that differs is then a warning; one that agrees is not.
func TestRotaryDimMiniMaxM2Fraction(t *testing.T) {
	const m2 = `"model_type": "minimax_m2", "hidden_size": 3072, "num_attention_heads": 48, "head_dim": 128, "rotary_dim": 64`
	for _, c := range []struct {
		name, cfg string
		rot       int
		warned    bool
	}{
		{"top level 1.0", `{` + m2 + `, "rope_theta": 5000000, "partial_rotary_factor": 1.0}`, 128, true},
		{"rope_parameters 0.25", `{` + m2 + `, "rope_parameters": {"rope_type": "default", "rope_theta": 5000000, "partial_rotary_factor": 0.25}}`, 32, true},
		{"rope_parameters 0.5, agreeing", `{` + m2 + `, "rope_parameters": {"rope_type": "default", "rope_theta": 5000000, "partial_rotary_factor": 0.5}}`, 64, false},
	} {
		for _, d := range []Dialect{DialectReference, DialectVLLM, DialectHF} {
			m := parseAs(t, d, c.cfg)
			if m.Spec.RotaryDim != c.rot {
				t.Errorf("%s, %s: rotary dim %d, want %d (the fraction's)", c.name, d, m.Spec.RotaryDim, c.rot)
			}
			// --as hf drops rotary_dim by its rule (minimax_rotary_dim "ignored").
			want := c.warned && d != DialectHF
			if got := unreadWith(m, "rotary_dim", "minimax_m2.py"); got != want {
				t.Errorf("%s, %s: unread %v: want rotary_dim warned as overridden by the fraction %t", c.name, d, m.Unread, want)
			}
		}
	}
}

// TestRotaryDimMiniMax: MiniMax's rotary_dim stays RuleMiniMaxRotaryDim's: the authors' code and
// vLLM's minimax_m2.py rotate it (reference, vllm), HF main's MiniMaxM2Config has none and
// rotates the whole head (hf); neither reading warns of it as unread.
func TestRotaryDimMiniMax(t *testing.T) {
	for _, c := range []struct {
		d   Dialect
		rot int
	}{{DialectReference, 64}, {DialectHF, 128}, {DialectVLLM, 64}} {
		m := presetAs(t, c.d, "minimax-m2")
		if m.Spec.RotaryDim != c.rot {
			t.Errorf("minimax-m2, %s: rotary dim %d: want %d", c.d, m.Spec.RotaryDim, c.rot)
		}
		for _, u := range m.Unread {
			if u.Path == "rotary_dim" {
				t.Errorf("minimax-m2, %s: %v: want rotary_dim read or dropped by its rule", c.d, u)
			}
		}
	}
}
