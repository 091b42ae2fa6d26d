package check

import "testing"

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{
		"Type": "type", "OriginalMaxPositions": "original_max_positions", "NTKMixed": "ntk_mixed",
		"MixedB": "mixed_b", "MscaleAllDim": "mscale_all_dim", "LongRoPEFactorFromLengths": "long_rope_factor_from_lengths",
		"NoRoPE": "no_rope", "MRoPE": "mrope", "LayerTypes": "layer_types", "ChunkSize": "chunk_size", "HeadSize": "head_size",
		"A1B": "a1_b", "URL": "url",
	} {
		if got := snakeCase(in); got != want {
			t.Errorf("snakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}
