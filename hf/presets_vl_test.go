package hf

import (
	"testing"

	"github.com/rotary-go/rotary"
)

// The wants of the presets of the multimodal families (GLM-4.5V, Qwen3-Omni, HunyuanOCR): the
// text tower each one's positions rotate, read from the nested text_config as HF reads it; and
// gpt-oss-120b, whose every layer rotates alike whether sliding or full.
func init() {
	for name, w := range map[string]want{
		"qwen3-omni-30b-a3b-instruct": {modelType: "qwen3_omni_moe_text", top: "qwen3_omni_moe_thinker", layers: 48, heads: 32, kv: 4, head: 128, rot: 128, base: 1e6,
			style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 65536, mropeSections: []int{24, 20, 20}, mropeInterleaved: true},
		"glm-4.5v": {modelType: "glm4v_moe_text", top: "glm4v_moe", layers: 46, heads: 96, kv: 8, head: 128, rot: 64, base: 10000,
			style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 65536, mropeSections: []int{8, 12, 12}},
		"hunyuan-ocr-1.5": {modelType: "hunyuan_vl_text", top: "hunyuan_vl", layers: 24, heads: 16, kv: 8, head: 128, rot: 128, base: 10000,
			style: rotary.NeoX, scaling: rotary.ScalingNTKAlpha, maxPos: 131072, mropeSections: []int{16, 16, 16, 16},
			check: func(t *testing.T, m *Model) {
				if a := m.Spec.Scaling.Alpha; a != 1000 {
					t.Errorf("alpha %v, want 1000", a)
				}
			}},
		"gpt-oss-120b": {modelType: "gpt_oss", layers: 36, heads: 64, kv: 8, head: 64, rot: 64, base: 150000,
			style: rotary.NeoX, scaling: rotary.ScalingYaRN, maxPos: 131072, factor: 32, orig: 4096,
			check: func(t *testing.T, m *Model) {
				sc := m.Spec.Scaling
				if !sc.NoTruncate || sc.BetaFast != 32 || sc.BetaSlow != 1 {
					t.Errorf("yarn params = %+v, want truncate false, beta 32/1", sc)
				}
				if m.Spec.Local != nil {
					t.Errorf("gpt-oss has the same RoPE in every layer, got Local %+v", m.Spec.Local)
				}
			}},
	} {
		presetWants[name] = w
	}
}
