package hf

import (
	"fmt"
	"strings"
	"testing"
)

// failWith reports whether m says transformers main cannot run it because of key, with word in
// the failure's text.
func failWith(m *Model, key, word string) bool {
	for _, f := range m.HFFails {
		if f.Key == key && strings.Contains(f.String(), word) {
			return true
		}
	}
	return false
}

// reportedOnce checks that no key m says transformers main fails on is also reported unread,
// and that no note says it: one config, one warning per key.
func reportedOnce(t *testing.T, name string, m *Model) {
	t.Helper()
	for _, f := range m.HFFails {
		for _, u := range m.Unread {
			if u.Path == f.Key {
				t.Errorf("%s: %s reported both as unread (%s) and as a failure (%s)", name, f.Key, u, f)
			}
		}
	}
	for _, n := range m.Notes {
		if strings.Contains(n, "cannot run") || strings.Contains(n, "fails on this config") {
			t.Errorf("%s: a note says transformers main fails: %q", name, n)
		}
	}
}

// TestHFFailsPartial: the configs whose rotary fraction transformers main (decba1d2) sizes a
// cos/sin table by that its attention cannot apply are failures (Model.HFFails), each naming
// the key, the class and function that raise, and the reading rotary takes, in every reading:
//   - PhiAttention, StableLmAttention and PersimmonAttention (modeling_<type>.py) take
//     rotary_ndims from rope_parameters["partial_rotary_factor"] in __init__, before the
//     scaled init writes the attribute over it, and forward's apply_rotary_pos_emb meets
//     cos/sin of the attribute's width;
//   - the classes whose apply_rotary_pos_emb multiplies cos/sin into the whole head (Gemma 4's,
//     DiffusionGemma's, Mellum's, Gemma 3's, Llama's: partialIgnoredTypes) get a scaled
//     table sized by a fraction below 1;
//   - DiffusionGemmaTextRotaryEmbedding.compute_default_rope_parameters and
//     MellumRotaryEmbedding's size a rope type default entry's inv_freq by its fraction while
//     the attention rotates the whole head.
func TestHFFailsPartial(t *testing.T) {
	phi := func(model string) string {
		return fmt.Sprintf(`{"model_type": %q, "hidden_size": 2048, "num_attention_heads": 32, "partial_rotary_factor": 0.5,
			"rope_parameters": {"rope_type": "linear", "factor": 2, "rope_theta": 10000, "partial_rotary_factor": 0.25}}`, model)
	}
	gemma := func(model, top, sliding, full string) string {
		return fmt.Sprintf(`{"model_type": %q, "hidden_size": 2304, "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256,
			"global_head_dim": 512, "num_hidden_layers": 2, "layer_types": ["sliding_attention", "full_attention"]%s,
			"rope_parameters": {"sliding_attention": {"rope_theta": 10000, %s}, "full_attention": {"rope_theta": 1000000, %s}}}`, model, top, sliding, full)
	}
	const linear, proportional = `"rope_type": "linear", "factor": 2`, `"rope_type": "proportional", "partial_rotary_factor": 0.25`
	const sliding, full = "rope_parameters.sliding_attention.partial_rotary_factor", "rope_parameters.full_attention.partial_rotary_factor"
	const llama = `{"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 8192, "partial_rotary_factor": 0.5,
		"rope_scaling": {"rope_type": "yarn", "factor": 2, "original_max_position_embeddings": 4096}}`
	for _, c := range []struct {
		name, cfg  string
		rot        []int  // the layers' rotary dims, as today
		key, words string // the failure: its key, and words of it ("" for none), comma-separated
	}{
		{"phi", phi("phi"), []int{32}, "rope_parameters.partial_rotary_factor", "PhiAttention.forward,shape mismatch,rotary takes partial_rotary_factor 0.5"},
		{"stablelm", phi("stablelm"), []int{32}, "rope_parameters.partial_rotary_factor", "StableLmAttention.forward,shape mismatch"},
		{"persimmon", phi("persimmon"), []int{32}, "rope_parameters.partial_rotary_factor", "PersimmonAttention.forward,shape mismatch"},
		{"phi default", strings.Replace(phi("phi"), `"rope_type": "linear", "factor": 2`, `"rope_type": "default"`, 1), []int{16}, "", ""},
		{"gemma 4 sliding linear 0.5", gemma("gemma4_text", ``, linear+`, "partial_rotary_factor": 0.5`, proportional), []int{128, 512}, sliding,
			"apply_rotary_pos_emb,Gemma4TextRotaryEmbedding,shape mismatch,keeps the fraction"},
		{"gemma 4 full yarn 0.5", gemma("gemma4_text", ``, `"rope_type": "default"`, `"rope_type": "yarn", "factor": 4, "original_max_position_embeddings": 8192, "partial_rotary_factor": 0.5`),
			[]int{256, 256}, full, "apply_rotary_pos_emb,shape mismatch"},
		{"gemma 4 sliding linear 0.5, no sliding layer", strings.Replace(gemma("gemma4_text", ``, linear+`, "partial_rotary_factor": 0.5`, proportional),
			`["sliding_attention", "full_attention"]`, `["full_attention", "full_attention"]`, 1), []int{512, 512}, "", ""},
		{"gemma 4 sliding linear 1", gemma("gemma4_text", ``, linear+`, "partial_rotary_factor": 1.0`, proportional), []int{256, 512}, "", ""},
		{"diffusion gemma sliding default 0.5", gemma("diffusion_gemma_text", ``, `"rope_type": "default", "partial_rotary_factor": 0.5`, proportional), []int{256, 512}, sliding,
			"DiffusionGemmaTextRotaryEmbedding.compute_default_rope_parameters,apply_rotary_pos_emb,shape mismatch,whole"},
		{"diffusion gemma full default 0.5", gemma("diffusion_gemma_text", ``, `"rope_type": "default"`, `"rope_type": "default", "partial_rotary_factor": 0.5`), []int{256, 512}, full,
			"DiffusionGemmaTextRotaryEmbedding"},
		{"diffusion gemma config's 0.5 written by the proportional init", gemma("diffusion_gemma_text", `, "partial_rotary_factor": 0.5`, `"rope_type": "default"`, proportional),
			[]int{256, 512}, "partial_rotary_factor", "rope_parameters.sliding_attention,shape mismatch"},
		{"diffusion gemma sliding linear 0.5", gemma("diffusion_gemma_text", ``, linear+`, "partial_rotary_factor": 0.5`, proportional), []int{128, 512}, sliding,
			"DiffusionGemmaTextRotaryEmbedding"},
		{"diffusion gemma sliding head_dim - 1", gemma("diffusion_gemma_text", ``, `"rope_type": "default", "partial_rotary_factor": 0.998`, proportional), []int{256, 512}, "", ""},
		{"mellum full default 0.5", `{"model_type": "mellum", "num_hidden_layers": 2, "layer_types": ["sliding_attention", "full_attention"],
			"rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 500000.0, "partial_rotary_factor": 0.5},
				"sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}}}`, []int{128, 128}, full, "MellumRotaryEmbedding.compute_default_rope_parameters"},
		{"mellum sliding default 0.5, no sliding layer", `{"model_type": "mellum", "num_hidden_layers": 2,
			"rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 500000.0},
				"sliding_attention": {"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.5}}}`, []int{128, 128}, "", ""},
		{"gemma 3 sliding linear 0.5", `{"model_type": "gemma3_text", "hidden_size": 2048, "num_attention_heads": 8, "head_dim": 256, "num_hidden_layers": 2,
			"layer_types": ["sliding_attention", "full_attention"], "rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 1000000},
				"sliding_attention": {"rope_type": "linear", "factor": 2, "partial_rotary_factor": 0.5, "rope_theta": 10000}}}`, []int{128, 256}, sliding,
			"Gemma3RotaryEmbedding,apply_rotary_pos_emb"},
		{"llama yarn 0.5", llama, []int{64}, "partial_rotary_factor", "LlamaRotaryEmbedding,yarn,apply_rotary_pos_emb,shape mismatch"},
		{"llama default 0.5", strings.Replace(llama, `"rope_type": "yarn"`, `"rope_type": "default"`, 1), []int{64}, "", ""},
	} {
		for _, d := range []Dialect{DialectReference, DialectHF} {
			name := fmt.Sprintf("%s, %s", c.name, d)
			m := parseAs(t, d, c.cfg)
			rot := c.rot
			if c.name == "llama default 0.5" && d == DialectHF {
				rot = []int{128} // HF main's LlamaRotaryEmbedding sizes the default type by head_dim
			}
			for l, want := range rot {
				if s, err := m.Spec.ForLayer(l); err != nil || s.RotaryDim != want {
					t.Errorf("%s: layer %d: rotary dim %d, %v: want %d", name, l, s.RotaryDim, err, want)
				}
			}
			reportedOnce(t, name, m)
			if c.key == "" {
				if len(m.HFFails) > 0 {
					t.Errorf("%s: failures %v: want none", name, m.HFFails)
				}
				continue
			}
			for _, w := range strings.Split(c.words, ",") {
				if !failWith(m, c.key, w) {
					t.Errorf("%s: failures %v: want one on %s saying %q", name, m.HFFails, c.key, w)
				}
			}
		}
	}
}

// TestHFFailsEntryTheta: an entry of a rope object keyed by layer type that gives no rope_theta.
// Gemma3TextConfig, Gemma3nTextConfig and Olmo3Config fill the full_attention and
// sliding_attention entries in convert_rope_params_to_dict (configuration_<type>.py, decba1d2),
// so their entries fall back. Gemma4TextConfig, Gemma4UnifiedTextConfig,
// DiffusionGemmaTextConfig, MellumConfig and ZayaConfig return the kwargs untouched, and their
// rotary embeddings' compute_default_rope_parameters read
// config.rope_parameters[layer_type]["rope_theta"] (modeling_<type>.py): a rope type default
// entry without it raises KeyError. A scaled entry's ROPE_INIT_FUNCTIONS function
// (modeling_rope_utils.py) first calls standardize_rope_params, which setdefaults the config
// object's rope_theta attribute into every entry: the config's key, and where it has none
// (these classes have no rope_theta field) None, which the init cannot raise to a power.
func TestHFFailsEntryTheta(t *testing.T) {
	perType := func(model, top, sliding, full string) string {
		return fmt.Sprintf(`{"model_type": %q, "hidden_size": 2304, "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256,
			"global_head_dim": 512, "num_hidden_layers": 2, "layer_types": ["sliding_attention", "full_attention"]%s,
			"rope_parameters": {"sliding_attention": {%s}, "full_attention": {%s}}}`, model, top, sliding, full)
	}
	const proportional = `"rope_type": "proportional", "partial_rotary_factor": 0.25, "rope_theta": 1000000`
	const slidingTheta, fullTheta = "rope_parameters.sliding_attention.rope_theta", "rope_parameters.full_attention.rope_theta"
	for _, c := range []struct {
		name, cfg  string
		base       []float64 // the layers' bases
		key, words string    // the failure: its key and words of it, comma-separated; "" for none
	}{
		{"gemma 4 sliding default", perType("gemma4_text", ``, `"rope_type": "default"`, proportional), []float64{1e6, 1e6}, slidingTheta,
			"Gemma4TextRotaryEmbedding.compute_default_rope_parameters,KeyError: 'rope_theta',1e+06"},
		{"gemma 4 unified sliding default", perType("gemma4_unified_text", ``, `"rope_type": "default"`, proportional), []float64{1e6, 1e6}, slidingTheta,
			"Gemma4UnifiedTextRotaryEmbedding.compute_default_rope_parameters,KeyError"},
		{"diffusion gemma sliding default", perType("diffusion_gemma_text", ``, `"rope_type": "default"`, proportional), []float64{1e6, 1e6}, slidingTheta,
			"DiffusionGemmaTextRotaryEmbedding.compute_default_rope_parameters,KeyError"},
		{"gemma 4 sliding linear, the config's rope_theta", perType("gemma4_text", `, "rope_theta": 500000`, `"rope_type": "linear", "factor": 2`, proportional),
			[]float64{5e5, 1e6}, "", ""},
		{"gemma 4 sliding linear, no rope_theta anywhere", perType("gemma4_text", ``, `"rope_type": "linear", "factor": 2`, proportional), []float64{1e6, 1e6}, slidingTheta,
			"_compute_linear_scaling_rope_parameters,TypeError"},
		{"gemma 4 full proportional, the config's rope_theta", perType("gemma4_text", `, "rope_theta": 500000`, `"rope_type": "default", "rope_theta": 10000`,
			`"rope_type": "proportional", "partial_rotary_factor": 0.25`), []float64{1e4, 5e5}, "", ""},
		{"mellum sliding default", `{"model_type": "mellum", "num_hidden_layers": 2, "layer_types": ["sliding_attention", "full_attention"],
			"rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 500000.0}, "sliding_attention": {"rope_type": "default"}}}`,
			[]float64{5e5, 5e5}, slidingTheta, "MellumRotaryEmbedding.compute_default_rope_parameters,KeyError"},
		{"mellum full default, the config's rope_theta", `{"model_type": "mellum", "num_hidden_layers": 2, "layer_types": ["sliding_attention", "full_attention"],
			"rope_theta": 123456, "rope_parameters": {"full_attention": {"rope_type": "default"}, "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}}}`,
			[]float64{1e4, 123456}, fullTheta, "MellumRotaryEmbedding.compute_default_rope_parameters,KeyError,123456"},
		{"mellum sliding entry no layer uses", `{"model_type": "mellum", "num_hidden_layers": 2,
			"rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 500000.0}, "sliding_attention": {"rope_type": "default"}}}`,
			[]float64{5e5, 5e5}, "", ""},
		{"zaya hybrid_sliding default", `{"model_type": "zaya", "num_hidden_layers": 2, "layer_types": ["hybrid", "hybrid_sliding"],
			"rope_parameters": {"hybrid": {"rope_type": "default", "rope_theta": 5000000, "partial_rotary_factor": 0.5},
				"hybrid_sliding": {"rope_type": "default", "partial_rotary_factor": 0.5}}}`, []float64{5e6, 5e6}, slidingTheta,
			"ZayaRotaryEmbedding.compute_default_rope_parameters,KeyError"},
		{"gemma 3 entries filled", `{"model_type": "gemma3_text", "hidden_size": 2048, "num_attention_heads": 8, "head_dim": 256, "num_hidden_layers": 2,
			"layer_types": ["sliding_attention", "full_attention"], "rope_parameters": {"full_attention": {"rope_type": "default"}, "sliding_attention": {"rope_type": "default"}}}`,
			[]float64{1e4, 1e6}, "", ""},
		{"deepseek v4 compress yarn", `{"model_type": "deepseek_v4", "num_hidden_layers": 4, "layer_types": ["sliding_attention", "compressed_sparse_attention",
			"sliding_attention", "heavily_compressed_attention"], "rope_parameters": {"main": {"rope_type": "default", "rope_theta": 20000},
				"compress": {"rope_type": "yarn", "factor": 16, "original_max_position_embeddings": 65536}}}`, []float64{2e4, 1e4, 2e4, 1e4}, "", ""},
		{"deepseek v4 main default", `{"model_type": "deepseek_v4", "num_hidden_layers": 2, "layer_types": ["sliding_attention", "compressed_sparse_attention"],
			"rope_parameters": {"main": {"rope_type": "default"}, "compress": {"rope_type": "yarn", "factor": 16, "original_max_position_embeddings": 65536, "rope_theta": 160000}}}`,
			[]float64{1e4, 160000}, "rope_parameters.main.rope_theta", "DeepseekV4RotaryEmbedding.compute_default_rope_parameters,KeyError,key order"},
	} {
		m := mustParse(t, c.cfg)
		for l, want := range c.base {
			if s, err := m.Spec.ForLayer(l); err != nil || s.Base != want {
				t.Errorf("%s: layer %d: base %v, %v: want %v", c.name, l, s.Base, err, want)
			}
		}
		reportedOnce(t, c.name, m)
		if c.key == "" {
			if len(m.HFFails) > 0 {
				t.Errorf("%s: failures %v: want none", c.name, m.HFFails)
			}
			for _, u := range m.Unread {
				if u.Path == "rope_theta" {
					t.Errorf("%s: %s: the config's rope_theta is read", c.name, u)
				}
			}
			continue
		}
		for _, w := range strings.Split(c.words, ",") {
			if !failWith(m, c.key, w) {
				t.Errorf("%s: failures %v: want one on %s saying %q", c.name, m.HFFails, c.key, w)
			}
		}
	}
}
