package gguf

import (
	"fmt"
	"math"

	"github.com/rotary-go/rotary/rope"
)

// builderNoRoPE are architectures that llama_model_rope_type gives a rope type but whose graph
// builder never rotates (llama.cpp 82bb48500, 2026-08-07): starcoder adds learned position
// embeddings (src/models/starcoder.cpp), and bert's builder rotates only for nomic-bert,
// nomic-bert-moe and jina-bert-v3 (src/models/bert.cpp, llama_model_bert::graph).
var builderNoRoPE = map[string]string{
	"starcoder": "its builder adds learned position embeddings (src/models/starcoder.cpp)",
	"bert":      "its builder rotates only nomic-bert, nomic-bert-moe and jina-bert-v3 (src/models/bert.cpp)",
}

// deepseekOCR is deepseek2-ocr as llama_model_deepseek2::graph rotates it (the is_ocr branch
// of src/models/deepseek2.cpp, llama.cpp 82bb48500): GGML_ROPE_TYPE_NEOX over the whole
// n_embd/n_head head, freq_scale 1, ext_factor 0 and attn_factor 1 whatever the file's rope
// type (norm) and scaling keys say; the builder asserts that head is the key length and that
// freq_base is 10000.
func (f *File) deepseekOCR(r *RoPE, embd, heads, headK int64, base float64, ctx int) (*RoPE, error) {
	head := embd / heads
	if headK != head {
		return nil, invalidf("%s = %d: llama.cpp's deepseek2-ocr builder requires the key length n_embd/n_head = %d", fmt.Sprintf(keyKeyLength, r.Arch), headK, head)
	}
	if math.Abs(base-10000) >= 1e-4 {
		return nil, invalidf("%s = %v: llama.cpp's deepseek2-ocr builder requires 10000", fmt.Sprintf(keyFreqBase, r.Arch), base)
	}
	r.Notes = append(r.Notes, "deepseek2-ocr: llama.cpp's builder rotates the whole head with NeoX pairs and no frequency scaling, whatever the rope type (norm) and scaling keys say")
	s := rope.Spec{HeadSize: int(head), RotaryDim: int(head), Base: base, Style: rope.NeoX, MaxPositions: ctx,
		Scaling: rope.Scaling{Type: rope.ScalingDefault}}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	r.Spec = s
	return r, nil
}

// ropeSwitchArchs are the architectures whose loader reads rope.scaling.finetuned as a switch
// for RoPE, true when absent, and whose graph (llama_model_granite::graph) rotates only when
// it is true (src/models/granite.cpp, granite-moe.cpp, granite-hybrid.cpp at llama.cpp
// 82bb48500). The converter writes false for Granite 4.0's hybrid models, which use no RoPE
// (conversion/granite.py GraniteHybridModel.set_gguf_parameters).
var ropeSwitchArchs = map[string]bool{"granite": true, "granitemoe": true, "granitehybrid": true}

// ropeSwitchedOff reports an error wrapping ErrNoRoPE when arch's loader turns RoPE off.
func (f *File) ropeSwitchedOff(arch string) error {
	if !ropeSwitchArchs[arch] {
		return nil
	}
	key := fmt.Sprintf(keyScalingFinetuned, arch)
	v, ok := f.Get(key)
	if !ok {
		return nil
	}
	on, isBool := v.Bool()
	if !isBool {
		return invalidf("%s is %s: want a bool", key, v.TypeName())
	}
	if !on {
		return fmt.Errorf("%w: architecture %q: %s is false, which llama.cpp's %s graph reads as no RoPE", ErrNoRoPE, arch, key, arch)
	}
	return nil
}
