package check_test

import (
	"strings"
	"testing"

	"github.com/rotary-go/rotary/check"
)

// TestNonFiniteAndOverflowingConfigs: a config whose tables would not be finite, or whose
// mrope sections wrap around when summed, is an error finding, with an honest message.
func TestNonFiniteAndOverflowingConfigs(t *testing.T) {
	const llama = `{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"num_key_value_heads":8,"max_position_embeddings":8192,`
	cases := []struct {
		name, config, want, notWant string
	}{
		{"theta 5e-324", llama + `"rope_theta":5e-324}`, "rope_theta", ""},
		{"linear factor 1e-308", llama + `"rope_theta":500000,"rope_scaling":{"rope_type":"linear","factor":1e-308}}`, "factor", ""},
		{"yarn attention_factor 1e308", llama + `"rope_theta":500000,"rope_scaling":{"rope_type":"yarn","factor":4,"attention_factor":1e308,"original_max_position_embeddings":2048}}`, "attention", ""},
		{"wrapping sections", `{"model_type":"qwen2_vl","hidden_size":3584,"num_attention_heads":28,"num_key_value_heads":4,"max_position_embeddings":32768,"rope_theta":1000000,"rope_scaling":{"type":"mrope","mrope_section":[9223372036854775807,9223372036854775807,66]}}`, "mrope_section", "sums to"},
	}
	for _, c := range cases {
		var errs []string
		for _, f := range check.Config([]byte(c.config), check.Launch{}) {
			if f.Severity == check.Error {
				errs = append(errs, f.What)
			}
		}
		all := strings.Join(errs, "\n")
		if !strings.Contains(all, c.want) || (c.notWant != "" && strings.Contains(all, c.notWant)) {
			t.Errorf("%s: error findings %q: want one naming %q (and none saying %q)", c.name, errs, c.want, c.notWant)
		}
	}
}
