package main

import (
	"fmt"

	"github.com/rotary-go/rotary/safetensors"
)

// positionsAudio reads the Omni families' audio lengths: audio_seqlens or
// audio_feature_lengths (an integer type, [N]: feature frames per audio), or
// feature_attention_mask (an integer type or BOOL, [N, F]), whose row sums are the lengths
// (Qwen2_5OmniThinkerForConditionalGeneration: audio_feature_lengths =
// feature_attention_mask.sum(-1)). None of them: nil. More than one: an error.
func positionsAudio(f *safetensors.File) ([]int64, error) {
	var found []safetensors.Tensor
	for _, name := range []string{"audio_seqlens", "audio_feature_lengths", "feature_attention_mask"} {
		if t, ok := f.Get(name); ok {
			found = append(found, t)
		}
	}
	switch len(found) {
	case 0:
		return nil, nil
	case 1:
	default:
		return nil, fmt.Errorf("%s and %s: give the audio lengths once", found[0].Name, found[1].Name)
	}
	t := found[0]
	if t.Name == "feature_attention_mask" {
		if len(t.Shape) != 2 {
			return nil, fmt.Errorf("feature_attention_mask: shape %v: want [N, frames]", t.Shape)
		}
		flat, err := positionsInts(t)
		if err != nil {
			return nil, err
		}
		lens := make([]int64, t.Shape[0])
		for i := range lens {
			for j, v := range flat[i*t.Shape[1] : (i+1)*t.Shape[1]] {
				if v != 0 && v != 1 {
					return nil, fmt.Errorf("feature_attention_mask[%d][%d] = %d: want 0 or 1", i, j, v)
				}
				lens[i] += v
			}
		}
		return lens, nil
	}
	if len(t.Shape) != 1 {
		return nil, fmt.Errorf("%s: shape %v: want [N]", t.Name, t.Shape)
	}
	return positionsInts(t)
}
