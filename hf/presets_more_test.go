package hf

import (
	"testing"

	"github.com/rotary-go/rotary"
)

// The wants of further presets, each read from public copies or transcriptions of its model's
// config.json (the preset's _comment names them), with the layers checked where a family can
// differ by layer.
func init() {
	for name, w := range map[string]want{
		// EXAONE 4.0 1.2B: every layer full attention and sliding_window null, so no layer is
		// NoPE (transformers models/exaone4/modeling_exaone4.py Exaone4Attention: RoPE unless
		// the layer is full attention with a sliding window configured).
		"exaone-4.0-1.2b": {modelType: "exaone4", layers: 30, heads: 32, kv: 8, head: 64, rot: 64, base: 1e6,
			style: rotary.NeoX, scaling: rotary.ScalingLlama3, maxPos: 65536, factor: 16, orig: 8192, localTypes: true,
			check: func(t *testing.T, m *Model) {
				if sc := m.Spec.Scaling; sc.LowFreqFactor != 1 || sc.HighFreqFactor != 4 {
					t.Errorf("low/high freq factor = %v/%v, want 1/4", sc.LowFreqFactor, sc.HighFreqFactor)
				}
				checkLayers(t, m, rotary.NeoX, repeat(30, rotates(1e6, rotary.ScalingLlama3, 64)))
			}},
		"internlm3-8b-instruct": {modelType: "internlm3", layers: 48, heads: 32, kv: 2, head: 128, rot: 128, base: 5e7,
			style: rotary.NeoX, scaling: rotary.ScalingDynamic, maxPos: 32768, factor: 6},
		"qwen3-coder-30b-a3b-instruct": {modelType: "qwen3_moe", layers: 48, heads: 32, kv: 4, head: 128, rot: 128, base: 1e7,
			style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 262144},
		"apertus-8b-instruct-2509": {modelType: "apertus", layers: 32, heads: 32, kv: 8, head: 128, rot: 128, base: 1.2e7,
			style: rotary.NeoX, scaling: rotary.ScalingLlama3, maxPos: 65536, factor: 8, orig: 8192,
			check: func(t *testing.T, m *Model) {
				if sc := m.Spec.Scaling; sc.LowFreqFactor != 1 || sc.HighFreqFactor != 4 {
					t.Errorf("low/high freq factor = %v/%v, want 1/4", sc.LowFreqFactor, sc.HighFreqFactor)
				}
			}},
		"seed-oss-36b-instruct": {modelType: "seed_oss", layers: 64, heads: 80, kv: 8, head: 128, rot: 128, base: 1e7,
			style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 524288},
	} {
		presetWants[name] = w
	}
}
