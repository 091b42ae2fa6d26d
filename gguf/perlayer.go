package gguf

import "fmt"

// perLayerWhen says when an architecture's per-layer RoPE applies to a file.
type perLayerWhen int

const (
	// always: the loader sets the layer pattern whatever the file says.
	always perLayerWhen = iota
	// withSWA: only when {arch}.attention.sliding_window is above 0.
	withSWA
	// with64Layers: only for a 64-layer model (exaone4's loader hard-codes its 32B model).
	with64Layers
	// withSWAScaled: only with a sliding window and a scaled RoPE (the graph rotates the
	// sliding-window layers plain, with freq_scale 1, ext_factor 0 and attn_factor 1).
	withSWAScaled
)

type perLayerRule struct {
	when perLayerWhen
	rule string
}

// perLayerRules are architectures whose llama.cpp loader and graph give some layers another
// RoPE than the rest, which this reader does not derive: sliding-window layers at
// rope_freq_base_train_swa (10000 unless {arch}.rope.freq_base_swa says) and
// rope_freq_scale_train_swa (1: unscaled) where load_arch_hparams does not set them to the
// full layers' (llama_model::get_rope_freq_base / get_rope_freq_scale), another n_rot, or
// layers without RoPE. Each as at llama.cpp 82bb48500 (2026-08-07), src/models/<arch>.cpp.
// Loaders that copy the base and scale to the sliding-window layers (gemma2, openai-moe,
// exaone-moe, llama4, smallthinker's base) need no rule; a freq_base_swa or
// dimension_count_swa key is refused for every architecture (File.RoPE).
var perLayerRules = map[string]perLayerRule{
	"gemma3":           {withSWA, "sliding-window layers at base 10000 and unscaled (gemma3.cpp)"},
	"gemma3n":          {always, "sliding-window layers at base 10000 and unscaled (gemma3n.cpp)"},
	"gemma4":           {always, "sliding-window layers with their own n_rot, base and scale (gemma4.cpp)"},
	"gemma4-assistant": {always, "sliding-window layers with their own n_rot, base and scale (gemma4-assistant.cpp)"},
	"gemma-embedding":  {always, "sliding-window layers at base 10000 and unscaled (gemma-embedding.cpp)"},
	"modern-bert":      {withSWA, "sliding-window layers at base 10000 and unscaled (modern-bert.cpp)"},
	"plamo3":           {withSWA, "sliding-window layers at base 10000 and unscaled (plamo3.cpp)"},
	"mimo2":            {always, "sliding-window layers (sliding_window_pattern) at base 10000 and unscaled (mimo2.cpp)"},
	"step35":           {always, "sliding-window layers (sliding_window_pattern) with their own n_rot, at base 10000 and unscaled (step35.cpp)"},
	"olmo2":            {withSWAScaled, "sliding-window layers plain, without the scaling (olmo2.cpp)"},
	"mellum":           {withSWAScaled, "sliding-window layers plain, without the scaling (mellum.cpp)"},
	"laguna":           {always, "sliding-window layers with plain RoPE and their own n_rot and base, full layers with YaRN (laguna.cpp)"},
	"deepseek4":        {always, "compressed-attention layers at their own base (deepseek4.cpp, dsv4_compress_rope_base)"},
	"cohere2":          {always, "full-attention layers without RoPE (cohere2.cpp)"},
	"cohere2moe":       {always, "full-attention layers past the leading dense ones without RoPE (cohere2moe.cpp)"},
	"exaone4":          {with64Layers, "full-attention layers without RoPE (exaone4.cpp, sliding windows on the 64-layer model)"},
	"afmoe":            {always, "every n_no_rope_layer_step-th layer without RoPE (afmoe.cpp)"},
	"smallthinker":     {withSWA, "every fourth layer from layer 0 without RoPE (smallthinker.cpp)"},
}

// perLayerRule returns the error for a file whose architecture's per-layer RoPE applies;
// scaled says whether the derived RoPE scales (a withSWAScaled rule applies only then).
func (f *File) perLayerRule(arch string, scaled bool) error {
	rule, ok := perLayerRules[arch]
	if !ok {
		return nil
	}
	switch rule.when {
	case withSWAScaled:
		if !scaled || !f.hasSlidingWindow(arch) {
			return nil
		}
	case withSWA:
		if !f.hasSlidingWindow(arch) {
			return nil
		}
	case with64Layers:
		v, ok := f.Get(fmt.Sprintf(keyBlockCount, arch))
		if !ok {
			return nil
		}
		if n, isInt := v.Int(); isInt && n != 64 {
			return nil
		}
	}
	return unsupportedf("architecture %q: llama.cpp gives some layers another RoPE (%s), which this reader does not derive", arch, rule.rule)
}

// hasSlidingWindow reports whether {arch}.attention.sliding_window is above 0, as the loaders
// test it (a value of another type counts as present, to stay on the refusing side).
func (f *File) hasSlidingWindow(arch string) bool {
	v, ok := f.Get(fmt.Sprintf(keySlidingWindow, arch))
	if !ok {
		return false
	}
	w, isInt := v.Int()
	return !isInt || w > 0
}
