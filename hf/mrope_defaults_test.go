package hf

import (
	"slices"
	"strings"
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

// TestOmniFamilies: the Omni thinkers' text models rotate rotate_half pairs, Qwen2.5-Omni's
// chunked over the config's mrope_section (Qwen2_5OmniRotaryEmbedding,
// apply_multimodal_rotary_pos_emb), Qwen3-Omni's interleaved with [24, 20, 20] by default
// (Qwen3OmniMoeThinkerTextRotaryEmbedding.apply_interleaved_mrope).
func TestOmniFamilies(t *testing.T) {
	q25, err := Parse([]byte(`{"model_type": "qwen2_5_omni_thinker", "text_config": {"model_type": "qwen2_5_omni_text",
	  "hidden_size": 3584, "num_attention_heads": 28, "num_key_value_heads": 4, "rope_theta": 1000000,
	  "max_position_embeddings": 32768, "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if s := q25.Spec; s.Style != rope.NeoX || q25.StyleAssumed || s.MRoPE == nil || s.MRoPE.Interleaved || !slices.Equal(s.MRoPE.Sections, []int{16, 24, 24}) {
		t.Errorf("qwen2_5_omni: style %v (assumed %v), mrope %+v", s.Style, q25.StyleAssumed, s.MRoPE)
	}
	q3, err := Parse([]byte(`{"model_type": "qwen3_omni_moe_thinker", "text_config": {"model_type": "qwen3_omni_moe_text",
	  "hidden_size": 2048, "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128, "rope_theta": 1000000,
	  "max_position_embeddings": 65536}}`))
	if err != nil {
		t.Fatal(err)
	}
	if s := q3.Spec; s.Style != rope.NeoX || s.MRoPE == nil || !s.MRoPE.Interleaved || !slices.Equal(s.MRoPE.Sections, []int{24, 20, 20}) {
		t.Errorf("qwen3_omni_moe: style %v, mrope %+v", s.Style, s.MRoPE)
	}
}

// TestOmniWholeConfig: a whole Omni config.json (Qwen2_5OmniConfig: the thinker under
// thinker_config, its text model under thinker_config.text_config) reads as its thinker's text
// model, and a bad key is named by its full path.
func TestOmniWholeConfig(t *testing.T) {
	m, err := Parse([]byte(`{"model_type": "qwen2_5_omni", "talker_config": {"hidden_size": 896},
	  "thinker_config": {"model_type": "qwen2_5_omni_thinker", "text_config": {"model_type": "qwen2_5_omni_text",
	  "hidden_size": 3584, "num_attention_heads": 28, "num_key_value_heads": 4, "rope_theta": 1000000,
	  "max_position_embeddings": 32768, "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if m.ModelType != "qwen2_5_omni_text" || m.Spec.HeadSize != 128 || m.Spec.MRoPE == nil || !slices.Equal(m.Spec.MRoPE.Sections, []int{16, 24, 24}) {
		t.Errorf("model type %q, head size %d, mrope %+v", m.ModelType, m.Spec.HeadSize, m.Spec.MRoPE)
	}
	_, err = Parse([]byte(`{"model_type": "qwen2_5_omni", "thinker_config": {"text_config": {"model_type": "qwen2_5_omni_text",
	  "hidden_size": 3584, "num_attention_heads": 0, "rope_theta": 1000000}}}`))
	if err == nil || !strings.Contains(err.Error(), "thinker_config.text_config.num_attention_heads") {
		t.Errorf("zero heads: %v", err)
	}
	if _, err := Parse([]byte(`{"model_type": "qwen2_5_omni", "thinker_config": 3}`)); err == nil || !strings.Contains(err.Error(), "thinker_config") {
		t.Errorf("thinker_config not an object: %v", err)
	}
}
