package gguf

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Keys llama.cpp reads only in some architectures' load_arch_hparams (src/models/*.cpp,
// llama.cpp 82bb48500, 2026-08-07); for every other architecture the hparams keep their
// defaults (src/llama-hparams.h) whatever the file holds. convert_hf_to_gguf's TextModel
// writes the YaRN keys for any YaRN config (conversion/base.py set_gguf_parameters), so a
// file commonly holds keys its loader ignores.
var (
	// yarn_ext_factor and yarn_attn_factor: src/models/grok.cpp.
	yarnExtAttnReaders = map[string]bool{"grok": true}
	// yarn_beta_fast and yarn_beta_slow, with the beta_fast default each loader leaves:
	// src/models/grok.cpp (8, "defaults for old GGUFs") and src/models/mistral3.cpp (32).
	yarnBetaReaders = map[string]float64{"grok": 8, "mistral3": 32}
	// yarn_log_multiplier and what the loader divides it by: deepseek2 (and mistral4, which
	// reuses its loader) and deepseek32 divide by 0.1 to cancel the converter's factor
	// ([TAG_DEEPSEEK2_YARN_LOG_MUL_FIX], src/models/deepseek2.cpp and deepseek32.cpp);
	// mistral3 takes mscale_all_dim as written (src/models/mistral3.cpp).
	yarnLogMulReaders = map[string]float32{"deepseek2": 0.1, "mistral4": 0.1, "deepseek32": 0.1, "mistral3": 1}
	// rope.scaling.alpha, read by llama_model_base::load_hparams for all but used only by
	// llama_model_hunyuan_vl::load_arch_hparams, which hunyuan-dense reuses
	// (src/models/hunyuan-vl.cpp): base · alpha^(d/(d-2)), d the key length.
	alphaReaders = map[string]bool{"hunyuan_vl": true, "hunyuan-dense": true}
)

// archFloat reads a float key when arch's loader reads it (reads true), else leaves def and
// notes that the file's value, if any, is ignored.
func (f *File) archFloat(r *RoPE, key string, reads bool, def float64, readers []string) (float64, error) {
	if reads {
		x, _, err := f.floatKey(key, def)
		return x, err
	}
	if v, ok := f.Get(key); ok {
		r.Notes = append(r.Notes, fmt.Sprintf("%s (%s) is ignored: llama.cpp reads it only for %s", key, v, strings.Join(readers, ", ")))
	}
	return def, nil
}

func keysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// yarnLogMul returns the rope_yarn_log_mul llama.cpp's loader leaves for r.Arch (0 when it
// does not read the key), computed in float32 as the loader does.
func (f *File) yarnLogMul(r *RoPE, key string) (float64, error) {
	div, reads := yarnLogMulReaders[r.Arch]
	x, err := f.archFloat(r, key, reads, 0, keysOf(yarnLogMulReaders))
	if err != nil || !reads || div == 1 {
		return x, err
	}
	return float64(float32(x) / div), nil
}

// alphaBase applies rope.scaling.alpha to the base as llama.cpp's hunyuan_vl loader does; for
// other architectures the key is noted as ignored. headK is n_embd_head_k.
func (f *File) alphaBase(r *RoPE, key string, base float64, headK int64) (float64, error) {
	alpha, err := f.archFloat(r, key, alphaReaders[r.Arch], 0, keysOf(alphaReaders))
	if err != nil || !(alpha > 0) {
		return base, err
	}
	if headK <= 2 {
		return 0, invalidf("%s = %v with key length %d: the NTK-alpha exponent d/(d-2) needs d > 2", key, alpha, headK)
	}
	r.Notes = append(r.Notes, fmt.Sprintf("%s %g: base %g · alpha^(%d/%d) (llama_model_hunyuan_vl::load_arch_hparams)", key, alpha, base, headK, headK-2))
	return base * math.Pow(alpha, float64(headK)/float64(headK-2)), nil
}
