package hf

import (
	"errors"
	"testing"

	"github.com/rotary-go/rotary"
)

// TestNTKScaling: rope_type "ntk" as vLLM's get_rope reads it (rotary_embedding/__init__.py at
// 07b12f1b16d5568eeb29a52fd8c9296a51f478ed): factor required, mixed_b optional.
func TestNTKScaling(t *testing.T) {
	const cfg = `{"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "rope_scaling": `
	m := mustParse(t, cfg+`{"rope_type": "ntk", "factor": 4}}`)
	if sc := m.Spec.Scaling; sc.Type != rotary.ScalingNTK || sc.Factor != 4 || sc.NTKMixed {
		t.Errorf("fixed: %+v", sc)
	}
	for _, c := range []string{`{"rope_type": "ntk", "factor": 4, "mixed_b": 0.625}`, `{"type": "ntk", "factor": 4, "mixed_b": 0.625}`} {
		m = mustParse(t, cfg+c+`}`)
		if sc := m.Spec.Scaling; sc.Type != rotary.ScalingNTK || sc.Factor != 4 || !sc.NTKMixed || sc.MixedB != 0.625 {
			t.Errorf("%s: %+v", c, sc)
		}
	}
	m = mustParse(t, cfg+`{"rope_type": "ntk", "factor": 4, "mixed_b": null}}`)
	if m.Spec.Scaling.NTKMixed {
		t.Errorf("mixed_b null: mixed, want the fixed form (vLLM: rope_parameters.get(\"mixed_b\") is None)")
	}
	for _, c := range []string{`{"rope_type": "ntk"}`, `{"rope_type": "ntk", "factor": 4, "mixed_b": "x"}`, `{"rope_type": "ntk", "factor": 0}`} {
		if _, err := Parse([]byte(cfg + c + `}`)); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: err %v, want ErrConfig", c, err)
		}
	}
}
