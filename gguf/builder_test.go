package gguf

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/rope"
)

// TestBuilderOverrides: architectures whose graph builder rotates otherwise than
// llama_model_rope_type says (llama.cpp 82bb48500, 2026-08-07). starcoder's builder adds
// learned position embeddings and never rotates (src/models/starcoder.cpp); bert's rotates
// only for nomic-bert, nomic-bert-moe and jina-bert-v3 (src/models/bert.cpp);
// deepseek2-ocr's rotates the whole n_embd/n_head head with GGML_ROPE_TYPE_NEOX, freq_scale 1
// and no YaRN (src/models/deepseek2.cpp, the is_ocr branch), though its rope type is norm.
func TestBuilderOverrides(t *testing.T) {
	for _, arch := range []string{"starcoder", "bert"} {
		_, err := model(t, arch, 8192, 4096, 32, nil)
		if !errors.Is(err, ErrNoRoPE) || !strings.Contains(err.Error(), `"`+arch+`"`) {
			t.Errorf("%s: %v, want ErrNoRoPE naming the architecture", arch, err)
		}
	}
	if r := mustModel(t, "nomic-bert", 2048, 768, 12, nil); r.Spec.Style != rope.NeoX || r.Spec.RotaryDim != 64 {
		t.Errorf("nomic-bert: %+v", r.Spec)
	}
	// DeepSeek-OCR's language model as DeepseekV2Model converts it: MLA keys are absent and
	// rope.dimension_count is the head size; a YaRN factor in the file is not applied.
	r := mustModel(t, "deepseek2-ocr", 8192, 1280, 10, []KV{
		{"deepseek2-ocr.rope.dimension_count", U32(64)},
		{"deepseek2-ocr.rope.freq_base", F32(10000)},
		{"deepseek2-ocr.rope.scaling.type", Str("yarn")},
		{"deepseek2-ocr.rope.scaling.factor", F32(4)},
	})
	want := rope.Spec{HeadSize: 128, RotaryDim: 128, Base: 10000, Style: rope.NeoX, MaxPositions: 8192,
		Scaling: rope.Scaling{Type: rope.ScalingDefault}}
	if r.Type != RopeNorm || !reflect.DeepEqual(r.Spec, want) || len(r.Notes) == 0 {
		t.Errorf("deepseek2-ocr: %s %+v, notes %q; want norm type rotated as %+v with a note", r.Type, r.Spec, r.Notes, want)
	}
	// The builder asserts freq_base 10000 (GGML_ASSERT): any other base does not load.
	if _, err := model(t, "deepseek2-ocr", 8192, 1280, 10, []KV{{"deepseek2-ocr.rope.freq_base", F32(500000)}}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "10000") {
		t.Errorf("deepseek2-ocr base 500000: %v, want ErrInvalid naming 10000", err)
	}
}

// TestGraniteRoPESwitch: granite, granitemoe and granitehybrid rotate only when
// rope.scaling.finetuned is true, absent meaning true (load_arch_hparams and
// llama_model_granite::graph's use_rope, src/models/granite.cpp, granite-moe.cpp,
// granite-hybrid.cpp); the converter writes false for Granite 4.0's hybrid models
// (conversion/granite.py GraniteHybridModel.set_gguf_parameters). Other architectures ignore
// the key.
func TestGraniteRoPESwitch(t *testing.T) {
	for _, arch := range []string{"granite", "granitemoe", "granitehybrid"} {
		if r := mustModel(t, arch, 8192, 4096, 32, nil); r.Spec.Style != rope.GPTJ {
			t.Errorf("%s without the key: %+v", arch, r.Spec)
		}
		if r := mustModel(t, arch, 8192, 4096, 32, []KV{{arch + ".rope.scaling.finetuned", Bool(true)}}); r.Spec.Style != rope.GPTJ {
			t.Errorf("%s finetuned: %+v", arch, r.Spec)
		}
		_, err := model(t, arch, 8192, 4096, 32, []KV{{arch + ".rope.scaling.finetuned", Bool(false)}})
		if !errors.Is(err, ErrNoRoPE) || !strings.Contains(err.Error(), arch+".rope.scaling.finetuned") {
			t.Errorf("%s not finetuned: %v, want ErrNoRoPE naming the key", arch, err)
		}
	}
	if _, err := model(t, "granite", 8192, 4096, 32, []KV{{"granite.rope.scaling.finetuned", U32(0)}}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "want a bool") {
		t.Errorf("granite finetuned as an integer: %v", err)
	}
	if r := mustModel(t, "llama", 8192, 4096, 32, []KV{{"llama.rope.scaling.finetuned", Bool(false)}}); r.Spec.Style != rope.GPTJ {
		t.Errorf("llama ignores the key: %+v", r.Spec)
	}
}
