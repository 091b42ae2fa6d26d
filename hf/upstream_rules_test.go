package hf

import (
	"math"
	"slices"
	"testing"
)

// TestLongRoPEExplicitFactor: HF main's _compute_longrope_parameters takes rope_scaling.factor
// when the config gives one and max_position_embeddings / original otherwise; the attention
// factor is √(1 + ln f / ln original). (v4.57, vLLM and Microsoft's Phi-3 code always take
// max / original: LongRoPEFactorFromLengths.)
func TestLongRoPEExplicitFactor(t *testing.T) {
	factors := `"short_factor":[1,1,1,1,1,1,1,1],"long_factor":[2,2,2,2,2,2,2,2]`
	cases := []struct {
		name, cfg string
		att       float64
	}{
		{"explicit factor, top-level original",
			`{"model_type":"phi3","hidden_size":128,"num_attention_heads":8,"max_position_embeddings":131072,"original_max_position_embeddings":4096,
			"rope_theta":10000,"rope_scaling":{"type":"longrope","factor":2,` + factors + `}}`,
			math.Sqrt(1 + math.Log(2)/math.Log(4096))},
		{"no factor, top-level original",
			`{"model_type":"phi3","hidden_size":128,"num_attention_heads":8,"max_position_embeddings":131072,"original_max_position_embeddings":4096,
			"rope_theta":10000,"rope_scaling":{"type":"longrope",` + factors + `}}`,
			math.Sqrt(1 + math.Log(32)/math.Log(4096))},
		{"no factor, rope-level original",
			`{"model_type":"phi3","hidden_size":128,"num_attention_heads":8,"max_position_embeddings":131072,
			"rope_theta":10000,"rope_scaling":{"type":"longrope","original_max_position_embeddings":4096,` + factors + `}}`,
			math.Sqrt(1 + math.Log(32)/math.Log(4096))},
	}
	for _, c := range cases {
		m := mustParse(t, c.cfg)
		if _, att := m.Spec.Frequencies(-1); math.Abs(att-c.att) > 1e-15 {
			t.Errorf("%s: attention factor %.9f, want HF main's %.9f", c.name, att, c.att)
		}
	}
	m := mustParse(t, cases[0].cfg)
	m.Spec.Scaling.LongRoPEFactorFromLengths = true
	if _, att := m.Spec.Frequencies(-1); math.Abs(att-1.190238) > 1e-6 {
		t.Errorf("factor from the lengths: attention factor %.6f, want 1.190238", att)
	}
}

// TestYaRNNullFactor: HF main's _compute_yarn_parameters derives a null factor as
// max_position_embeddings / original_max_position_embeddings.
func TestYaRNNullFactor(t *testing.T) {
	m := mustParse(t, `{"model_type":"qwen2","hidden_size":1024,"num_attention_heads":8,"max_position_embeddings":131072,
		"rope_theta":1000000,"rope_scaling":{"rope_type":"yarn","factor":null,"original_max_position_embeddings":32768}}`)
	if f := m.Spec.Scaling.Factor; f != 4 {
		t.Errorf("factor %v, want 131072/32768 = 4", f)
	}
	if _, att := m.Spec.Frequencies(-1); math.Abs(att-1.138629) > 1e-6 {
		t.Errorf("attention factor %.6f, want 0.1·ln 4 + 1 = 1.138629", att)
	}
}

// TestQwen3VLDefaultSections: Qwen3VLTextRotaryEmbedding (modeling_qwen3_vl.py) defaults
// mrope_section to [24, 20, 20] and always interleaves.
func TestQwen3VLDefaultSections(t *testing.T) {
	for _, mt := range []string{"qwen3_vl_text", "qwen3_vl_moe_text"} {
		m := mustParse(t, `{"model_type":"`+mt+`","hidden_size":4096,"num_attention_heads":32,"head_dim":128,
			"max_position_embeddings":262144,"rope_theta":5000000}`)
		if m.Spec.MRoPE == nil || !slices.Equal(m.Spec.MRoPE.Sections, []int{24, 20, 20}) || !m.Spec.MRoPE.Interleaved {
			t.Errorf("%s without mrope_section: %+v, want interleaved [24 20 20]", mt, m.Spec.MRoPE)
		}
	}
	// Text-only Qwen3 has no MRoPE.
	if m := mustParse(t, `{"model_type":"qwen3","hidden_size":4096,"num_attention_heads":32,"head_dim":128,"max_position_embeddings":40960}`); m.Spec.MRoPE != nil {
		t.Errorf("qwen3: MRoPE %+v, want none", m.Spec.MRoPE)
	}
}
