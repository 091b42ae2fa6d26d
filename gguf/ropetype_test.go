package gguf

import "testing"

// TestRopeTypeTable: a sample of llama_model_rope_type (src/llama-model.cpp, llama.cpp
// 82bb48500, 2026-08-07) per rope type, including the architectures added upstream last.
func TestRopeTypeTable(t *testing.T) {
	for arch, want := range map[string]RopeType{
		"llama": RopeNorm, "deepseek2": RopeNorm, "nanbeige": RopeNorm, "chameleon": RopeNorm,
		"qwen2": RopeNeoX, "gpt-oss": RopeNeoX, "minimax-m2": RopeNeoX, "minimax-m3": RopeNeoX,
		"qwen2vl": RopeMRoPE, "paddleocr": RopeMRoPE,
		"qwen3vl": RopeIMRoPE, "qwen35moe": RopeIMRoPE, "qwen3tts": RopeIMRoPE,
		"gpt2": RopeNone, "kimi-linear": RopeNone,
	} {
		f, err := Parse(mustWrite(t, []KV{{"general.architecture", Str(arch)}}, nil))
		if err != nil {
			t.Fatal(err)
		}
		if got, rt, err := f.RopeType(); err != nil || got != arch || rt != want {
			t.Errorf("%s: %q %s %v, want %s", arch, got, rt, err, want)
		}
	}
}

// TestVisionProjectors: the clip.projector_type values whose clip.cpp graph rotates with
// GGML_ROPE_TYPE_VISION (tools/mtmd/clip.cpp's builder switch and tools/mtmd/models/*.cpp,
// llama.cpp 82bb48500), and one that does not (pixtral rotates with its own 2D RoPE).
func TestVisionProjectors(t *testing.T) {
	for p, want := range map[string]RopeType{
		"qwen2vl_merger": RopeVision, "qwen2.5vl_merger": RopeVision, "qwen3vl_merger": RopeVision,
		"glm4v": RopeVision, "paddleocr": RopeVision, "dots_ocr": RopeVision, "exaone4_5": RopeVision,
		"mimovl": RopeVision, "youtuvl": RopeVision, "pixtral": RopeNone,
	} {
		f, err := Parse(mustWrite(t, []KV{{"general.architecture", Str("clip")}, {"clip.projector_type", Str(p)}}, nil))
		if err != nil {
			t.Fatal(err)
		}
		if _, rt, err := f.RopeType(); err != nil || rt != want {
			t.Errorf("projector %s: %s %v, want %s", p, rt, err, want)
		}
	}
}

// TestRopeTypePairing: each rope type names its pairs as RopeType's doc says: Norm adjacent
// ones (GPT-J's layout), the others i with i + n_rot/2 (NeoX's), MRoPE's by sections; a value
// that is none of them claims no pairing.
func TestRopeTypePairing(t *testing.T) {
	for rt, want := range map[RopeType]string{
		RopeNone:     "no pairs: nothing rotates",
		RopeNorm:     "adjacent pairs 2i, 2i+1",
		RopeNeoX:     "pairs i, i+n_rot/2",
		RopeMRoPE:    "pairs i, i+n_rot/2, sections in chunks",
		RopeIMRoPE:   "pairs i, i+n_rot/2, sections interleaved",
		RopeVision:   "pairs i, i+n_rot/2",
		RopeType(1):  "pairs unknown: not a rope type llama.cpp names",
		RopeType(-2): "pairs unknown: not a rope type llama.cpp names",
	} {
		if got := rt.Pairing(); got != want {
			t.Errorf("%v: %q, want %q", rt, got, want)
		}
	}
}
