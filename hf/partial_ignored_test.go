package hf

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// partialIgnoredUpstream are the model types hf knows whose transformers main rotary embedding
// sizes inv_freq by head_dim alone in compute_default_rope_parameters, never reading
// partial_rotary_factor (models/<type>/modeling_<type>.py at decba1d2, each class's
// compute_default_rope_parameters: dim = getattr(config, "head_dim", None) or hidden_size //
// num_attention_heads), and whose apply_rotary_pos_emb multiplies cos/sin into the whole head.
// Wrappers and text configs count as their text model's class. kolibri1's
// Kolibri1RotaryEmbedding (modeling_kolibri1.py @bdd66176) computes inv_freq in rope_inv_freq
// over config.head_dim the same way.
//
// Left out: the MLA families (their rope part is qk_rope_head_dim, which hf reads without the
// key), zamba2 (hf rotates its whole attention_head_dim already), gemma4 and diffusion_gemma
// (their layer rule rotates the whole head for rope type default in every reading), minimax
// (RuleMiniMaxRotaryDim), and the remote-code types without a transformers class (internlm2,
// internlm3, chatglm, RefinedWeb, RefinedWebModel, minimax_text_01, ernie4_5_moe_vl).
var partialIgnoredUpstream = []string{
	"llama", "mistral", "mistral3", "mixtral", "ministral", "ministral3", "qwen2", "qwen2_moe",
	"qwen3", "qwen3_moe", "qwen2_vl", "qwen2_vl_text", "qwen2_5_vl", "qwen2_5_vl_text", "qwen3_vl",
	"qwen3_vl_text", "qwen3_vl_moe", "qwen3_vl_moe_text", "qwen2_5_omni", "qwen2_5_omni_thinker",
	"qwen2_5_omni_text", "qwen2_5_omni_talker", "qwen3_omni_moe", "qwen3_omni_moe_thinker",
	"qwen3_omni_moe_text", "qwen3_omni_moe_talker", "qwen3_omni_moe_talker_text", "gemma", "gemma2", "gemma3",
	"gemma3_text", "gemma3n", "gemma3n_text", "gpt_oss", "olmo", "olmo2", "olmo3", "starcoder2",
	"falcon", "granite", "granitemoe", "granitemoeshared", "granitemoehybrid", "phimoe",
	"hunyuan_v1_dense", "hunyuan_v1_moe", "hunyuan_vl", "hunyuan_vl_text", "seed_oss", "apertus",
	"cohere", "cohere2", "ernie4_5", "ernie4_5_moe", "ernie4_5_vl_moe", "ernie4_5_vl_moe_text",
	"exaone4", "smollm3", "llama4", "llama4_text", "helium", "jetmoe", "dbrx", "kolibri1",
}

// TestDialectPartialIgnoredTypes: under --as hf, every model type in partialIgnoredUpstream
// rotates the whole head for rope type default, whatever partial_rotary_factor says, with the
// class named in the note; the reference rotates the fraction, as vLLM's get_rope does; and the
// dialect's table lists exactly these types.
func TestDialectPartialIgnoredTypes(t *testing.T) {
	for _, mt := range partialIgnoredUpstream {
		if _, ok := partialIgnoredTypes[mt]; !ok {
			t.Errorf("partialIgnoredTypes lacks %q", mt)
		}
	}
	for mt := range partialIgnoredTypes {
		if !slices.Contains(partialIgnoredUpstream, mt) {
			t.Errorf("partialIgnoredTypes has %q, which the upstream survey does not list", mt)
		}
	}
	for _, mt := range partialIgnoredUpstream {
		class := partialIgnoredTypes[mt]
		keys := `"hidden_size": 2048, "num_attention_heads": 16, "num_key_value_heads": 16, "head_dim": 128, "num_hidden_layers": 4, "max_position_embeddings": 8192`
		if mt == "granitemoehybrid" {
			keys += `, "position_embedding_type": "rope"`
		}
		cfg := fmt.Sprintf(`{"model_type": %q, %s, "partial_rotary_factor": 0.5, "rope_parameters": {"rope_type": "default", "rope_theta": 10000}}`, mt, keys)
		if _, err := (ParseOptions{Dialect: DialectHF}).Parse([]byte(cfg)); err != nil {
			// A wrapper builds its text model from text_config.
			cfg = fmt.Sprintf(`{"model_type": %q, "text_config": {%s, "partial_rotary_factor": 0.5, "rope_parameters": {"rope_type": "default", "rope_theta": 10000}}}`, mt, keys)
		}
		m := parseAs(t, DialectHF, cfg)
		if m.Spec.RotaryDim != 128 || !noteHas(m, class) {
			t.Errorf("%s: hf: rotary dim %d, notes %q: want 128 (%s)", mt, m.Spec.RotaryDim, m.Notes, class)
		}
		// The reference rotates the fraction; with a family's default MRoPE sections, which
		// cover the whole head, it refuses the config instead.
		if ref, err := Parse([]byte(cfg)); err == nil && ref.Spec.RotaryDim != 64 {
			t.Errorf("%s: reference rotary dim %d, want 64", mt, ref.Spec.RotaryDim)
		}
	}
	// Per-layer-type rope_parameters: each entry of rope type default drops the key.
	nested := `{"model_type": "gemma3_text", "hidden_size": 2048, "num_attention_heads": 16, "head_dim": 128, "num_hidden_layers": 6, "max_position_embeddings": 8192,
		"rope_parameters": {"sliding_attention": {"rope_type": "default", "rope_theta": 10000, "partial_rotary_factor": 0.5},
		"full_attention": {"rope_type": "default", "rope_theta": 1000000, "partial_rotary_factor": 0.5}}}`
	m := parseAs(t, DialectHF, nested)
	if m.Spec.RotaryDim != 128 || m.Spec.Local == nil {
		t.Fatalf("hf: gemma3 nested rope_parameters: rotary dim %d, local %+v: want 128 and per-layer types", m.Spec.RotaryDim, m.Spec.Local)
	}
	for name, lt := range m.Spec.Local.Types {
		if lt.RotaryDim != 0 && lt.RotaryDim != 128 {
			t.Errorf("hf: gemma3 nested %s: rotary dim %d, want the whole head", name, lt.RotaryDim)
		}
	}
}

// TestDialectPartialIgnoredMerged: Olmo3Config.convert_rope_params_to_dict merges a legacy
// rope_scaling into rope_parameters' full_attention entry, so that entry is built with
// rope_scaling's type: a scaled one sizes its tables by the entry's partial_rotary_factor, which
// --as hf keeps, as for a scaled Llama, with the failure of HF main that cannot apply them.
func TestDialectPartialIgnoredMerged(t *testing.T) {
	cfg := `{"model_type": "olmo3", "hidden_size": 2048, "num_attention_heads": 16, "head_dim": 128, "num_hidden_layers": 4, "max_position_embeddings": 8192,
		"rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 10000, "partial_rotary_factor": 0.5},
		"sliding_attention": {"rope_type": "default", "rope_theta": 10000}},
		"rope_scaling": {"rope_type": "linear", "factor": 2}}`
	m := parseAs(t, DialectHF, cfg)
	if m.Spec.RotaryDim != 64 || !failWith(m, "rope_parameters.full_attention.partial_rotary_factor", "Olmo3RotaryEmbedding") {
		t.Errorf("hf: olmo3 merged linear: rotary dim %d, failures %v: want 64 and a failure of HF main", m.Spec.RotaryDim, m.HFFails)
	}
}

func noteHas(m *Model, s string) bool {
	for _, n := range m.Notes {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}
