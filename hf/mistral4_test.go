package hf

import (
	"testing"

	"github.com/rotary-go/rotary"
)

// TestMistral4: Mistral4Config (configuration_mistral4.py) and Mistral4Attention
// (modeling_mistral4.py) at transformers decba1d: MLA whose qk_rope_head_dim part rotates, with
// interleaved pairs unless rope_interleave is false (apply_rotary_pos_emb_interleave); YaRN over
// that part (partial_rotary_factor qk_rope/(qk_nope + qk_rope) of head_dim); queries scaled by
// llama_4_scaling_beta after RoPE; the config class's rope_parameters when the file has none.
func TestMistral4(t *testing.T) {
	const params = `"rope_parameters": {"type": "yarn", "rope_theta": 10000.0, "factor": 128.0, "original_max_position_embeddings": 8192,
		"max_position_embeddings": 1048576, "beta_fast": 32.0, "beta_slow": 1.0, "mscale_all_dim": 1.0, "mscale": 1.0,
		"llama_4_scaling_beta": 0.1, "partial_rotary_factor": 0.5}`
	for _, c := range []struct {
		name, cfg string
		style     rotary.Style
	}{
		{"as the config class writes it", `{"model_type": "mistral4", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 32,
			"num_hidden_layers": 36, "qk_rope_head_dim": 64, "qk_nope_head_dim": 64, "max_position_embeddings": 1048576, ` + params + `}`, rotary.GPTJ},
		{"rope_interleave false", `{"model_type": "mistral4", "hidden_size": 4096, "num_attention_heads": 32, "qk_rope_head_dim": 64,
			"rope_interleave": false, ` + params + `}`, rotary.NeoX},
		{"defaults", `{"model_type": "mistral4"}`, rotary.GPTJ},
	} {
		m := mustParse(t, c.cfg)
		s := m.Spec
		sc := s.Scaling
		if s.HeadSize != 64 || s.RotaryDim != 64 || s.Style != c.style || s.Base != 10000 || s.MaxPositions != 1048576 {
			t.Errorf("%s: head %d rotary %d style %v base %v max %d, want 64 64 %v 10000 1048576", c.name, s.HeadSize, s.RotaryDim, s.Style, s.Base, s.MaxPositions, c.style)
		}
		if sc.Type != rotary.ScalingYaRN || sc.Factor != 128 || sc.OriginalMaxPositions != 8192 || sc.Mscale != 1 || sc.MscaleAllDim != 1 {
			t.Errorf("%s: scaling %+v, want yarn 128 over 8192, mscale 1/1", c.name, sc)
		}
		if q := m.Spec.QueryScale; q.Kind != rotary.QueryScaleBeta || q.Beta != 0.1 || q.OriginalMax != 8192 {
			t.Errorf("%s: query scale %+v, want beta 0.1 over 8192", c.name, q)
		}
		if _, att := s.Frequencies(-1); att != 1 {
			t.Errorf("%s: attention factor %v, want 1 (mscale / mscale_all_dim)", c.name, att)
		}
	}
}
