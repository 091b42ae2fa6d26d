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

// TestLongRoPEFactorWarning: a LongRoPE factor that disagrees with max / original is a warning
// naming both attention factors; an agreeing one is not.
func TestLongRoPEFactorWarning(t *testing.T) {
	const cfg = `{"model_type":"phi3","hidden_size":128,"num_attention_heads":8,"max_position_embeddings":131072,"original_max_position_embeddings":4096,
		"rope_theta":10000,"rope_scaling":{"type":"longrope",%s"short_factor":[1,1,1,1,1,1,1,1],"long_factor":[2,2,2,2,2,2,2,2]}}`
	has := func(factor string) bool {
		for _, f := range check.Config([]byte(strings.Replace(cfg, "%s", factor, 1)), check.Launch{}) {
			if f.Code == "longrope-factor" && f.Severity == check.Warning {
				return true
			}
		}
		return false
	}
	if !has(`"factor":2,`) {
		t.Errorf("factor 2 against 131072/4096 = 32: no longrope-factor warning")
	}
	if has(`"factor":32,`) || has(``) {
		t.Errorf("a factor equal to the lengths' ratio, or none: warned")
	}
}
