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
