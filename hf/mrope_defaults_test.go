package hf

import (
	"slices"
	"testing"

	"github.com/rotary-go/rotary/rope"
)

// TestGLM4VDefaultSections: a GLM-4.1V or GLM-4.5V config without mrope_section takes the
// rotary embeddings' default [8, 12, 12] (Glm4vTextRotaryEmbedding, Glm4vMoeTextRotaryEmbedding:
// rope_parameters.get("mrope_section", [8, 12, 12])), chunked, on half of the 128-wide head.
func TestGLM4VDefaultSections(t *testing.T) {
	for _, c := range []struct {
		mt    string
		style rope.Style
	}{{"glm4v", rope.GPTJ}, {"glm4v_moe", rope.NeoX}} {
		js := `{"model_type": "` + c.mt + `", "text_config": {"model_type": "` + c.mt + `_text", "hidden_size": 4096,
		  "num_attention_heads": 32, "num_key_value_heads": 2, "rope_theta": 10000, "max_position_embeddings": 65536}}`
		m, err := Parse([]byte(js))
		if err != nil {
			t.Fatalf("%s: %v", c.mt, err)
		}
		s := m.Spec
		if s.MRoPE == nil || !slices.Equal(s.MRoPE.Sections, []int{8, 12, 12}) || s.MRoPE.Interleaved || s.RotaryDim != 64 || s.Style != c.style {
			t.Errorf("%s: rotary dim %d, style %v, mrope %+v", c.mt, s.RotaryDim, s.Style, s.MRoPE)
		}
	}
}
