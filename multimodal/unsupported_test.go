package multimodal

import (
	"strings"
	"testing"
)

// TestUnsupportedRefused: MiniCPM-V 4.6 and 4.7 wrap a Qwen3.5 text model but position their
// image and video tokens by canvas M-RoPE, which this package does not compute: the wrapper's
// model_type is refused with that reason, for KindForModelType and ConfigFromJSON alike, while
// the text model's own type keeps its family.
func TestUnsupportedRefused(t *testing.T) {
	for _, mt := range []string{"minicpmv4_6", "minicpmv4_7"} {
		if k, err := KindForModelType(mt); err == nil || !strings.Contains(err.Error(), "compute_canvas_rope_index") {
			t.Errorf("KindForModelType(%q) = %v, %v: want the canvas M-RoPE refusal", mt, k, err)
		}
		cfg := `{"model_type": "` + mt + `", "text_config": {"model_type": "qwen3_5_text"}}`
		if _, err := ConfigFromJSON([]byte(cfg)); err == nil || !strings.Contains(err.Error(), "canvas M-RoPE") {
			t.Errorf("ConfigFromJSON(%s) error %v: want the canvas M-RoPE refusal", mt, err)
		}
	}
	if k, err := KindForModelType("qwen3_5_text"); err != nil || k != Qwen35 {
		t.Errorf("KindForModelType(qwen3_5_text) = %v, %v: want qwen3_5", k, err)
	}
}
