package hf

import (
	"testing"

	"github.com/rotary-go/rotary"
)

// The wants of the presets of the 2025–2026 families, each with its layers checked where they
// differ.
func init() {
	for name, w := range map[string]want{
		"gemma-4-31b":     gemma4Want(60, 32, 16, 262144, 6),
		"gemma-4-26b-a4b": gemma4Want(30, 16, 8, 262144, 6),
		"gemma-4-e4b":     gemma4Want(42, 8, 2, 131072, 6),
		"gemma-4-e2b":     gemma4Want(35, 8, 1, 131072, 5),
		"smollm3-3b": {modelType: "smollm3", layers: 36, heads: 16, kv: 4, head: 128, rot: 128, base: 5e6,
			style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 65536, localTypes: true,
			check: func(t *testing.T, m *Model) {
				checkLayers(t, m, rotary.NeoX, repeat(9, rotates(5e6, rotary.ScalingDefault, 128), rotates(5e6, rotary.ScalingDefault, 128), rotates(5e6, rotary.ScalingDefault, 128), nope))
			}},
		"qwen3.5-35b-a3b": {modelType: "qwen3_5_moe_text", top: "qwen3_5_moe", layers: 40, heads: 16, kv: 2, head: 256, rot: 64, base: 1e7,
			style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 262144, mropeSections: []int{11, 11, 10}, mropeInterleaved: true,
			notesContain: "Gated DeltaNet"},
		"qwen3-coder-next": {modelType: "qwen3_next", layers: 48, heads: 16, kv: 2, head: 256, rot: 64, base: 5e6,
			style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 262144, notesContain: "Gated DeltaNet"},
		"ministral-3-3b": {modelType: "ministral3", top: "ministral3", layers: 26, heads: 32, kv: 8, head: 128, rot: 128, base: 1e6,
			style: rotary.NeoX, scaling: rotary.ScalingYaRN, maxPos: 262144, factor: 16, orig: 16384,
			check: func(t *testing.T, m *Model) {
				sc := m.Spec.Scaling
				if sc.Mscale != 1 || sc.MscaleAllDim != 1 || sc.BetaFast != 32 || sc.BetaSlow != 1 {
					t.Errorf("yarn %+v, want mscale 1/1, betas 32/1", sc)
				}
				if q := m.Spec.QueryScale; q.Kind != rotary.QueryScaleBeta || q.Beta != 0.1 || q.OriginalMax != 16384 {
					t.Errorf("query scale %+v, want beta 0.1 over 16384", q)
				}
			}},
		"olmo-3-7b-instruct": {modelType: "olmo3", layers: 32, heads: 32, kv: 32, head: 128, rot: 128, base: 500000,
			style: rotary.NeoX, scaling: rotary.ScalingYaRN, maxPos: 65536, factor: 8, orig: 8192, localBase: 500000, localPattern: 4,
			check: func(t *testing.T, m *Model) {
				if a := m.Spec.Scaling.AttentionFactor; a != 1.2079441541679836 {
					t.Errorf("attention factor %v", a)
				}
				sliding, full := rotates(500000, rotary.ScalingDefault, 128), rotates(500000, rotary.ScalingYaRN, 128)
				checkLayers(t, m, rotary.NeoX, repeat(8, sliding, sliding, sliding, full))
			}},
		"llama-4-scout-17b-16e": {modelType: "llama4_text", top: "llama4", layers: 48, heads: 40, kv: 8, head: 128, rot: 128, base: 500000,
			style: rotary.GPTJ, scaling: rotary.ScalingLlama3, maxPos: 262144, factor: 8, orig: 8192, localTypes: true,
			check: func(t *testing.T, m *Model) {
				r := rotates(500000, rotary.ScalingLlama3, 128)
				checkLayers(t, m, rotary.GPTJ, repeat(12, r, r, r, nope))
				if q := m.Spec.QueryScale; q.Kind != rotary.QueryScaleLlama4 || q.FloorScale != 8192 || q.AttnScale != 0.1 {
					t.Errorf("query scale %+v, want llama4 8192/0.1", q)
				}
			}},
		"deepseek-v3.2-exp": {modelType: "deepseek_v32", layers: 61, heads: 128, kv: 128, head: 64, rot: 64, base: 10000,
			style: rotary.GPTJ, scaling: rotary.ScalingYaRN, maxPos: 163840, factor: 40, orig: 4096, notesContain: "DSA indexer",
			check: func(t *testing.T, m *Model) {
				ix := m.Indexer
				if ix == nil || ix.HeadSize != 128 || ix.RotaryDim != 64 || ix.Style != rotary.NeoX || ix.Base != 10000 || ix.Scaling.Type != rotary.ScalingYaRN {
					t.Errorf("indexer %+v, want head 128, 64 rotated, neox, the MLA's yarn", ix)
				}
			}},
		"minimax-m2": {modelType: "minimax_m2", layers: 62, heads: 48, kv: 8, head: 128, rot: 64, base: 5e6,
			style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 196608, notesContain: "rotary_dim 64 of head size 128"},
		"glm-4.5-air": {modelType: "glm4_moe", layers: 46, heads: 96, kv: 8, head: 128, rot: 64, base: 1e6,
			style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 131072},
		"granite-3.3-8b": {modelType: "granite", layers: 40, heads: 32, kv: 8, head: 128, rot: 128, base: 1e7,
			style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 131072},
		"hunyuan-7b": {modelType: "hunyuan_v1_dense", layers: 32, heads: 32, kv: 8, head: 128, rot: 128, base: 10000,
			style: rotary.NeoX, scaling: rotary.ScalingNTKAlpha, maxPos: 262144,
			check: func(t *testing.T, m *Model) {
				if a := m.Spec.Scaling.Alpha; a != 1000 {
					t.Errorf("alpha %v, want 1000", a)
				}
			}},
	} {
		presetWants[name] = w
	}
}

// gemma4Want: full layers (every period-th) 512-wide with proportional RoPE over 64 pairs at
// theta 1e6, sliding layers 256-wide with default RoPE at theta 10000.
func gemma4Want(layers, heads, kv, maxPos, period int) want {
	return want{modelType: "gemma4_text", top: "gemma4", layers: layers, heads: heads, kv: kv, head: 512, rot: 512, base: 1e6,
		style: rotary.NeoX, scaling: rotary.ScalingProportional, factor: 1, maxPos: maxPos, localTypes: true,
		check: func(t *testing.T, m *Model) {
			sliding := gemma4Layer{head: 256, rot: 256, base: 10000, scaling: rotary.ScalingDefault}
			full := gemma4Layer{head: 512, rot: 512, pairs: 64, base: 1e6, scaling: rotary.ScalingProportional, factor: 1}
			ls := make([]gemma4Layer, layers)
			for l := range ls {
				ls[l] = sliding
				if (l+1)%period == 0 {
					ls[l] = full
				}
			}
			checkGemma4(t, m, ls)
		}}
}
