package gguf

import (
	"errors"
	"strings"
	"testing"
)

// TestPerLayerRules: architectures whose loader and graph give some layers another RoPE (a
// sliding-window base of 10000 or unscaled frequencies, another n_rot, or no RoPE), as at
// llama.cpp 82bb48500 (src/models/<arch>.cpp load_arch_hparams and graph), are refused naming
// the architecture, when the file makes the rule apply; otherwise they derive.
func TestPerLayerRules(t *testing.T) {
	swa := func(arch string) []KV { return []KV{{arch + ".attention.sliding_window", U32(4096)}} }
	for _, c := range []struct {
		arch    string
		extra   []KV
		refused bool
	}{
		{"gemma3", swa("gemma3"), true},
		{"gemma3", nil, false},
		{"gemma3n", nil, true},
		{"gemma4", nil, true},
		{"gemma4-assistant", nil, true},
		{"gemma-embedding", nil, true},
		{"cohere2", nil, true},
		{"cohere2moe", nil, true},
		{"afmoe", nil, true},
		{"laguna", nil, true},
		{"mimo2", nil, true},
		{"step35", nil, true},
		{"deepseek4", nil, true},
		{"modern-bert", swa("modern-bert"), true},
		{"modern-bert", nil, false},
		{"plamo3", swa("plamo3"), true},
		{"plamo3", nil, false},
		// olmo2 and mellum rotate sliding-window layers plain (freq_scale 1, ext_factor 0,
		// attn_factor 1 in the graph): per-layer only when the file scales.
		{"olmo2", append(swa("olmo2"), KV{"olmo2.rope.scaling.type", Str("yarn")}, KV{"olmo2.rope.scaling.factor", F32(8)}), true},
		{"olmo2", swa("olmo2"), false},
		{"olmo2", []KV{{"olmo2.rope.scaling.type", Str("yarn")}, {"olmo2.rope.scaling.factor", F32(8)}}, false},
		{"mellum", append(swa("mellum"), KV{"mellum.rope.scaling.factor", F32(2)}), true},
		{"smallthinker", swa("smallthinker"), true},
		{"smallthinker", nil, false},
		// Loaders that give sliding-window layers the full layers' base and scale.
		{"gemma2", swa("gemma2"), false},
		{"gpt-oss", swa("gpt-oss"), false},
		{"mellum", swa("mellum"), false},
	} {
		_, err := model(t, c.arch, 8192, 4096, 32, c.extra)
		switch {
		case c.refused && (!errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), `"`+c.arch+`"`)):
			t.Errorf("%s %v: %v, want ErrUnsupported naming the architecture", c.arch, c.extra, err)
		case !c.refused && err != nil:
			t.Errorf("%s %v: %v", c.arch, c.extra, err)
		}
	}
	// exaone4's loader turns sliding windows on for its 64-layer (32B) model only.
	for layers, refused := range map[uint32]bool{64: true, 30: false} {
		f, err := Parse(mustWrite(t, []KV{
			{"general.architecture", Str("exaone4")}, {"exaone4.context_length", U32(8192)},
			{"exaone4.embedding_length", U32(4096)}, {"exaone4.attention.head_count", U32(32)},
			{"exaone4.block_count", U32(layers)},
		}, nil))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.RoPE(); (err != nil) != refused || (refused && !errors.Is(err, ErrUnsupported)) {
			t.Errorf("exaone4 with %d layers: %v, refused %v", layers, err, refused)
		}
	}
}
