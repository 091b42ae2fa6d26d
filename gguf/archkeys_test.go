package gguf

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/rope"
)

func hasNote(r *RoPE, sub string) bool {
	for _, n := range r.Notes {
		if strings.Contains(n, sub) {
			return true
		}
	}
	return false
}

// TestYaRNKeysPerArch: the YaRN keys are read only by the load_arch_hparams that read them
// (llama.cpp 82bb48500): yarn_ext_factor and yarn_attn_factor by grok
// (src/models/grok.cpp, whose beta_fast defaults to 8), the betas by grok and mistral3
// (src/models/mistral3.cpp), yarn_log_multiplier by deepseek2, mistral4 and deepseek32
// divided by 0.1 ([TAG_DEEPSEEK2_YARN_LOG_MUL_FIX] in src/models/deepseek2.cpp and
// deepseek32.cpp) and by mistral3 as written. convert_hf_to_gguf's TextModel writes the keys
// for any YaRN config (conversion/base.py), so for every other architecture they are in the
// file and ignored.
func TestYaRNKeysPerArch(t *testing.T) {
	yarn := func(arch string, extra ...KV) []KV {
		return append([]KV{
			{arch + ".rope.scaling.type", Str("yarn")}, {arch + ".rope.scaling.factor", F32(4)},
			{arch + ".rope.scaling.original_context_length", U32(1024)},
		}, extra...)
	}
	ms := func(f, m float64) float64 { return 0.1*m*math.Log(f) + 1 }

	// qwen3 ignores every one of them: YaRN as the type says, betas 32/1.
	r := mustModel(t, "qwen3", 4096, 4096, 32, yarn("qwen3",
		KV{"qwen3.rope.scaling.yarn_ext_factor", F32(0.5)}, KV{"qwen3.rope.scaling.yarn_beta_fast", F32(8)},
		KV{"qwen3.rope.scaling.yarn_beta_slow", F32(2)}, KV{"qwen3.rope.scaling.yarn_log_multiplier", F32(0.707)}))
	sc := r.Spec.Scaling
	if sc.Type != rope.ScalingYaRN || sc.BetaFast != 32 || sc.BetaSlow != 1 || sc.AttentionFactor != ms(4, 1) ||
		!hasNote(r, "yarn_ext_factor") || !hasNote(r, "yarn_beta_fast") || !hasNote(r, "yarn_log_multiplier") {
		t.Errorf("qwen3: %+v, notes %q", sc, r.Notes)
	}
	// A non-YaRN qwen2 file with a yarn_attn_factor: ignored, plain RoPE.
	r = mustModel(t, "qwen2", 4096, 4096, 32, []KV{{"qwen2.rope.scaling.yarn_attn_factor", F32(0.5)}})
	if r.Spec.Scaling.Type != rope.ScalingDefault || !hasNote(r, "yarn_attn_factor") {
		t.Errorf("qwen2 yarn_attn_factor: %+v, notes %q", r.Spec.Scaling, r.Notes)
	}

	// grok: its own beta_fast default and the ext/attn keys.
	r = mustModel(t, "grok", 8192, 6144, 48, yarn("grok"))
	if r.Spec.Scaling.BetaFast != 8 || r.Spec.Scaling.BetaSlow != 1 {
		t.Errorf("grok defaults: %+v", r.Spec.Scaling)
	}
	r = mustModel(t, "grok", 8192, 6144, 48, yarn("grok", KV{"grok.rope.scaling.yarn_beta_fast", F32(16)}))
	if r.Spec.Scaling.BetaFast != 16 {
		t.Errorf("grok beta_fast 16: %+v", r.Spec.Scaling)
	}
	if _, err := model(t, "grok", 8192, 6144, 48, yarn("grok", KV{"grok.rope.scaling.yarn_ext_factor", F32(0.5)})); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "yarn_ext_factor") {
		t.Errorf("grok ext factor 0.5: %v", err)
	}
	// ext factor 0 turns the ramp off: llama.cpp interpolates linearly, without the scale.
	r = mustModel(t, "grok", 8192, 6144, 48, yarn("grok", KV{"grok.rope.scaling.yarn_ext_factor", F32(0)}))
	if r.Spec.Scaling.Type != rope.ScalingLinear || r.Spec.Scaling.Factor != 4 {
		t.Errorf("grok ext factor 0: %+v", r.Spec.Scaling)
	}
	if _, err := model(t, "grok", 8192, 6144, 48, []KV{{"grok.rope.scaling.yarn_attn_factor", F32(0.5)}}); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "yarn_attn_factor 0.5") {
		t.Errorf("grok plain with yarn_attn_factor: %v", err)
	}

	// mistral3 (Ministral 3): the betas and the log multiplier as written (mscale_all_dim).
	r = mustModel(t, "mistral3", 262144, 5120, 32, yarn("mistral3",
		KV{"mistral3.rope.scaling.yarn_beta_fast", F32(4)}, KV{"mistral3.rope.scaling.yarn_beta_slow", F32(2)},
		KV{"mistral3.rope.scaling.yarn_log_multiplier", F32(1)}))
	if sc := r.Spec.Scaling; sc.BetaFast != 4 || sc.BetaSlow != 2 || sc.AttentionFactor != 1 {
		t.Errorf("mistral3 m_all 1: %+v", sc)
	}
	r = mustModel(t, "mistral3", 262144, 5120, 32, yarn("mistral3", KV{"mistral3.rope.scaling.yarn_log_multiplier", F32(0.5)}))
	if want := ms(4, 1) / ms(4, 0.5); math.Abs(r.Spec.Scaling.AttentionFactor-want) > 1e-15 {
		t.Errorf("mistral3 m_all 0.5: attention %v, want %v", r.Spec.Scaling.AttentionFactor, want)
	}

	// DeepSeek-V3.2 and Mistral 4 as DeepseekV2Model converts them: 0.1·mscale_all_dim, here
	// mscale_all_dim 1, so m_all = 1 and mscale(f, 1)/mscale(f, 1) = 1.
	for _, arch := range []string{"deepseek32", "mistral4"} {
		r = mustModel(t, arch, 163840, 7168, 128, yarn(arch, KV{arch + ".rope.scaling.yarn_log_multiplier", F32(0.1)}))
		if r.Spec.Scaling.AttentionFactor != 1 {
			t.Errorf("%s: attention %v, want 1", arch, r.Spec.Scaling.AttentionFactor)
		}
		r = mustModel(t, arch, 163840, 7168, 128, yarn(arch, KV{arch + ".rope.scaling.yarn_log_multiplier", F32(0.0707)}))
		mAll := float64(float32(0.0707) / float32(0.1))
		if want := ms(4, 1) / ms(4, mAll); math.Abs(r.Spec.Scaling.AttentionFactor-want) > 1e-15 {
			t.Errorf("%s m_all %v: attention %v, want %v", arch, mAll, r.Spec.Scaling.AttentionFactor, want)
		}
	}
	// deepseek2 itself takes mscale = mscale_all_dim when that is not 1: always 1.
	r = mustModel(t, "deepseek2", 163840, 7168, 128, yarn("deepseek2", KV{"deepseek2.rope.scaling.yarn_log_multiplier", F32(0.0707)}))
	if r.Spec.Scaling.AttentionFactor != 1 {
		t.Errorf("deepseek2: attention %v, want 1", r.Spec.Scaling.AttentionFactor)
	}
	// glm-dsa's loader does not read the key: mscale(f, 1).
	r = mustModel(t, "glm-dsa", 163840, 6144, 64, yarn("glm-dsa", KV{"glm-dsa.rope.scaling.yarn_log_multiplier", F32(0.1)}))
	if r.Spec.Scaling.AttentionFactor != ms(4, 1) || !hasNote(r, "yarn_log_multiplier") {
		t.Errorf("glm-dsa: attention %v, notes %q", r.Spec.Scaling.AttentionFactor, r.Notes)
	}
}

// TestScalingAlpha: rope.scaling.alpha is read by every loader but used only by
// llama_model_hunyuan_vl::load_arch_hparams (and hunyuan-dense, which reuses it), as
// base · alpha^(d/(d-2)) with d the key length (src/models/hunyuan-vl.cpp).
func TestScalingAlpha(t *testing.T) {
	for _, arch := range []string{"hunyuan_vl", "hunyuan-dense"} {
		r := mustModel(t, arch, 32768, 4096, 32, []KV{
			{arch + ".rope.freq_base", F32(10000)}, {arch + ".rope.scaling.alpha", F32(1000)},
		})
		want := 10000 * math.Pow(1000, 128.0/126)
		if math.Abs(r.Spec.Base-want)/want > 1e-12 {
			t.Errorf("%s: base %v, want %v", arch, r.Spec.Base, want)
		}
	}
	r := mustModel(t, "qwen2", 32768, 4096, 32, []KV{{"qwen2.rope.scaling.alpha", F32(1000)}})
	if r.Spec.Base != 10000 || !hasNote(r, "alpha") {
		t.Errorf("qwen2 with alpha: base %v, notes %q", r.Spec.Base, r.Notes)
	}
}

// TestOriginalContextZero: llama_context takes n_ctx_train when the loader's n_ctx_orig_yarn
// is 0 (cparams.n_ctx_orig_yarn, src/llama-context.cpp at llama.cpp 82bb48500), so an original
// context length of 0 in the file is the context length.
func TestOriginalContextZero(t *testing.T) {
	r := mustModel(t, "qwen3", 32768, 4096, 32, []KV{
		{"qwen3.rope.scaling.type", Str("yarn")}, {"qwen3.rope.scaling.factor", F32(4)},
		{"qwen3.rope.scaling.original_context_length", U32(0)},
	})
	if r.Spec.Scaling.OriginalMaxPositions != 32768 {
		t.Errorf("original context 0: %+v", r.Spec.Scaling)
	}
}
