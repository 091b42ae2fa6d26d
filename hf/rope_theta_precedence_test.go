package hf

import (
	"strings"
	"testing"
)

// TestRopeThetaInRopeScaling: where a rope_theta inside the legacy rope_scaling and one at the
// top level of config.json disagree, each reading takes the one its source takes.
//
//   - transformers main: RotaryEmbeddingConfigMixin.convert_rope_params_to_dict
//     (modeling_rope_utils.py, decba1d2) sets rope_parameters = rope_scaling or rope_parameters
//     and only setdefaults the config's rope_theta into it (standardize_rope_params again), so
//     the object's own wins, for rope_scaling as for rope_parameters.
//   - vLLM: get_config builds the config with transformers v5's AutoConfig, and
//     patch_rope_parameters (transformers_utils/config.py, 0036026e) only calls
//     standardize_rope_params again: the object's own wins.
//   - llama.cpp: TextModel.__init__ (conversion/base.py) copies the top-level rope_theta into
//     the rope object only when it has none.
//   - transformers v4.57: _compute_default_rope_parameters (modeling_rope_utils.py, 59eba492)
//     reads base = config.rope_theta and never the object's, LlamaConfig's default 10000 when
//     the config gives none; vLLM 0.11 getattr(config, "rope_theta", 10000).
//
// The reading that is not taken is a warning (Model.Unread): the versions disagree on it.
func TestRopeThetaInRopeScaling(t *testing.T) {
	const llama = `"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 8192`
	both := `{` + llama + `, "rope_theta": 250000, "rope_scaling": {"rope_type": "linear", "factor": 2, "rope_theta": 500000}}`
	inside := `{` + llama + `, "rope_scaling": {"rope_type": "linear", "factor": 2, "rope_theta": 500000}}`
	top := `{` + llama + `, "rope_theta": 250000, "rope_scaling": {"rope_type": "linear", "factor": 2}}`
	same := `{` + llama + `, "rope_theta": 500000, "rope_scaling": {"rope_type": "linear", "factor": 2, "rope_theta": 500000}}`
	for _, c := range []struct {
		dialect                 Dialect
		both, inside, top, same float64
		bothWarns, insideWarns  string // the path of the key warned about as unread, "" for none
	}{
		{DialectReference, 500000, 500000, 250000, 500000, "rope_theta", ""},
		{DialectHF, 500000, 500000, 250000, 500000, "rope_theta", ""},
		{DialectVLLM, 500000, 500000, 250000, 500000, "rope_theta", ""},
		{DialectLlamaCpp, 500000, 500000, 250000, 500000, "rope_theta", ""},
		{DialectHF457, 250000, 10000, 250000, 500000, "rope_scaling.rope_theta", "rope_scaling.rope_theta"},
		{DialectVLLM011, 250000, 10000, 250000, 500000, "rope_scaling.rope_theta", "rope_scaling.rope_theta"},
	} {
		for _, k := range []struct {
			name, cfg string
			base      float64
			warns     string
		}{{"both", both, c.both, c.bothWarns}, {"inside", inside, c.inside, c.insideWarns}, {"top", top, c.top, ""}, {"same", same, c.same, ""}} {
			m, err := ParseOptions{Dialect: c.dialect}.Parse([]byte(k.cfg))
			if err != nil {
				t.Errorf("%s, %s: %v", c.dialect, k.name, err)
				continue
			}
			if m.Spec.Base != k.base {
				t.Errorf("%s, %s: base %v, want %v", c.dialect, k.name, m.Spec.Base, k.base)
			}
			var warned []string
			for _, u := range m.Unread {
				if strings.HasSuffix(u.Path, "rope_theta") {
					warned = append(warned, u.String())
				}
			}
			switch {
			case k.warns == "" && warned != nil:
				t.Errorf("%s, %s: warnings %q, want none about rope_theta", c.dialect, k.name, warned)
			case k.warns != "" && (len(warned) != 1 || !strings.HasPrefix(warned[0], k.warns+": not read: ")):
				t.Errorf("%s, %s: warnings %q, want one on %s", c.dialect, k.name, warned, k.warns)
			}
		}
	}
}

// TestRopeThetaInRopeParametersWarns: a top-level rope_theta beside a rope_parameters that gives
// another is not read by transformers main (the object's wins), while v4.57, which has no
// rope_parameters, reads it: a warning names it and the value taken.
func TestRopeThetaInRopeParametersWarns(t *testing.T) {
	m := mustParse(t, `{"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 10000,
		"rope_parameters": {"rope_type": "default", "rope_theta": 500000}}`)
	if m.Spec.Base != 500000 || len(m.Unread) != 1 || m.Unread[0].Path != "rope_theta" ||
		!strings.Contains(m.Unread[0].String(), "rope_parameters.rope_theta 500000") {
		t.Errorf("base %v unread %v: want 500000 and rope_theta warned about, naming rope_parameters.rope_theta 500000", m.Spec.Base, m.Unread)
	}
}
