package hf

import (
	"fmt"
	"strings"
	"testing"
)

// TestPartialRotaryPrecedence: with a partial_rotary_factor both at the top level and in the
// rope object, transformers main takes the rope object's for rope_type default and the top
// level's for every scaled type:
//
//   - PreTrainedConfig's __init__ (configuration_utils.py, wrap_init_to_accept_kwargs) hands a
//     key that is no dataclass field to __post_init__ as a kwarg; RotaryEmbeddingConfigMixin.
//     convert_rope_params_to_dict (modeling_rope_utils.py, decba1d2) kwargs.get()s it and only
//     setdefaults it into rope_parameters, and its standardize_rope_params finds no attribute
//     yet; __post_init__ then setattr()s the leftover kwarg: config.partial_rotary_factor is the
//     top level's, rope_parameters["partial_rotary_factor"] the object's.
//   - rope_type default runs the family's compute_default_rope_parameters, which reads
//     rope_parameters (Qwen2RotaryEmbedding's reads nothing: the whole head).
//   - every ROPE_INIT_FUNCTIONS entry (_compute_linear_scaling_rope_parameters, _dynamic_ntk_,
//     _yarn_, _longrope_, _llama3_) calls config.standardize_rope_params() first, which assigns
//     the attribute over rope_parameters["partial_rotary_factor"], and sizes its tables by it.
//
// A reading without rope_parameters (v4.57's _compute_*_parameters read
// getattr(config, "partial_rotary_factor")) takes the top level's. The value not taken is a
// warning (Model.Unread).
func TestPartialRotaryPrecedence(t *testing.T) {
	const head = `"model_type": "qwen2", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8, "partial_rotary_factor": 0.5`
	for _, c := range []struct {
		name, cfg string
		opts      ParseOptions
		rotary    int
		unread    string
	}{
		{"rope_parameters default", `{` + head + `, "rope_parameters": {"rope_type": "default", "rope_theta": 1000000, "partial_rotary_factor": 0.25}}`,
			ParseOptions{}, 32, "partial_rotary_factor"},
		{"rope_scaling linear", `{` + head + `, "rope_theta": 1000000, "rope_scaling": {"rope_type": "linear", "factor": 2, "partial_rotary_factor": 0.25}}`,
			ParseOptions{}, 64, "rope_scaling.partial_rotary_factor"},
		{"rope_scaling default", `{` + head + `, "rope_theta": 1000000, "rope_scaling": {"rope_type": "default", "partial_rotary_factor": 0.25}}`,
			ParseOptions{}, 32, "partial_rotary_factor"},
		{"v4.57", `{` + head + `, "rope_theta": 1000000, "rope_scaling": {"rope_type": "linear", "factor": 2, "partial_rotary_factor": 0.25}}`,
			ParseOptions{Readings: map[Rule]string{RuleRopeParameters: "ignores"}}, 64, ""},
	} {
		m, err := c.opts.Parse([]byte(c.cfg))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if m.Spec.RotaryDim != c.rotary {
			t.Errorf("%s: rotary dim %d, want %d", c.name, m.Spec.RotaryDim, c.rotary)
		}
		if c.unread != "" && !unreadWith(m, c.unread, "is taken") {
			t.Errorf("%s: unread %v: want %s warned about", c.name, m.Unread, c.unread)
		}
	}
}

// unreadWith reports whether m warns that the key at path was not read, for a reason containing
// why.
func unreadWith(m *Model, path, why string) bool {
	for _, u := range m.Unread {
		if u.Path == path && strings.Contains(u.Why, why) {
			return true
		}
	}
	return false
}

// TestPartialRotarySourceByType: the rotary fraction of a GLM-4 config (Glm4Config's
// __post_init__ kwargs.setdefault("partial_rotary_factor", 0.5), so the config object always
// has the attribute) that gives another in its rope object, for each rope type:
//
//   - transformers main: Glm4RotaryEmbedding.compute_default_rope_parameters reads
//     rope_parameters (the object's, convert_rope_params_to_dict having only setdefaulted the
//     attribute into it); every scaled type's ROPE_INIT_FUNCTIONS entry calls
//     standardize_rope_params, which writes the attribute over it: the top level's, else
//     Glm4Config's 0.5; apply_rotary_pos_emb rotates cos.shape[-1] dims.
//   - vLLM: patch_rope_parameters (transformers_utils/config.py, 0036026e) sets
//     config.partial_rotary_factor from getattr_iter(config, ...) and calls
//     standardize_rope_params before any model is built, whatever the type; get_rope
//     (rotary_embedding/__init__.py, 07b12f1b) reads rope_parameters: the attribute.
func TestPartialRotarySourceByType(t *testing.T) {
	const glm4 = `"model_type": "glm4", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 2, "max_position_embeddings": 8192`
	longrope := func(n int) string {
		f := strings.TrimSuffix(strings.Repeat("1.0,", n), ",")
		return fmt.Sprintf(`"rope_type": "longrope", "short_factor": [%s], "long_factor": [%s], "original_max_position_embeddings": 4096`, f, f)
	}
	for _, c := range []struct {
		name      string
		object    func(pairs int) string // the rope object's type keys for a rotary dim of 2·pairs
		scaled    bool
		refRotary int // the reference and --as hf with the top level 0.25 and the object's 1.0
	}{
		{"default", func(int) string { return `"rope_type": "default"` }, false, 128},
		{"linear", func(int) string { return `"rope_type": "linear", "factor": 2` }, true, 32},
		{"dynamic", func(int) string { return `"rope_type": "dynamic", "factor": 2` }, true, 32},
		{"yarn", func(int) string { return `"rope_type": "yarn", "factor": 2, "original_max_position_embeddings": 4096` }, true, 32},
		{"longrope", longrope, true, 32},
		{"llama3", func(int) string {
			return `"rope_type": "llama3", "factor": 8, "low_freq_factor": 1, "high_freq_factor": 4, "original_max_position_embeddings": 4096`
		}, true, 32},
	} {
		for _, d := range []Dialect{DialectReference, DialectHF, DialectVLLM} {
			want := c.refRotary
			if d == DialectVLLM {
				want = 32
			}
			both := fmt.Sprintf(`{%s, "partial_rotary_factor": 0.25, "rope_parameters": {%s, "rope_theta": 10000, "partial_rotary_factor": 1.0}}`, glm4, c.object(want/2))
			m, err := ParseOptions{Dialect: d}.Parse([]byte(both))
			if err != nil {
				t.Errorf("%s, %s: %v", c.name, d, err)
				continue
			}
			notTaken := "rope_parameters.partial_rotary_factor"
			if want == 128 {
				notTaken = "partial_rotary_factor"
			}
			if m.Spec.RotaryDim != want || !unreadWith(m, notTaken, "is taken") {
				t.Errorf("%s, %s, both given: rotary dim %d, unread %v: want %d and %s warned about", c.name, d, m.Spec.RotaryDim, m.Unread, want, notTaken)
			}

			// No top-level key: the attribute is Glm4Config's 0.5.
			want = 64
			if d != DialectVLLM && !c.scaled {
				want = 128
			}
			inner := fmt.Sprintf(`{%s, "rope_parameters": {%s, "rope_theta": 10000, "partial_rotary_factor": 1.0}}`, glm4, c.object(want/2))
			if m, err = (ParseOptions{Dialect: d}).Parse([]byte(inner)); err != nil {
				t.Errorf("%s, %s: %v", c.name, d, err)
				continue
			}
			if m.Spec.RotaryDim != want {
				t.Errorf("%s, %s, rope object only: rotary dim %d, want %d", c.name, d, m.Spec.RotaryDim, want)
			}
			if want == 64 && !unreadWith(m, "rope_parameters.partial_rotary_factor", "Glm4Config") {
				t.Errorf("%s, %s, rope object only: unread %v: want rope_parameters.partial_rotary_factor warned about, naming Glm4Config", c.name, d, m.Unread)
			}
		}
	}
}

// TestPartialRotaryClassAttribute: the attribute standardize_rope_params writes over the rope
// object's is the config object's partial_rotary_factor, whatever the config class's own
// rope reading does with the key.
//
//   - BambaConfig.__post_init__ (configuration_bamba.py, decba1d2) sets
//     kwargs["partial_rotary_factor"] = 0.5: the attribute is 0.5 whatever the config says.
//   - GPTNeoXConfig.convert_rope_params_to_dict setdefaults rotary_pct into rope_parameters and
//     does not pop partial_rotary_factor, which __post_init__ makes an attribute: rope_type
//     default rotates rotary_pct, a scaled type the top-level partial_rotary_factor
//     (GPTNeoX's apply_rotary_pos_emb rotates cos.shape[-1] dims).
func TestPartialRotaryClassAttribute(t *testing.T) {
	for _, c := range []struct {
		name, cfg string
		rotary    int
	}{
		{"bamba default", `{"model_type": "bamba", "hidden_size": 4096, "num_attention_heads": 32, "partial_rotary_factor": 0.75,
			"rope_parameters": {"rope_type": "default", "rope_theta": 10000, "partial_rotary_factor": 0.25}}`, 32},
		{"bamba linear", `{"model_type": "bamba", "hidden_size": 4096, "num_attention_heads": 32, "partial_rotary_factor": 0.75,
			"rope_parameters": {"rope_type": "linear", "factor": 2, "rope_theta": 10000, "partial_rotary_factor": 0.25}}`, 64},
		{"gpt_neox default", `{"model_type": "gpt_neox", "hidden_size": 4096, "num_attention_heads": 32, "rotary_pct": 0.25, "partial_rotary_factor": 0.5,
			"rope_scaling": {"rope_type": "default"}}`, 32},
		{"gpt_neox linear", `{"model_type": "gpt_neox", "hidden_size": 4096, "num_attention_heads": 32, "rotary_pct": 0.25, "partial_rotary_factor": 0.5,
			"rope_scaling": {"rope_type": "linear", "factor": 2}}`, 64},
		{"gpt_neox default, a malformed partial_rotary_factor it never reads", `{"model_type": "gpt_neox", "hidden_size": 4096, "num_attention_heads": 32, "rotary_pct": 0.25, "partial_rotary_factor": "half"}`, 32},
		{"gpt_neox linear, no partial_rotary_factor", `{"model_type": "gpt_neox", "hidden_size": 4096, "num_attention_heads": 32, "rotary_pct": 0.25,
			"rope_scaling": {"rope_type": "linear", "factor": 2}}`, 32},
	} {
		m, err := Parse([]byte(c.cfg))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if m.Spec.RotaryDim != c.rotary {
			t.Errorf("%s: rotary dim %d, want %d (notes %q)", c.name, m.Spec.RotaryDim, c.rotary, m.Notes)
		}
	}
}

// TestPartialRotaryAttentionSlices: PhiAttention, StableLmAttention and PersimmonAttention
// (modeling_<type>.py, decba1d2) take rotary_ndims from rope_parameters["partial_rotary_factor"]
// in __init__, and <Type>Model.__init__ builds its layers before its rotary embedding, whose
// scaled init then writes the attribute over that value: with the two different, the query's
// rotated slice and cos/sin differ in size and HF main fails. The spec takes the attribute, as
// the cos/sin tables do, and a failure (Model.HFFails) says HF main cannot run the config.
func TestPartialRotaryAttentionSlices(t *testing.T) {
	m := mustParse(t, `{"model_type": "phi", "hidden_size": 2048, "num_attention_heads": 32, "partial_rotary_factor": 0.5,
		"rope_parameters": {"rope_type": "linear", "factor": 2, "rope_theta": 10000, "partial_rotary_factor": 0.25}}`)
	if m.Spec.RotaryDim != 32 || !failWith(m, "rope_parameters.partial_rotary_factor", "PhiAttention") {
		t.Errorf("phi linear: rotary dim %d, failures %v: want 32 and a failure naming PhiAttention", m.Spec.RotaryDim, m.HFFails)
	}
	m = mustParse(t, `{"model_type": "phi", "hidden_size": 2048, "num_attention_heads": 32, "partial_rotary_factor": 0.5,
		"rope_parameters": {"rope_type": "default", "rope_theta": 10000, "partial_rotary_factor": 0.25}}`)
	if m.Spec.RotaryDim != 16 || len(m.HFFails) > 0 || noteHas(m, "PhiAttention") {
		t.Errorf("phi default: rotary dim %d, failures %v, notes %q: want 16 and nothing on PhiAttention", m.Spec.RotaryDim, m.HFFails, m.Notes)
	}
}

// TestPartialRotaryV457: transformers v4.57 (main at its cut, 59eba492) reads the rotary
// fraction from the config object alone: _compute_default_rope_parameters,
// _compute_dynamic_ntk_parameters, _compute_yarn_parameters and _compute_longrope_parameters
// (modeling_rope_utils.py) take getattr(config, "partial_rotary_factor", 1.0), the linear and
// llama3 ones through the first, and no model reads the key inside rope_scaling; a config
// class with a default (Glm4Config: partial_rotary_factor=0.5 in __init__) has the attribute
// whatever the config says. --as hf-4.57 reads so (RulePartialRotarySource "attribute-only"),
// with rope_scaling's key a warning; the reference takes the rope object's.
func TestPartialRotaryV457(t *testing.T) {
	const llama = `"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8, "rope_theta": 10000, "max_position_embeddings": 8192`
	const glm4 = `"model_type": "glm4", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 2, "rope_theta": 10000, "max_position_embeddings": 8192`
	for _, c := range []struct {
		name, cfg string
		ref, v457 int
		unread457 string
	}{
		{"llama linear", `{` + llama + `, "rope_scaling": {"rope_type": "linear", "factor": 2, "partial_rotary_factor": 0.5}}`, 64, 128, "rope_scaling.partial_rotary_factor"},
		{"llama default", `{` + llama + `, "rope_scaling": {"rope_type": "default", "partial_rotary_factor": 0.5}}`, 64, 128, "rope_scaling.partial_rotary_factor"},
		{"llama both", `{` + llama + `, "partial_rotary_factor": 0.25, "rope_scaling": {"rope_type": "default", "partial_rotary_factor": 0.5}}`, 64, 32, "rope_scaling.partial_rotary_factor"},
		{"glm4 default", `{` + glm4 + `, "rope_scaling": {"rope_type": "default", "partial_rotary_factor": 1.0}}`, 128, 64, "rope_scaling.partial_rotary_factor"},
		{"llama top level", `{` + llama + `, "partial_rotary_factor": 0.25, "rope_scaling": {"rope_type": "linear", "factor": 2}}`, 32, 32, ""},
	} {
		if m := parseAs(t, DialectReference, c.cfg); m.Spec.RotaryDim != c.ref {
			t.Errorf("%s: reference rotary dim %d, want %d", c.name, m.Spec.RotaryDim, c.ref)
		}
		m := parseAs(t, DialectHF457, c.cfg)
		if m.Spec.RotaryDim != c.v457 {
			t.Errorf("%s: hf-4.57 rotary dim %d, want %d", c.name, m.Spec.RotaryDim, c.v457)
		}
		if c.unread457 != "" && !unreadWith(m, c.unread457, "v4.57") {
			t.Errorf("%s: hf-4.57 unread %v: want %s warned about", c.name, m.Unread, c.unread457)
		}
	}
	if rd, ok := DialectHF457.Reading(RulePartialRotarySource); !ok || rd.Choice != "attribute-only" {
		t.Errorf("hf-4.57 %s: %+v, %v: want attribute-only", RulePartialRotarySource, rd, ok)
	}
}
