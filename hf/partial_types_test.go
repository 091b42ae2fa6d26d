package hf

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestPartialRotaryPerLayerType: the rotary fraction of each entry of a rope object keyed by
// layer type, given a config-level partial_rotary_factor too, as transformers main (decba1d2)
// builds it:
//
//   - ZayaConfig, Gemma4TextConfig (convert_rope_params_to_dict returns the kwargs) and
//     Gemma3TextConfig, Gemma3nTextConfig, Olmo3Config (theirs fill the entries' rope_theta,
//     then standardize_rope_params runs while the attribute is still unset) never write the
//     config's partial_rotary_factor into the entries: PreTrainedConfig.__post_init__
//     (configuration_utils.py) setattr()s it afterwards.
//   - ZayaRotaryEmbedding.compute_default_rope_parameters (modeling_zaya.py) reads
//     rope_parameters[layer_type].get("partial_rotary_factor", 1.0): each default entry its own,
//     the whole head without one.
//   - A scaled entry's ROPE_INIT_FUNCTIONS function calls standardize_rope_params
//     (modeling_rope_utils.py), which writes the attribute into every entry when every key of
//     rope_parameters is a layer type of layer_types ("Case 2"), and into no entry otherwise.
//   - The rotary embedding builds its types in list(set(layer_types)) order, which varies with
//     PYTHONHASHSEED: a default entry built after a scaled one reads the attribute, one built
//     before it reads its own, and _init_weights, which rebuilds every type after the write,
//     then copies a different-sized inv_freq into its buffer. HF main's result is undefined; the
//     reading takes the attribute (the only order in which HF main loads) and warns.
//
// vLLM's patch_rope_parameters (transformers_utils/config.py, 0036026e) sets the attribute and
// calls the same standardize_rope_params before any model is built: the attribute for every
// entry in Case 2, each entry's own otherwise.
func TestPartialRotaryPerLayerType(t *testing.T) {
	zaya := func(types, top, hybrid, sliding string) string {
		return fmt.Sprintf(`{"model_type": "zaya", "num_hidden_layers": 2, "sliding_window": 4096, "layer_types": [%s]%s,
			"rope_parameters": {"hybrid": {"rope_theta": 5000000.0, %s}, "hybrid_sliding": {"rope_theta": 10000.0, %s}}}`, types, top, hybrid, sliding)
	}
	const both, allHybrid = `"hybrid", "hybrid_sliding"`, `"hybrid", "hybrid"`
	gemma3 := func(types, sliding string) string {
		return fmt.Sprintf(`{"model_type": "gemma3_text", "hidden_size": 2048, "num_attention_heads": 8, "head_dim": 256, "num_hidden_layers": 2,
			"layer_types": [%s], "partial_rotary_factor": 0.25,
			"rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 1000000}, "sliding_attention": {%s, "rope_theta": 10000}}}`, types, sliding)
	}
	const linear = `"rope_type": "linear", "factor": 2`
	for _, c := range []struct {
		name, cfg string
		hf, vllm  []int  // the layers' rotary dims: the reference and --as hf, and --as vllm
		unread    string // a warning the reference and --as hf give: path, then a word of its why
		why       string
	}{
		{"zaya default entries", zaya(both, `, "partial_rotary_factor": 0.75`, `"rope_type": "default", "partial_rotary_factor": 0.5`, `"rope_type": "default", "partial_rotary_factor": 0.25`),
			[]int{64, 32}, []int{96, 96}, "partial_rotary_factor", "own"},
		{"zaya entry without a factor", zaya(both, `, "partial_rotary_factor": 0.75`, `"rope_type": "default"`, `"rope_type": "default", "partial_rotary_factor": 0.25`),
			[]int{128, 32}, []int{96, 96}, "partial_rotary_factor", "own"},
		{"zaya no config-level factor", zaya(both, ``, `"rope_type": "linear", "factor": 2, "partial_rotary_factor": 0.5`, `"rope_type": "default", "partial_rotary_factor": 0.25`),
			[]int{64, 32}, []int{64, 32}, "", ""},
		{"zaya scaled and default: set order", zaya(both, `, "partial_rotary_factor": 0.75`, `"rope_type": "linear", "factor": 2, "partial_rotary_factor": 0.5`, `"rope_type": "default", "partial_rotary_factor": 0.25`),
			[]int{96, 96}, []int{96, 96}, "rope_parameters.sliding_attention.partial_rotary_factor", "undefined"},
		{"zaya scaled and default, same dims", zaya(both, `, "partial_rotary_factor": 0.5`, `"rope_type": "linear", "factor": 2, "partial_rotary_factor": 0.25`, `"rope_type": "default", "partial_rotary_factor": 0.5`),
			[]int{64, 64}, []int{64, 64}, "", ""},
		{"zaya entry of no layer type", zaya(allHybrid, `, "partial_rotary_factor": 0.75`, `"rope_type": "linear", "factor": 2, "partial_rotary_factor": 0.5`, `"rope_type": "default", "partial_rotary_factor": 0.25`),
			[]int{64, 64}, []int{64, 64}, "partial_rotary_factor", "layer_types"},
		{"gemma3 scaled sliding", gemma3(`"sliding_attention", "full_attention"`, linear+`, "partial_rotary_factor": 0.5`),
			[]int{64, 256}, []int{64, 64}, "rope_parameters.sliding_attention.partial_rotary_factor", "is taken"},
		{"gemma3 without full layers", gemma3(`"sliding_attention", "sliding_attention"`, linear+`, "partial_rotary_factor": 0.5`),
			[]int{128, 128}, []int{128, 128}, "partial_rotary_factor", "layer_types"},
	} {
		for _, d := range []Dialect{DialectReference, DialectHF, DialectVLLM} {
			m, err := ParseOptions{Dialect: d}.Parse([]byte(c.cfg))
			if err != nil {
				t.Errorf("%s, %s: %v", c.name, d, err)
				continue
			}
			want := c.hf
			if d == DialectVLLM {
				want = c.vllm
			}
			var got []int
			for l := range want {
				s, err := m.Spec.ForLayer(l)
				if err != nil {
					t.Fatalf("%s, %s: ForLayer(%d): %v", c.name, d, l, err)
				}
				got = append(got, s.RotaryDim)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s, %s: rotary dims %v, want %v (unread %v)", c.name, d, got, want, m.Unread)
			}
			if d != DialectVLLM && c.unread != "" && !unreadWith(m, c.unread, c.why) {
				t.Errorf("%s, %s: unread %v: want %s warned about (%q)", c.name, d, m.Unread, c.unread, c.why)
			}
			for _, u := range m.Unread {
				if strings.Contains(u.Why, "undefined") && c.why != "undefined" {
					t.Errorf("%s, %s: %s: no ambiguity here", c.name, d, u)
				}
				if strings.Contains(u.String(), "rope type default does not use it") && strings.HasSuffix(u.Path, "partial_rotary_factor") {
					t.Errorf("%s, %s: %s: the entry's fraction is read", c.name, d, u)
				}
			}
		}
	}
}

// TestPartialRotaryProportionalPerType: Gemma 4's proportional full_attention entry, beside a
// config-level partial_rotary_factor. _compute_proportional_rope_parameters
// (modeling_rope_utils.py, decba1d2) calls standardize_rope_params, which writes the config's
// attribute into the entries only when every key of rope_parameters is a value of layer_types;
// otherwise the entry keeps its own 0.25 (rope_angles = int(0.25 · 512 // 2) = 64).
func TestPartialRotaryProportionalPerType(t *testing.T) {
	cfg := func(types string) string {
		return `{"model_type": "gemma4_text", "hidden_size": 5376, "num_attention_heads": 32, "num_key_value_heads": 16, "head_dim": 256,
			"global_head_dim": 512, "num_hidden_layers": 2, "sliding_window": 1024, "partial_rotary_factor": 0.5, "layer_types": [` + types + `],
			"rope_parameters": {"full_attention": {"partial_rotary_factor": 0.25, "rope_theta": 1000000.0, "rope_type": "proportional"},
				"sliding_attention": {"rope_theta": 10000.0, "rope_type": "default"}}}`
	}
	for _, c := range []struct {
		types  string
		pairs  int
		unread string
	}{
		{`"sliding_attention", "full_attention"`, 128, "rope_parameters.full_attention.partial_rotary_factor"},
		{`"full_attention", "full_attention"`, 64, "partial_rotary_factor"},
	} {
		for _, d := range []Dialect{DialectReference, DialectHF, DialectVLLM} {
			m := parseAs(t, d, cfg(c.types))
			s, err := m.Spec.ForLayer(1)
			if err != nil {
				t.Fatal(err)
			}
			if s.Scaling.RotatedPairs != c.pairs || !unreadWith(m, c.unread, "") {
				t.Errorf("%s, %s: full layer's rotated pairs %d, unread %v: want %d and %s warned about", c.types, d, s.Scaling.RotatedPairs, m.Unread, c.pairs, c.unread)
			}
		}
	}
}

// TestPartialRotaryDeepSeekV4Entries: DeepSeek-V4's rope object is keyed by rope-type labels
// (main, compress), and its partial_rotary_factor sizes the rope slice that is the spec's head
// (deepseek_v4.go): no entry's fraction is read, and the config's key is not reported unread.
func TestPartialRotaryDeepSeekV4Entries(t *testing.T) {
	m := mustParse(t, `{"model_type": "deepseek_v4", "hidden_size": 4096, "num_attention_heads": 64, "head_dim": 512, "num_hidden_layers": 3,
		"partial_rotary_factor": 0.125, "layer_types": ["sliding_attention", "compressed_sparse_attention", "heavily_compressed_attention"],
		"rope_parameters": {"main": {"rope_type": "default", "rope_theta": 10000, "partial_rotary_factor": 0.125},
			"compress": {"rope_type": "yarn", "factor": 16, "original_max_position_embeddings": 65536, "rope_theta": 160000, "partial_rotary_factor": 0.125}}}`)
	for l := range 3 {
		if s, err := m.Spec.ForLayer(l); err != nil || s.RotaryDim != 64 {
			t.Errorf("layer %d: %v, %v: want the whole 64-wide rope slice", l, s, err)
		}
	}
	for _, u := range m.Unread {
		if strings.HasSuffix(u.Path, "partial_rotary_factor") {
			t.Errorf("%s: the key sizes the rope slice", u)
		}
	}
}

// TestPartialRotaryDiffusionGemmaDefault: DiffusionGemmaTextRotaryEmbedding.
// compute_default_rope_parameters (modeling_diffusion_gemma.py, transformers decba1d2) sizes a
// rope type default entry's inv_freq by int(head_dim · rope_parameters[layer_type].get(
// "partial_rotary_factor", 1.0)), unlike Gemma 4's, while its apply_rotary_pos_emb multiplies
// cos/sin into the whole head: a fraction whose table is not the head's fails (shape mismatch),
// and one of head_dim - 1 dims rotates the whole head with frequencies over head_dim - 1. The
// whole head rotates, as the attention applies it: the first is a failure of transformers main
// (Model.HFFails), the second a key not read. In Case 2 a scaled entry's init writes the
// config's fraction into the default entry too.
func TestPartialRotaryDiffusionGemmaDefault(t *testing.T) {
	cfg := func(model, top, sliding, full string) string {
		return fmt.Sprintf(`{"model_type": %q, "hidden_size": 2304, "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256,
			"global_head_dim": 512, "num_hidden_layers": 2, "layer_types": ["sliding_attention", "full_attention"]%s,
			"rope_parameters": {"sliding_attention": {"rope_type": "default", "rope_theta": 10000%s}, "full_attention": {"rope_theta": 1000000, %s}}}`, model, top, sliding, full)
	}
	const dg, proportional = "diffusion_gemma_text", `"rope_type": "proportional", "partial_rotary_factor": 0.25`
	const sliding = "rope_parameters.sliding_attention.partial_rotary_factor"
	for _, c := range []struct {
		name, cfg string
		rot       [2]int // the layers' rotary dims
		path, why string // the warning: path, and a word of its why ("" for none on path)
		fails     bool   // the warning is a failure of transformers main, not a key unread
	}{
		{"sliding 0.5", cfg(dg, ``, `, "partial_rotary_factor": 0.5`, proportional), [2]int{256, 512}, sliding, "DiffusionGemmaTextRotaryEmbedding", true},
		{"sliding 0.5 fails", cfg(dg, ``, `, "partial_rotary_factor": 0.5`, proportional), [2]int{256, 512}, sliding, "cannot run", true},
		{"sliding 1", cfg(dg, ``, `, "partial_rotary_factor": 1.0`, proportional), [2]int{256, 512}, sliding, "", false},
		{"sliding head_dim - 1", cfg(dg, ``, `, "partial_rotary_factor": 0.998`, proportional), [2]int{256, 512}, sliding, "255", false},
		{"full default 0.5", cfg(dg, ``, ``, `"rope_type": "default", "partial_rotary_factor": 0.5`), [2]int{256, 512},
			"rope_parameters.full_attention.partial_rotary_factor", "cannot run", true},
		{"config's 0.5 written by the proportional init", cfg(dg, `, "partial_rotary_factor": 0.5`, ``, proportional), [2]int{256, 512},
			"partial_rotary_factor", "rope_parameters.sliding_attention", true},
		{"config's 0.5, no entry written", cfg(dg, `, "partial_rotary_factor": 0.5`, ``, `"rope_type": "default"`), [2]int{256, 512}, "partial_rotary_factor", "", false},
		{"gemma 4 sliding 0.5", cfg("gemma4_text", ``, `, "partial_rotary_factor": 0.5`, proportional), [2]int{256, 512}, sliding, "", false},
	} {
		for _, d := range []Dialect{DialectReference, DialectHF} {
			m := parseAs(t, d, c.cfg)
			for l, want := range c.rot {
				if s, err := m.Spec.ForLayer(l); err != nil || s.RotaryDim != want {
					t.Errorf("%s, %s: layer %d: %v, %v: want rotary dim %d", c.name, d, l, s.RotaryDim, err, want)
				}
			}
			unread, failed := c.why != "" && unreadWith(m, c.path, c.why), c.why != "" && failWith(m, c.path, c.why)
			if c.why == "" {
				unread = slices.ContainsFunc(m.Unread, func(u UnreadKey) bool {
					return u.Path == c.path && strings.Contains(u.Why, "DiffusionGemmaTextRotaryEmbedding")
				})
				failed = failWith(m, c.path, "DiffusionGemmaTextRotaryEmbedding")
			}
			if unread != (c.why != "" && !c.fails) || failed != c.fails {
				t.Errorf("%s, %s: unread %v, failures %v: want %s warned about with %q (a failure: %t)", c.name, d, m.Unread, m.HFFails, c.path, c.why, c.fails)
			}
			reportedOnce(t, c.name, m)
		}
	}
}

// TestPartialRotaryWholeHeadScaled: Gemma4TextAttention, Gemma4UnifiedTextAttention and
// DiffusionGemmaTextAttention (modeling_<type>.py, transformers decba1d2) multiply cos/sin into
// the whole head (apply_rotary_pos_emb never slices), and a scaled entry's ROPE_INIT_FUNCTIONS
// function sizes them by int(head_dim · partial_rotary_factor): below 1, transformers main
// cannot run the config. The reading keeps the fraction, and a failure (Model.HFFails) says so;
// Gemma 3's apply_rotary_pos_emb (modeling_gemma3.py) multiplies into the whole head too.
func TestPartialRotaryWholeHeadScaled(t *testing.T) {
	cfg := func(model, sliding, full string) string {
		return fmt.Sprintf(`{"model_type": %q, "hidden_size": 2304, "num_attention_heads": 8, "head_dim": 256, "global_head_dim": 512, "num_hidden_layers": 2,
			"layer_types": ["sliding_attention", "full_attention"], "rope_parameters": {"sliding_attention": {"rope_theta": 10000, %s},
				"full_attention": {"rope_theta": 1000000, %s}}}`, model, sliding, full)
	}
	const linear, proportional = `"rope_type": "linear", "factor": 2`, `"rope_type": "proportional", "partial_rotary_factor": 0.25`
	for _, c := range []struct {
		name, cfg string
		rot       [2]int
		noted     bool
	}{
		{"gemma 4 sliding linear 0.5", cfg("gemma4_text", linear+`, "partial_rotary_factor": 0.5`, proportional), [2]int{128, 512}, true},
		{"gemma 4 sliding linear 1", cfg("gemma4_text", linear+`, "partial_rotary_factor": 1.0`, proportional), [2]int{256, 512}, false},
		{"gemma 4 full yarn 0.5", cfg("gemma4_text", `"rope_type": "default"`, `"rope_type": "yarn", "factor": 4, "original_max_position_embeddings": 8192, "partial_rotary_factor": 0.5`),
			[2]int{256, 256}, true},
		{"diffusion gemma sliding linear 0.5", cfg("diffusion_gemma_text", linear+`, "partial_rotary_factor": 0.5`, proportional), [2]int{128, 512}, true},
		{"gemma 3 sliding linear 0.5", `{"model_type": "gemma3_text", "hidden_size": 2048, "num_attention_heads": 8, "head_dim": 256, "num_hidden_layers": 2,
			"layer_types": ["sliding_attention", "full_attention"], "rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 1000000},
				"sliding_attention": {"rope_type": "linear", "factor": 2, "partial_rotary_factor": 0.5, "rope_theta": 10000}}}`, [2]int{128, 256}, true},
	} {
		m := mustParse(t, c.cfg)
		for l, want := range c.rot {
			if s, err := m.Spec.ForLayer(l); err != nil || s.RotaryDim != want {
				t.Errorf("%s: layer %d: %v, %v: want rotary dim %d", c.name, l, s.RotaryDim, err, want)
			}
		}
		if failed := len(m.HFFails) > 0 && strings.Contains(m.HFFails[0].String(), "cannot run this config"); failed != c.noted {
			t.Errorf("%s: failures %v: want one that transformers main cannot run it %t", c.name, m.HFFails, c.noted)
		}
		reportedOnce(t, c.name, m)
	}
}
