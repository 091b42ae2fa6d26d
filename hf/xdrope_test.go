package hf

import (
	"slices"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/rope"
)

// TestHunYuanVLXDRoPE: a HunYuan-VL config as published (rope_scaling type "xdrope" with alpha
// and xdrope_section) reads as HunYuanVLTextConfig normalises it: NTK-alpha, chunked MRoPE over
// the four sections, rotate_half pairs.
func TestHunYuanVLXDRoPE(t *testing.T) {
	js := `{"model_type": "hunyuan_vl", "text_config": {"model_type": "hunyuan_vl_text", "hidden_size": 256,
	  "num_attention_heads": 2, "num_key_value_heads": 2, "head_dim": 128, "max_position_embeddings": 32768,
	  "rope_theta": 10000, "rope_scaling": {"alpha": 1000.0, "beta_fast": 32, "beta_slow": 1, "factor": 1.0,
	  "mscale": 1.0, "mscale_all_dim": 1.0, "type": "xdrope", "xdrope_section": [16, 16, 16, 16]}}}`
	m, err := Parse([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	s := m.Spec
	if s.Style != rope.NeoX || s.Scaling.Type != rope.ScalingNTKAlpha || s.Scaling.Alpha != 1000 || s.MRoPE == nil ||
		!slices.Equal(s.MRoPE.Sections, []int{16, 16, 16, 16}) || s.MRoPE.Interleaved || s.MRoPE.AlternateHW {
		t.Errorf("spec %+v, mrope %+v", s, s.MRoPE)
	}
	bad := strings.Replace(js, `"xdrope_section"`, `"mrope_section": [16, 16, 16, 16], "xdrope_section"`, 1)
	if _, err := Parse([]byte(bad)); err != nil {
		t.Errorf("equal mrope_section and xdrope_section: %v", err)
	}
	bad = strings.Replace(js, `"xdrope_section"`, `"mrope_section": [32, 16, 8, 8], "xdrope_section"`, 1)
	if _, err := Parse([]byte(bad)); err == nil || !strings.Contains(err.Error(), "differ") {
		t.Errorf("differing mrope_section and xdrope_section: %v", err)
	}
}
