package hf

import (
	"strings"
	"testing"
)

// TestPartialRotaryPrecedence: with a partial_rotary_factor both at the top level and in the
// rope object, transformers main takes the rope object's (convert_rope_params_to_dict only
// setdefaults the top-level one into it), for rope_parameters and legacy rope_scaling alike;
// a reading without rope_parameters (v4.57's compute_default_rope_parameters reads the config
// attribute) takes the top-level one. Each says so in a note.
func TestPartialRotaryPrecedence(t *testing.T) {
	const head = `"model_type": "qwen2", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8, "partial_rotary_factor": 0.5`
	for _, c := range []struct {
		name, cfg string
		opts      ParseOptions
		rotary    int
		note      string
	}{
		{"rope_parameters", `{` + head + `, "rope_parameters": {"rope_type": "default", "rope_theta": 1000000, "partial_rotary_factor": 0.25}}`,
			ParseOptions{}, 32, "rope_parameters.partial_rotary_factor taken"},
		{"rope_scaling", `{` + head + `, "rope_theta": 1000000, "rope_scaling": {"rope_type": "linear", "factor": 2, "partial_rotary_factor": 0.25}}`,
			ParseOptions{}, 32, "rope_scaling.partial_rotary_factor taken"},
		{"v4.57", `{` + head + `, "rope_theta": 1000000, "rope_scaling": {"rope_type": "linear", "factor": 2, "partial_rotary_factor": 0.25}}`,
			ParseOptions{Readings: map[Rule]string{RuleRopeParameters: "ignores"}}, 64, ": partial_rotary_factor taken"},
	} {
		m, err := c.opts.Parse([]byte(c.cfg))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if m.Spec.RotaryDim != c.rotary || !strings.Contains(strings.Join(m.Notes, "\n"), c.note) {
			t.Errorf("%s: rotary dim %d, notes %q: want %d and a note %q", c.name, m.Spec.RotaryDim, m.Notes, c.rotary, c.note)
		}
	}
}
