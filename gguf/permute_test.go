package gguf

import "testing"

// TestConverterPermutesQK: the converter's q/k reordering per architecture, as the classes of
// conversion/*.py (llama.cpp 82bb48500) that write each architecture do it: LlamaModel's
// undo_permute (kept by its subclasses, turned off by Llama4Model, ApertusModel and the
// Mistral-format MistralModel, bypassed by AfmoeModel's modify_tensors) and the
// architectures' own permute or _reverse_hf_permute.
func TestConverterPermutesQK(t *testing.T) {
	for _, arch := range []string{"llama", "deci", "mistral3", "arcee", "smollm3", "granite", "granitemoe",
		"granitehybrid", "minicpm", "baichuan", "xverse", "internlm2", "deepseek", "arctic", "olmo",
		"bailingmoe", "llada", "chameleon", "llama-embed", "eagle3", "nanbeige"} {
		if !ConverterPermutesQK(arch) {
			t.Errorf("%s: the converter permutes its q/k", arch)
		}
	}
	for _, arch := range []string{"llama4", "apertus", "afmoe", "cogvlm", "deepseek2", "mistral4", "qwen2", "olmo2", "bailingmoe2", "nosuch", ""} {
		if ConverterPermutesQK(arch) {
			t.Errorf("%s: the converter keeps its q/k layout", arch)
		}
	}
}
