package gguf

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rotary-go/rotary/rope"
)

// ErrUnsupported is wrapped by the errors of File.RoPE for what llama.cpp does that a
// rope.Spec cannot say; the error names it.
var ErrUnsupported = errors.New("gguf: no rope.Spec equivalent")

// ErrNoRoPE is wrapped by File.RoPE's error for an architecture llama.cpp runs without RoPE.
var ErrNoRoPE = errors.New("gguf: the model uses no RoPE")

func unsupportedf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUnsupported, fmt.Sprintf(format, args...))
}

// RoPE is a model's RoPE as llama.cpp derives it from a GGUF file.
type RoPE struct {
	Arch string
	Type RopeType
	// Spec is the rope.Spec that rotates as llama.cpp does (exactly, in float64: llama.cpp's
	// float32 rounding of the angles is not part of it).
	Spec                            rope.Spec
	NumLayers, NumHeads, NumKVHeads int
	// ScalingType is the file's {arch}.rope.scaling.type, "" when absent (llama.cpp then
	// reads "linear", which scales nothing without a factor).
	ScalingType string
	// Factors names the frequency-factor tensors the spec's factors came from, if any.
	Factors []string
	Notes   []string
}

// Keys llama.cpp reads (LLM_KV_NAMES in src/llama-arch.cpp), with %s the architecture; each
// name checked against llama.cpp 82bb48500 (2026-08-07). llama_model_base::load_hparams
// (src/llama-model.cpp) reads the generic ones with the defaults this reader uses: freq_base
// 10000, scaling type "linear", factor from scaling.factor else scale_linear (0: unscaled),
// attn_factor 1, original context = context_length, key_length = n_embd/n_head,
// dimension_count = key_length; the YaRN keys, alpha and finetuned are read per architecture
// (archkeys.go, builder.go).
const (
	keyContextLength    = "%s.context_length"
	keyEmbeddingLen     = "%s.embedding_length"
	keyBlockCount       = "%s.block_count"
	keyHeadCount        = "%s.attention.head_count"
	keyHeadCountKV      = "%s.attention.head_count_kv"
	keyKeyLength        = "%s.attention.key_length"
	keySlidingWindow    = "%s.attention.sliding_window"
	keyKVLoraRank       = "%s.attention.kv_lora_rank"
	keyRopeDims         = "%s.rope.dimension_count"
	keyRopeDimsSWA      = "%s.rope.dimension_count_swa"
	keyRopeSections     = "%s.rope.dimension_sections"
	keyFreqBase         = "%s.rope.freq_base"
	keyFreqBaseSWA      = "%s.rope.freq_base_swa"
	keyScalingType      = "%s.rope.scaling.type"
	keyScalingFactor    = "%s.rope.scaling.factor"
	keyScaleLinear      = "%s.rope.scale_linear"
	keyAttnFactor       = "%s.rope.scaling.attn_factor"
	keyOrigCtx          = "%s.rope.scaling.original_context_length"
	keyScalingFinetuned = "%s.rope.scaling.finetuned"
	keyScalingAlpha     = "%s.rope.scaling.alpha"
	keyYarnExtFactor    = "%s.rope.scaling.yarn_ext_factor"
	keyYarnBetaFast     = "%s.rope.scaling.yarn_beta_fast"
	keyYarnBetaSlow     = "%s.rope.scaling.yarn_beta_slow"
	keyYarnLogMul       = "%s.rope.scaling.yarn_log_multiplier"
	keyYarnAttnFactor   = "%s.rope.scaling.yarn_attn_factor"
)

// permutedQK are the architectures whose q and k weights llama.cpp's converter reorders from
// Hugging Face's half layout to adjacent pairs, so that llama.cpp's norm rotation of the
// file's weights is the NeoX rotation of the checkpoint's. Each entry as read in
// conversion/*.py at llama.cpp 82bb48500 (2026-08-07), the class that writes the architecture:
//
//   - llama.py LlamaModel.modify_tensors (undo_permute = True, permute of q_proj/k_proj),
//     inherited by LlamaModel's EAGLE-3 switch (eagle3), ArceeModel (arcee),
//     LlamaEmbedNemotronModel (llama-embed), SmolLM3Model (smollm3), granite.py GraniteModel,
//     GraniteMoeModel and GraniteHybridModel's attention layers (granite, granitemoe,
//     granitehybrid), mistral3.py Mistral3Model.Ministral3Model (mistral3) and nanbeige.py
//     NanbeigeModel (nanbeige); mistral.py MistralModel (undo_permute = False) writes llama or
//     mistral3 from Mistral's consolidated checkpoints, which already hold the permuted layout;
//   - deci.py DeciModel, deepseek.py DeepseekModel, llada.py LLaDAModel and bailingmoe.py
//     BailingMoeModel, each with a copy of LlamaModel.permute (deci, deepseek, llada,
//     bailingmoe);
//   - LlamaModel.permute called from minicpm.py MiniCPMModel, internlm.py InternLM2Model,
//     arctic.py ArcticModel, olmo.py OlmoModel and chameleon.py ChameleonModel (minicpm,
//     internlm2, arctic, olmo, chameleon);
//   - _reverse_hf_permute in baichuan.py BaichuanModel and xverse.py XverseModel.
//
// Not permuted though norm or LlamaModel-derived: llama4 and apertus (undo_permute = False),
// afmoe (AfmoeModel.modify_tensors bypasses LlamaModel's), cogvlm (fused
// language_expert_query_key_value, no q_proj), and the DeepseekV2Model family (deepseek2,
// mistral4, glm-dsa), whose modify_tensors has no permute.
var permutedQK = map[string]bool{
	"llama": true, "eagle3": true, "arcee": true, "llama-embed": true, "smollm3": true,
	"granite": true, "granitemoe": true, "granitehybrid": true, "mistral3": true, "nanbeige": true,
	"deci": true, "deepseek": true, "llada": true, "bailingmoe": true,
	"minicpm": true, "internlm2": true, "arctic": true, "olmo": true, "chameleon": true,
	"baichuan": true, "xverse": true,
}

// ConverterPermutesQK reports whether llama.cpp's converter reorders arch's q and k weights
// from Hugging Face's NeoX layout to adjacent pairs: a file of such an architecture rotates
// with norm (GPT-J) pairing what the Hugging Face checkpoint rotates with NeoX pairing.
func ConverterPermutesQK(arch string) bool { return permutedQK[arch] }

// maxLayers bounds {arch}.block_count and the per-layer arrays: real models have at most a
// few hundred layers.
const maxLayers = 1 << 16

// intKey reads an integer key. llama.cpp's loader wants the exact type its field has
// (uint32 mostly); any integer type is accepted here, so that a file differing only in the
// integer width still reads, and a value outside [lo, hi] is refused.
func (f *File) intKey(key string, def int64, lo, hi int64) (int64, bool, error) {
	v, ok := f.Get(key)
	if !ok {
		return def, false, nil
	}
	x, isInt := v.Int()
	if !isInt {
		return 0, true, invalidf("%s is %s: want an integer", key, v.TypeName())
	}
	if x < lo || x > hi {
		return 0, true, invalidf("%s = %d: want %d..%d", key, x, lo, hi)
	}
	return x, true, nil
}

// floatKey reads a float key (llama.cpp's are f32; f64 is accepted too).
func (f *File) floatKey(key string, def float64) (float64, bool, error) {
	v, ok := f.Get(key)
	if !ok {
		return def, false, nil
	}
	x, isFloat := v.Float()
	if !isFloat {
		return 0, true, invalidf("%s is %s: want a float", key, v.TypeName())
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, true, invalidf("%s = %v: want a finite number", key, x)
	}
	return x, true, nil
}

// headCount reads a count that llama.cpp takes as a scalar or one value per layer
// (get_key_or_arr). llama_hparams::n_head() is layer 0's; a hybrid model whose layer 0 has no
// attention (0 heads) gives the first attention layer's here, which is what its RoPE rotates.
func (f *File) headCount(key string, def int64) (int64, bool, error) {
	v, ok := f.Get(key)
	if !ok || v.Type != TypeArray {
		return f.intKey(key, def, 0, 1<<20)
	}
	// One count per layer: the length is checked before the array is decoded.
	if v.Len() == 0 || v.Len() > maxLayers {
		return 0, true, invalidf("%s is %s: want an integer or 1..%d integers, one per layer", key, v.TypeName(), maxLayers)
	}
	xs, isInt := v.Ints()
	if !isInt {
		return 0, true, invalidf("%s is %s: want an integer or an array of integers", key, v.TypeName())
	}
	for i, x := range xs {
		if x < 0 || x > 1<<20 {
			return 0, true, invalidf("%s[%d] = %d: want 0..%d", key, i, x, 1<<20)
		}
	}
	for _, x := range xs {
		if x > 0 {
			return x, true, nil
		}
	}
	return 0, true, nil
}

// sections reads {arch}.rope.dimension_sections: up to 4 counts of pairs.
func (f *File) sections(arch string) ([]int, error) {
	key := fmt.Sprintf(keyRopeSections, arch)
	v, ok := f.Get(key)
	if !ok {
		return nil, nil
	}
	if v.Type != TypeArray || v.Len() > 4 {
		return nil, invalidf("%s is %s: want an array of at most 4 integers", key, v.TypeName())
	}
	xs, isInt := v.Ints()
	if !isInt {
		return nil, invalidf("%s is %s: want an array of at most 4 integers", key, v.TypeName())
	}
	out := make([]int, len(xs))
	for i, x := range xs {
		if x < 0 || x > 1<<15 {
			return nil, invalidf("%s[%d] = %d: want 0..%d", key, i, x, 1<<15)
		}
		out[i] = int(x)
	}
	return out, nil
}

// RoPE derives the model's RoPE as llama.cpp does (llama_model_base::load_hparams and
// llama_context's cparams in src/llama-context.cpp, the rotation of ggml_rope_ext /
// ggml_rope_multi). Errors wrap ErrInvalid for a key of the wrong type or range, ErrNoRoPE
// for a model without RoPE, ErrUnsupported for llama.cpp semantics a rope.Spec cannot hold,
// and rope.ErrSpec when the values derived make no valid spec.
func (f *File) RoPE() (*RoPE, error) {
	if f == nil {
		return nil, invalidf("no file")
	}
	arch, rt, err := f.RopeType()
	if err != nil {
		return nil, err
	}
	k := func(format string) string { return fmt.Sprintf(format, arch) }
	switch {
	case arch == "clip" && rt == RopeNone:
		return nil, unsupportedf("a clip (mmproj) file whose projector clip.cpp does not rotate with GGML_ROPE_TYPE_VISION: its vision tower's RoPE, if any, is not derived")
	case rt == RopeNone:
		return nil, fmt.Errorf("%w: architecture %q is rope type none in llama.cpp (llama_model_rope_type)", ErrNoRoPE, arch)
	case builderNoRoPE[arch] != "":
		return nil, fmt.Errorf("%w: architecture %q: llama.cpp never rotates it: %s", ErrNoRoPE, arch, builderNoRoPE[arch])
	case rt == RopeVision:
		return nil, unsupportedf("architecture %q with a projector clip.cpp rotates with rope type vision (GGML_ROPE_TYPE_VISION), which restarts the frequencies in each section and which a rope.Spec cannot say; multimodal.Qwen2VisionCosSin computes the Qwen2-VL tower's cos/sin", arch)
	}
	if err := f.ropeSwitchedOff(arch); err != nil {
		return nil, err
	}
	if err := f.perLayerRule(arch, false); err != nil {
		return nil, err
	}
	for _, key := range []string{k(keyFreqBaseSWA), k(keyRopeDimsSWA)} {
		if _, ok := f.Get(key); ok {
			return nil, unsupportedf("%s: per-layer sliding-window RoPE is not derived from GGUF", key)
		}
	}
	r := &RoPE{Arch: arch, Type: rt}
	ctx, ok, err := f.intKey(k(keyContextLength), 0, 1, math.MaxInt32)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, invalidf("%s: missing (llama.cpp requires it)", k(keyContextLength))
	}
	embd, ok, err := f.intKey(k(keyEmbeddingLen), 0, 1, 1<<24)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, invalidf("%s: missing (llama.cpp requires it)", k(keyEmbeddingLen))
	}
	layers, _, err := f.intKey(k(keyBlockCount), 0, 0, maxLayers)
	if err != nil {
		return nil, err
	}
	heads, ok, err := f.headCount(k(keyHeadCount), 0)
	if err != nil {
		return nil, err
	}
	if !ok || heads == 0 {
		return nil, invalidf("%s: missing or 0 (a model with RoPE has attention heads)", k(keyHeadCount))
	}
	if v, _ := f.Get(k(keyHeadCount)); v.Type == TypeArray {
		if xs, _ := v.Ints(); len(xs) > 0 && xs[0] == 0 {
			// llama_model_base::load_hparams (llama.cpp 82bb48500) tests n_head(), layer 0's,
			// and without heads there sets n_rot and the key length to 0 and skips their keys.
			r.Notes = append(r.Notes, fmt.Sprintf("%s: layer 0 has no attention heads, for which llama.cpp's load_hparams sets n_rot = 0 unless the architecture's loader sets it; the RoPE here is that of layer %d, the first with heads", k(keyHeadCount), firstNonZero(xs)))
		}
	}
	kvHeads, _, err := f.headCount(k(keyHeadCountKV), heads)
	if err != nil {
		return nil, err
	}
	r.NumLayers, r.NumHeads, r.NumKVHeads = int(layers), int(heads), int(kvHeads)
	// n_embd_head_k = n_embd / n_head unless key_length says; n_rot = n_embd_head_k unless
	// rope.dimension_count says.
	headK, _, err := f.intKey(k(keyKeyLength), embd/heads, 1, 1<<16)
	if err != nil {
		return nil, err
	}
	nRot, _, err := f.intKey(k(keyRopeDims), headK, 0, 1<<16)
	if err != nil {
		return nil, err
	}
	if arch == "deepseek2-ocr" {
		base, _, err := f.floatKey(k(keyFreqBase), 10000)
		if err != nil {
			return nil, err
		}
		return f.deepseekOCR(r, embd, heads, headK, base, int(ctx))
	}
	switch arch {
	case "llama", "deci", "falcon", "llama-embed":
		if nRot != headK {
			return nil, invalidf("%s = %d: llama.cpp requires n_rot = the head size %d for %s", k(keyRopeDims), nRot, headK, arch)
		}
	}
	keyLen := headK
	if _, mla := f.Get(k(keyKVLoraRank)); mla {
		// Multi-head latent attention rotates a q_pe/k_pe part of n_rot dims of its own
		// (llm_build_deepseek2), as Hugging Face's qk_rope_head_dim does.
		r.Notes = append(r.Notes, fmt.Sprintf("multi-head latent attention: the RoPE rotates a q_pe/k_pe part of its own, %d dims of the %d-dim key", nRot, headK))
		headK = nRot
	}
	base, _, err := f.floatKey(k(keyFreqBase), 10000)
	if err != nil {
		return nil, err
	}
	if base, err = f.alphaBase(r, k(keyScalingAlpha), base, keyLen); err != nil {
		return nil, err
	}
	s := rope.Spec{HeadSize: int(headK), RotaryDim: int(nRot), Base: base, MaxPositions: int(ctx)}
	s.Style = rope.NeoX
	if rt == RopeNorm {
		s.Style = rope.GPTJ
	}
	if err := f.scaling(r, &s, k, int(ctx)); err != nil {
		return nil, err
	}
	scaled := s.Scaling.Type != rope.ScalingDefault || s.Scaling.AttentionFactor != 0 && s.Scaling.AttentionFactor != 1
	if err := f.perLayerRule(arch, scaled); err != nil {
		return nil, err
	}
	if rt == RopeMRoPE || rt == RopeIMRoPE {
		if err := f.mrope(r, &s, arch, rt); err != nil {
			return nil, err
		}
	}
	if err := f.noRoPELayers(r, &s, k); err != nil {
		return nil, err
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	r.Spec = s
	return r, nil
}

// scaling reads the frequency scaling: llama_rope_scaling_type_from_string's names, the
// factor as 1/freq_scale, the attention factor as llama_context sets cparams.yarn_attn_factor,
// and the frequency-factor tensors ggml divides the angles by.
func (f *File) scaling(r *RoPE, s *rope.Spec, k func(string) string, ctx int) error {
	typ := "linear"
	if v, ok := f.Get(k(keyScalingType)); ok {
		str, isStr := v.Str()
		if !isStr {
			return invalidf("%s is %s: want a string", k(keyScalingType), v.TypeName())
		}
		typ, r.ScalingType = str, str
	}
	switch typ {
	case "none", "linear", "yarn", "longrope":
	default:
		return invalidf("%s %q: want none, linear, yarn or longrope (llama.cpp refuses any other)", k(keyScalingType), typ)
	}
	factor, ok, err := f.floatKey(k(keyScalingFactor), 0)
	if err != nil {
		return err
	}
	if !ok {
		if factor, _, err = f.floatKey(k(keyScaleLinear), 0); err != nil {
			return err
		}
	}
	if factor < 0 {
		return invalidf("%s = %v: want ≥ 0", k(keyScalingFactor), factor)
	}
	// llama.cpp keeps freq_scale = 1/factor in float32; 0 means unscaled, and type none
	// never scales.
	if factor == 0 || typ == "none" {
		factor = 1
	}
	attn, _, err := f.floatKey(k(keyAttnFactor), 1)
	if err != nil {
		return err
	}
	// llama_context falls back to n_ctx_train when n_ctx_orig_yarn is 0.
	orig, _, err := f.intKey(k(keyOrigCtx), int64(ctx), 0, math.MaxInt32)
	if err != nil {
		return err
	}
	if orig == 0 {
		orig = int64(ctx)
	}
	// llama_context: cparams.yarn_ext_factor is hparams' (the key's for grok, else -1) when
	// ≥ 0, else 1 for yarn and 0 otherwise; any nonzero value turns the YaRN ramp and its
	// attention scale on.
	ext, err := f.archFloat(r, k(keyYarnExtFactor), yarnExtAttnReaders[r.Arch], -1, keysOf(yarnExtAttnReaders))
	if err != nil {
		return err
	}
	if ext < 0 {
		ext = 0
		if typ == "yarn" {
			ext = 1
		}
	}
	if ext != 0 && ext != 1 {
		return unsupportedf("%s = %v: a YaRN ramp scaled by other than 0 (off) or 1 has no rope.Spec", k(keyYarnExtFactor), ext)
	}
	yarn := ext == 1
	// Without YaRN, cparams.yarn_attn_factor is hparams' (the key's for grok, else 1), and
	// the cos/sin multiplier that times rope.scaling.attn_factor.
	yarnAttn, err := f.archFloat(r, k(keyYarnAttnFactor), yarnExtAttnReaders[r.Arch], 1, keysOf(yarnExtAttnReaders))
	if err != nil {
		return err
	}
	factors, err := f.freqFactors(r, s)
	if err != nil {
		return err
	}
	switch {
	case yarn:
		if factors[0] != nil {
			return unsupportedf("yarn with frequency-factor tensors (%v): ggml divides the extrapolated angles by the factors before the YaRN blend, which a rope.Spec cannot say", r.Factors)
		}
		bfDefault, readsBetas := yarnBetaReaders[r.Arch]
		if !readsBetas {
			bfDefault = 32
		}
		bf, err := f.archFloat(r, k(keyYarnBetaFast), readsBetas, bfDefault, keysOf(yarnBetaReaders))
		if err != nil {
			return err
		}
		bs, err := f.archFloat(r, k(keyYarnBetaSlow), readsBetas, 1, keysOf(yarnBetaReaders))
		if err != nil {
			return err
		}
		logMul, err := f.yarnLogMul(r, k(keyYarnLogMul))
		if err != nil {
			return err
		}
		if _, ok := f.Get(k(keyYarnAttnFactor)); ok && yarnExtAttnReaders[r.Arch] {
			r.Notes = append(r.Notes, k(keyYarnAttnFactor)+" is ignored: llama_context recomputes yarn_attn_factor whenever YaRN is on")
		}
		// The cos/sin multiplier: ggml's rope_yarn (ggml-cpu/ops.cpp) multiplies by
		// 1 + 0.1·ln(factor), which the llama_context constructor (src/llama-context.cpp,
		// since ggml-org/llama.cpp#17945) cancels and replaces by mscale(factor, m) /
		// mscale(factor, m_all) (DeepSeek's, with m_all the loader's log multiplier and m = 1,
		// or m_all for deepseek2 when it is not 1) or by mscale(factor, 1), then multiplies by
		// rope.scaling.attn_factor (llama.cpp 82bb48500).
		mscale := func(m float64) float64 {
			if factor <= 1 {
				return 1
			}
			return 0.1*m*math.Log(factor) + 1
		}
		att := mscale(1)
		if logMul != 0 {
			m := 1.0
			if r.Arch == "deepseek2" && logMul != 1 {
				m = logMul
			}
			att = mscale(m) / mscale(logMul)
			r.Notes = append(r.Notes, fmt.Sprintf("%s: mscale_all_dim %g, attention factor mscale(%g, %g) / mscale(%g, %g) = %.9g", k(keyYarnLogMul), logMul, factor, m, factor, logMul, att))
		}
		s.Scaling.Type = rope.ScalingYaRN
		s.Scaling.Factor = factor
		s.Scaling.OriginalMaxPositions = int(orig)
		s.Scaling.BetaFast, s.Scaling.BetaSlow = bf, bs
		s.Scaling.AttentionFactor = att * attn
		return nil
	case factors[0] != nil:
		if factor != 1 {
			return unsupportedf("%s = %v with frequency-factor tensors (%v): linear scaling of factor-divided frequencies has no rope.Spec", k(keyScalingFactor), factor, r.Factors)
		}
		s.Scaling.Type = rope.ScalingLongRoPE
		s.Scaling.ShortFactor, s.Scaling.LongFactor = factors[0], factors[1]
		s.Scaling.OriginalMaxPositions = int(orig)
		s.Scaling.AttentionFactor = attn * yarnAttn
		return nil
	case attn*yarnAttn != 1:
		return unsupportedf("%s %v × %s %v without YaRN or frequency factors: rope.Spec's plain and linear RoPE have no attention factor", k(keyAttnFactor), attn, k(keyYarnAttnFactor), yarnAttn)
	case factor != 1:
		s.Scaling.Type = rope.ScalingLinear
		s.Scaling.Factor = factor
		return nil
	}
	s.Scaling.Type = rope.ScalingDefault
	return nil
}

// freqFactors returns the short and long per-pair divisors: rope_freqs for both when the file
// has it (llama_model::get_rope_factors prefers it), else the LongRoPE pair. llama.cpp picks
// the long factors when the context per sequence exceeds the original length; a rope.Spec
// picks them by the largest position in the call, which the notes say.
func (f *File) freqFactors(r *RoPE, s *rope.Spec) ([2][]float64, error) {
	half := s.RotaryDim / 2
	get := func(name string) ([]float64, error) {
		v, ok := f.Factors(name)
		if !ok {
			return nil, nil
		}
		if len(v) != half {
			return nil, invalidf("tensor %q has %d factors: want n_rot/2 = %d", name, len(v), half)
		}
		out := make([]float64, half)
		for i, x := range v {
			if !(x > 0) || math.IsInf(float64(x), 0) {
				return nil, invalidf("tensor %q factor %d is %v: want a finite number > 0", name, i, x)
			}
			out[i] = float64(x)
		}
		r.Factors = append(r.Factors, name)
		return out, nil
	}
	freqs, err := get(TensorRopeFreqs)
	if err != nil || freqs != nil {
		if freqs != nil {
			r.Notes = append(r.Notes, "rope_freqs.weight divides pair i's frequency by factor i (the converter's Llama 3 scaling): held as LongRoPE with equal short and long factors")
		}
		return [2][]float64{freqs, freqs}, err
	}
	short, err := get(TensorRopeFactorsShort)
	if err != nil {
		return [2][]float64{}, err
	}
	long, err := get(TensorRopeFactorsLong)
	if err != nil {
		return [2][]float64{}, err
	}
	switch {
	case short == nil && long == nil:
		return [2][]float64{}, nil
	case short == nil || long == nil:
		return [2][]float64{}, invalidf("a LongRoPE file needs both %s and %s (it has %v)", TensorRopeFactorsShort, TensorRopeFactorsLong, r.Factors)
	}
	r.Notes = append(r.Notes, "llama.cpp takes the long factors when the context per sequence exceeds the original length; the spec takes them when a call's largest position reaches it")
	return [2][]float64{short, long}, nil
}

// mrope reads the sections as ggml_rope_multi assigns pairs to position rows: the section sum
// must be n_rot/2, since ggml's sector index wraps around it and a spec cannot say that. Under
// IMRoPE a pair that none of the first three sections claims goes to ggml's fourth position,
// which is rope.MRoPE.GGMLFourth; without such a pair IMRoPE is Hugging Face's interleave.
func (f *File) mrope(r *RoPE, s *rope.Spec, arch string, rt RopeType) error {
	sec, err := f.sections(arch)
	if err != nil {
		return err
	}
	key := fmt.Sprintf(keyRopeSections, arch)
	if sec == nil {
		return invalidf("%s: missing (rope type %s needs it)", key, rt)
	}
	var four [4]int
	copy(four[:], sec)
	sum := four[0] + four[1] + four[2] + four[3]
	half := s.RotaryDim / 2
	if sum != half {
		return unsupportedf("%s %v sums to %d, not n_rot/2 = %d: ggml_rope_multi wraps its sections around the pairs, which a rope.Spec cannot say", key, sec, sum, half)
	}
	m := &rope.MRoPE{Sections: four[:3], Interleaved: rt == RopeIMRoPE}
	if four[3] != 0 {
		m.Sections = four[:]
	}
	if rt == RopeIMRoPE {
		var fourth []string
		for i := range half {
			if imropeAxis(i, four) == 3 {
				fourth = append(fourth, strconv.Itoa(i))
			}
		}
		if fourth != nil {
			// The fourth row is read whatever the fourth section says, so the spec keeps all
			// four and takes [4, T] positions.
			m.Sections, m.GGMLFourth = four[:], true
			pairs := "pairs "
			if len(fourth) == 1 {
				pairs = "pair "
			}
			r.Notes = append(r.Notes, fmt.Sprintf("%s %v under IMRoPE: no section claims %s%s, which ggml_mrope_cache_init turns by the fourth position; llama.cpp fills that row with 0 for text tokens (llm_graph_input_pos::set_input) and image tokens (mtmd-helper's set_position_mrope_2d), so it leaves them unrotated where Hugging Face's interleave turns them by the temporal position", key, sec, pairs, strings.Join(fourth, ", ")))
		}
	}
	s.MRoPE = m
	return nil
}

// imropeAxis is ggml_mrope_cache_init's interleaved choice (ggml/src/ggml-cpu/ops.cpp,
// checked at llama.cpp 82bb48500): pair i takes h when i%3 == 1 and i < 3·s1, w when
// i%3 == 2 and i < 3·s2, t when i%3 == 0 and i < 3·s0, and the fourth position otherwise.
func imropeAxis(i int, s [4]int) int {
	switch {
	case i%3 == 1 && i < 3*s[1]:
		return 1
	case i%3 == 2 && i < 3*s[2]:
		return 2
	case i%3 == 0 && i < 3*s[0]:
		return 0
	}
	return 3
}

// noRoPELayers sets the layers llama.cpp leaves unrotated: layer il rotates when
// (il+1) % n_no_rope_layer_step != 0 (the llama4 and smollm3 builders), with the step 4
// (llama_hparams' default, and smollm3's load_hparams literal; no key holds it). For a llama4
// file whose attention.sliding_window is 0, load_hparams sets the step to n_layer, meant as
// "always use rope", which the builder's test still reads as leaving the last layer unrotated.
func (f *File) noRoPELayers(r *RoPE, s *rope.Spec, k func(string) string) error {
	step := 4
	switch r.Arch {
	case "llama4":
		if v, ok := f.Get(k(keySlidingWindow)); ok {
			if w, isInt := v.Int(); isInt && w == 0 {
				step = r.NumLayers
				r.Notes = append(r.Notes, fmt.Sprintf("%s is 0: llama.cpp sets n_no_rope_layer_step = n_layer to rotate every layer, but its test (il+1) %% step != 0 leaves the last layer (%d) unrotated", k(keySlidingWindow), r.NumLayers-1))
			}
		}
	case "smollm3":
	default:
		return nil
	}
	if r.NumLayers == 0 {
		return invalidf("%s: missing (llama.cpp's %s leaves layers unrotated by their index)", k(keyBlockCount), r.Arch)
	}
	no := make([]bool, r.NumLayers)
	for il := range no {
		no[il] = (il+1)%step == 0
	}
	s.Local = &rope.LocalRoPE{NoRoPE: no}
	return nil
}

func firstNonZero(xs []int64) int {
	for i, x := range xs {
		if x != 0 {
			return i
		}
	}
	return -1
}
