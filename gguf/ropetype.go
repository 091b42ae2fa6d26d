package gguf

import (
	"fmt"
)

// RopeType is llama.cpp's llama_rope_type, numbered as ggml's GGML_ROPE_TYPE_* mode bits.
type RopeType int

// The rope types. Norm rotates adjacent pairs (2i, 2i+1), GPT-J's layout; the others pair i
// with i + n_rot/2, NeoX's. MRoPE and IMRoPE split the pairs among position axes, in chunks
// (Qwen2-VL) or interleaved (Qwen3-VL); Vision is the Qwen2-VL vision tower's 2D form.
const (
	RopeNone   RopeType = -1
	RopeNorm   RopeType = 0
	RopeNeoX   RopeType = 2
	RopeMRoPE  RopeType = 8
	RopeVision RopeType = 24
	RopeIMRoPE RopeType = 40
)

func (t RopeType) String() string {
	switch t {
	case RopeNone:
		return "none"
	case RopeNorm:
		return "norm"
	case RopeNeoX:
		return "neox"
	case RopeMRoPE:
		return "mrope"
	case RopeVision:
		return "vision"
	case RopeIMRoPE:
		return "imrope"
	}
	return fmt.Sprintf("RopeType(%d)", int(t))
}

// archRopeTypes is llama_model_rope_type (src/llama-model.cpp) keyed by the architecture
// names of LLM_ARCH_NAMES (src/llama-arch.cpp), entry for entry as at llama.cpp 82bb48500
// (master, 2026-08-07). glm4, glm4moe and hunyuan_vl depend on the file (archRopeType); dflash
// depends on a hyperparameter this reader does not derive (dsv4_hc_mult) and is left out, as
// is every architecture added upstream since. A few builders rotate otherwise than their
// entry says (builderNoRoPE, deepseekOCR).
var archRopeTypes = map[string]RopeType{}

func init() {
	for t, names := range map[RopeType][]string{
		RopeNone: {"clip", "gpt2", "gptj", "mpt", "refact", "bloom", "mamba", "mamba2", "jamba",
			"jina-bert-v2", "t5", "t5encoder", "jais", "rwkv6", "rwkv6qwen2", "rwkv7", "arwkv7",
			"wavtokenizer-dec", "nemotron_h", "nemotron_h_moe", "kimi-linear"},
		RopeNorm: {"llama", "llada", "llama4", "deci", "baichuan", "starcoder", "internlm2", "minicpm",
			"xverse", "command-r", "cohere2", "cohere2moe", "olmo", "arctic", "deepseek", "deepseek2",
			"deepseek2-ocr", "deepseek32", "deepseek4", "plm", "chatglm", "granite", "granitemoe",
			"granitehybrid", "chameleon", "bailingmoe", "neo-bert", "smollm3", "arcee", "ernie4_5",
			"ernie4_5-moe", "mistral3", "eagle3", "mistral4", "llama-embed", "maincoder", "glm-dsa",
			"nanbeige"},
		RopeNeoX: {"falcon", "falcon-h1", "grok", "dbrx", "bert", "jina-bert-v3", "modern-bert",
			"nomic-bert", "nomic-bert-moe", "eurobert", "stablelm", "bitnet", "qwen", "qwen2", "dream",
			"qwen2moe", "qwen3", "qwen3moe", "llada-moe", "rnd1", "olmo2", "olmoe", "phi2", "phi3",
			"phimoe", "plamo", "plamo2", "plamo3", "gemma", "gemma2", "gemma3", "gemma3n", "gemma4",
			"gemma4-assistant", "gemma-embedding", "starcoder2", "openelm", "gptneox", "codeshell",
			"orion", "nemotron", "exaone", "exaone4", "exaone-moe", "minicpm3", "bailingmoe2", "dots1",
			"hunyuan-moe", "jais2", "gpt-oss", "hunyuan-dense", "hy_v3", "lfm2", "lfm2moe",
			"smallthinker", "seed_oss", "grovemoe", "apertus", "minimax-m2", "minimax-m3", "cogvlm",
			"pangu-embedded", "afmoe", "laguna", "qwen3next", "mimo2", "step35", "talkie", "mellum"},
		RopeMRoPE:  {"qwen2vl", "paddleocr"},
		RopeIMRoPE: {"qwen3vl", "qwen3vlmoe", "qwen35", "qwen35moe", "qwen3tts"},
	} {
		for _, n := range names {
			archRopeTypes[n] = t
		}
	}
}

// visionProjectors are the clip.projector_type values (PROJECTOR_TYPE_NAMES,
// tools/mtmd/clip-impl.h) whose vision graph clip.cpp builds with ggml_rope_multi and
// GGML_ROPE_TYPE_VISION (tools/mtmd/models/qwen2vl.cpp, qwen3vl.cpp, glm4v.cpp, paddleocr.cpp,
// dotsocr.cpp, exaone4_5.cpp, mimovl.cpp, youtuvl.cpp; llama.cpp 82bb48500).
var visionProjectors = map[string]bool{
	"qwen2vl_merger": true, "qwen2.5vl_merger": true, "qwen3vl_merger": true, "glm4v": true,
	"paddleocr": true, "dots_ocr": true, "exaone4_5": true, "mimovl": true, "youtuvl": true,
}

// RopeType returns the file's general.architecture and the rope type llama.cpp gives it. A
// clip (mmproj) file is Vision when its projector is one clip.cpp rotates that way.
func (f *File) RopeType() (string, RopeType, error) {
	v, ok := f.Get("general.architecture")
	if !ok {
		return "", RopeNone, invalidf("general.architecture: missing")
	}
	arch, ok := v.Str()
	if !ok {
		return "", RopeNone, invalidf("general.architecture is %s: want a string", v.TypeName())
	}
	switch arch {
	case "clip":
		for _, key := range []string{"clip.projector_type", "clip.vision.projector_type"} {
			if p, ok := f.Get(key); ok {
				if s, _ := p.Str(); visionProjectors[s] {
					return arch, RopeVision, nil
				}
			}
		}
		return arch, RopeNone, nil
	case "glm4", "glm4moe", "hunyuan_vl":
		// llama_hparams::use_mrope: MRoPE when the file gives the first two sections.
		if s, err := f.sections(arch); err == nil && len(s) >= 2 && s[0] > 0 && s[1] > 0 {
			return arch, RopeMRoPE, nil
		}
		if arch == "glm4" {
			return arch, RopeNorm, nil
		}
		return arch, RopeNeoX, nil
	}
	t, ok := archRopeTypes[arch]
	if !ok {
		return arch, RopeNone, fmt.Errorf("%w: general.architecture %q: not in llama.cpp's rope type table (llama_model_rope_type) as this reader knows it", ErrUnsupported, arch)
	}
	return arch, t, nil
}

// Pairing says which elements of a head t pairs for rotation; for a value that is none of the
// rope types above, that its pairs are unknown.
func (t RopeType) Pairing() string {
	switch t {
	case RopeNone:
		return "no pairs: nothing rotates"
	case RopeNorm:
		return "adjacent pairs 2i, 2i+1"
	case RopeNeoX, RopeVision:
		return "pairs i, i+n_rot/2"
	case RopeMRoPE:
		return "pairs i, i+n_rot/2, sections in chunks"
	case RopeIMRoPE:
		return "pairs i, i+n_rot/2, sections interleaved"
	}
	return "pairs unknown: not a rope type llama.cpp names"
}
