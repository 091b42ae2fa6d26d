package rope

import (
	"errors"
	"fmt"
	"math"

	"github.com/rotary-go/rotary/internal/errs"
)

// Style says which elements of a head form a rotation pair.
type Style uint8

const (
	// NeoX pairs element i with i + d/2 (GPT-NeoX, "half", rotate_half).
	NeoX Style = iota
	// GPTJ pairs element 2i with 2i+1 (GPT-J, "interleave").
	GPTJ
)

func (s Style) String() string {
	switch s {
	case NeoX:
		return "neox"
	case GPTJ:
		return "gptj"
	}
	return fmt.Sprintf("Style(%d)", uint8(s))
}

// ParseRotaryMode reads torch_npu's rotary_mode name of a style: "half" (NeoX) or
// "interleave" (GPT-J).
func ParseRotaryMode(s string) (Style, error) {
	switch s {
	case "half":
		return NeoX, nil
	case "interleave":
		return GPTJ, nil
	}
	return NeoX, fmt.Errorf("rotary_mode %q: want half or interleave", s)
}

// ScalingType names a frequency-scaling variant with Hugging Face's rope_type names.
type ScalingType string

// The scaling variants.
const (
	ScalingDefault  ScalingType = "default"
	ScalingLinear   ScalingType = "linear"
	ScalingDynamic  ScalingType = "dynamic"   // NTK-aware base stretch by factor
	ScalingNTKAlpha ScalingType = "ntk_alpha" // NTK base stretch by alpha (Hunyuan; rope_scaling {"type":"dynamic","alpha":...})
	ScalingYaRN     ScalingType = "yarn"
	ScalingLlama3   ScalingType = "llama3"
	ScalingLongRoPE ScalingType = "longrope"
	// ScalingNTK is vLLM's static NTK (rope_type "ntk", NTKScalingRotaryEmbedding): fixed NTK
	// by factor, or with NTKMixed the per-pair stretch exp(a·m^mixed_b) of kexue.fm/archives/9706.
	ScalingNTK ScalingType = "ntk"
	// ScalingProportional is Gemma 4's (HF _compute_proportional_rope_parameters): the first
	// Scaling.RotatedPairs pairs take the default frequencies with the exponent over the whole
	// RotaryDim, the other pairs frequency 0 (cos 1, sin 0: their elements pass unchanged), and
	// every frequency is divided by Factor.
	ScalingProportional ScalingType = "proportional"
)

// DynamicLength says which length L the dynamic NTK formula uses.
type DynamicLength uint8

const (
	// DynamicStatic is vLLM's rule up to v0.21 (dynamic_ntk_scaling_rope.py before PR #41277):
	// L = factor · original max positions, fixed, so one cache serves every call.
	DynamicStatic DynamicLength = iota
	// DynamicPerCall is Hugging Face's (_compute_dynamic_ntk_parameters with
	// dynamic_rope_update): L = max(largest position in the call + 1, max positions), divided by
	// max positions, so the frequencies change with the call once it runs past
	// max_position_embeddings. HF's module keeps the largest length seen until a call falls
	// back below it; this is the length of the call alone, what a fresh module computes.
	DynamicPerCall
	// DynamicMaxTrained is vLLM's rule since PR #41277 (v0.22): the base stretches by
	// factor · max positions / Scaling.MaxTrainedPositions − (factor − 1), one cache of max
	// positions rows; without max_trained_positions that is plain RoPE.
	DynamicMaxTrained
)

func (d DynamicLength) String() string {
	switch d {
	case DynamicPerCall:
		return "per-call"
	case DynamicMaxTrained:
		return "max-trained"
	}
	return "static"
}

// Describe says which framework each length rule follows.
func (d DynamicLength) Describe() string {
	switch d {
	case DynamicPerCall:
		return "per-call (Hugging Face: the call's length over max_position_embeddings)"
	case DynamicMaxTrained:
		return "max-trained (vLLM 0.22 and later: max_position / max_trained_positions)"
	}
	return "static (vLLM 0.21 and earlier: factor × original, one cache)"
}

// Scaling holds a variant's parameters. Fields a variant does not use are ignored.
type Scaling struct {
	Type ScalingType `json:"type"`
	// Factor is the context-extension factor (linear, dynamic, yarn, llama3, longrope).
	Factor float64 `json:"factor"`
	// OriginalMaxPositions is the trained context length the variant scales from; 0 means
	// Spec.MaxPositions.
	OriginalMaxPositions int `json:"original_max_positions"`

	// Dynamic selects the length the dynamic NTK formula uses.
	Dynamic DynamicLength `json:"dynamic"`
	// MaxTrainedPositions is vLLM's max_trained_positions for DynamicMaxTrained; 0 means
	// max positions.
	MaxTrainedPositions int `json:"max_trained_positions"`
	// Alpha is the NTK-alpha base multiplier.
	Alpha float64 `json:"alpha"`
	// NTKMixed selects static NTK's mixed form with exponent MixedB; a separate flag because
	// mixed_b 0 is a formula of its own (every pair divided by factor), not the fixed form.
	NTKMixed bool    `json:"ntk_mixed"`
	MixedB   float64 `json:"mixed_b"`

	// YaRN. BetaFast and BetaSlow default to 32 and 1 when zero. NoTruncate disables the
	// floor/ceil of the correction range (HF's truncate=false, used by gpt-oss).
	BetaFast   float64 `json:"beta_fast"`
	BetaSlow   float64 `json:"beta_slow"`
	NoTruncate bool    `json:"no_truncate"`
	// AttentionFactor overrides the derived attention (cos/sin) factor when non-zero (yarn,
	// longrope).
	AttentionFactor float64 `json:"attention_factor"`
	// Mscale and MscaleAllDim are DeepSeek's: with both set the attention factor is
	// mscale(factor, Mscale) / mscale(factor, MscaleAllDim).
	Mscale       float64 `json:"mscale"`
	MscaleAllDim float64 `json:"mscale_all_dim"`

	// Llama 3.
	LowFreqFactor  float64 `json:"low_freq_factor"`
	HighFreqFactor float64 `json:"high_freq_factor"`

	// LongRoPE rescale factors, d/2 each.
	ShortFactor []float64 `json:"short_factor"`
	LongFactor  []float64 `json:"long_factor"`
	// LongRoPEFactorFromLengths takes LongRoPE's factor as max positions / original even when
	// Factor is set (HF v4.57, vLLM and Microsoft's Phi-3 code); HF main takes Factor.
	LongRoPEFactorFromLengths bool `json:"long_rope_factor_from_lengths"`

	// RotatedPairs is proportional RoPE's count of pairs with a frequency, HF's
	// rope_angles = int(partial_rotary_factor · head_dim // 2); 0..RotaryDim/2.
	RotatedPairs int `json:"rotated_pairs"`
}

// MRoPE describes multimodal RoPE (Qwen2-VL family): one position per axis (temporal, height,
// width), with the frequency pairs split among the axes.
type MRoPE struct {
	// Sections are the pair counts per axis; they sum to RotaryDim/2.
	Sections []int `json:"sections"`
	// Interleaved selects Qwen3-VL's interleaved assignment (pair i%3 cycles through the axes)
	// instead of Qwen2-VL's contiguous chunks.
	Interleaved bool `json:"interleaved"`
	// AlternateHW selects ERNIE-4.5-VL's layout: Sections are [h, w, t] (h = w), the first h+w
	// pairs alternate height (even pairs) and width (odd pairs), the last t take time
	// (transformers modeling_ernie4_5_vl_moe.py Ernie4_5_VLMoeTextRotaryEmbedding's pre-rotated
	// inv_freq and recomposition_to_3d; vLLM ernie45_vl_rope.py). Position rows stay (t, h, w).
	AlternateHW bool `json:"alternate_hw"`
	// GGMLFourth selects llama.cpp's IMROPE layout (GGML_ROPE_TYPE_IMROPE: ggml_mrope_cache_init
	// in ggml/src/ggml-cpu/ops.cpp, llama.cpp 82bb48500): interleaved as Hugging Face's, except
	// that a pair none of the first three sections claims takes the fourth position row where
	// HF's takes the temporal one. Qwen3-VL's GGUF sections [24, 20, 20, 0] leave pairs 61 and
	// 62 of 64 to it, so llama.cpp does not rotate such a file as HF rotates its checkpoint.
	// Valid only with Interleaved and four Sections; the fourth may be 0, since ggml reads the
	// row whatever its count, so positions are [4, T].
	//
	// 1-D positions put every row at the position, the fourth included, which turns those
	// pairs as HF does. llama.cpp does not: it feeds a text token 0 in the fourth row
	// (src/llama-graph.cpp llm_graph_input_pos::set_input, llama.cpp 434f71a5b), and an image
	// token too (tools/mtmd/mtmd-helper.cpp decode_embd_batch::set_position_mrope_2d, llama.cpp
	// 2de063ae8), which leaves those pairs unrotated. Pass [4, T] positions with the fourth row
	// 0 to rotate as llama.cpp does.
	GGMLFourth bool `json:"ggml_fourth"`
}

// Axis is the position axis (row) of frequency pair i: chunked takes consecutive runs of
// sections (a fourth section extends them); interleaved, as Hugging Face defines it, takes axis
// 1 for i%3 == 1 while i < 3·s1, axis 2 for i%3 == 2 while i < 3·s2, and axis 0 otherwise;
// AlternateHW takes axis 1 for even and axis 2 for odd i below s0+s1, axis 0 from there;
// GGMLFourth (with Interleaved) takes axis 0 only for i%3 == 0 while i < 3·s0, and axis 3
// where no section claims i.
//
// A nil MRoPE, or one with fewer sections than its layout reads (Validate refuses both), takes
// axis 0 for every pair: the text row, as a pair past the sections does.
func (m *MRoPE) Axis(i int) int {
	if m == nil || len(m.Sections) == 0 {
		return 0
	}
	s := m.Sections
	switch {
	case m.AlternateHW:
		if len(s) > 1 && i < s[0]+s[1] {
			return 1 + i%2
		}
		return 0
	case m.Interleaved:
		switch {
		case i%3 == 1 && len(s) > 1 && i < 3*s[1]:
			return 1
		case i%3 == 2 && len(s) > 2 && i < 3*s[2]:
			return 2
		case m.GGMLFourth && len(s) > 3 && !(i%3 == 0 && i < 3*s[0]):
			return 3
		}
		return 0
	}
	for a, n := range s {
		if i < n {
			return a
		}
		i -= n
	}
	return len(s) - 1
}

// DualChunk is Qwen2.5-1M's dual-chunk attention (vLLM's DualChunkRotaryEmbedding): keys and
// intra-chunk queries are rotated at position p mod (ChunkSize − LocalSize).
type DualChunk struct {
	ChunkSize int `json:"chunk_size"`
	LocalSize int `json:"local_size"`
}

// Spec is everything that determines a model's RoPE. Build one by hand or with package hf.
type Spec struct {
	HeadSize  int     `json:"head_size"`
	RotaryDim int     `json:"rotary_dim"`
	Base      float64 `json:"base"`
	Style     Style   `json:"style"`
	// MaxPositions is max_position_embeddings: the default cache length.
	MaxPositions int     `json:"max_positions"`
	Scaling      Scaling `json:"scaling"`
	MRoPE        *MRoPE  `json:"mrope"`
	// Local holds the per-layer rules (layer types with their own RoPE, layers without RoPE);
	// ForLayer applies them.
	Local     *LocalRoPE `json:"local"`
	DualChunk *DualChunk `json:"dual_chunk"`
	// NoRoPE: the layer has no position embedding (NoPE), so query and key pass through
	// untouched. ForLayer sets it, with RotaryDim, Base and Scaling zero, for the layers a
	// model leaves unrotated; Validate then checks only HeadSize, MaxPositions and the MRoPE
	// section count (which still shape the arguments).
	NoRoPE bool `json:"no_rope"`
	// QueryScale is the position-dependent query scale the model applies beside RoPE (op
	// query_scale). On a model's spec it is the model's rule; ForLayer gives each layer its own
	// (QueryScaleRule.OnLayer).
	QueryScale QueryScaleRule `json:"query_scale,omitzero"`
}

// ErrSpec is wrapped by every error Validate returns.
var ErrSpec = errors.New("invalid rope spec")

func specErr(format string, args ...any) error {
	return errs.Wrapf(ErrSpec, format, args...)
}

// Half is the number of rotation pairs, RotaryDim/2.
func (s Spec) Half() int { return s.RotaryDim / 2 }

// OriginalMax is the trained context length the scaling variants scale from.
func (s Spec) OriginalMax() int {
	if s.Scaling.OriginalMaxPositions > 0 {
		return s.Scaling.OriginalMaxPositions
	}
	return s.MaxPositions
}

func finitePos(v float64) bool { return v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) }

// Validate reports the first problem with s, naming the field and what was expected.
func (s Spec) Validate() error {
	if s.HeadSize <= 0 || s.HeadSize > 1<<16 {
		return specErr("head size %d: want 1..65536", s.HeadSize)
	}
	if err := s.QueryScale.Validate(); err != nil {
		return specErr("query scale: %v", err)
	}
	if s.NoRoPE {
		return s.validateNoRoPE()
	}
	if s.RotaryDim <= 0 || s.RotaryDim%2 != 0 {
		return specErr("rotary dim %d: want a positive even number", s.RotaryDim)
	}
	if s.RotaryDim > s.HeadSize {
		return specErr("rotary dim %d is larger than head size %d", s.RotaryDim, s.HeadSize)
	}
	if !validBase(s.Base) {
		return specErr("base (rope_theta) %v: want a finite number > 1", s.Base)
	}
	if s.Style > GPTJ {
		return specErr("style %d: want neox or gptj", s.Style)
	}
	if s.MaxPositions < 0 {
		return specErr("max positions %d: want ≥ 0", s.MaxPositions)
	}
	if err := s.Scaling.validate(s); err != nil {
		return err
	}
	if m := s.MRoPE; m != nil {
		if n := len(m.Sections); n != 3 && n != 4 {
			return specErr("mrope_section %v: want 3 or 4 sections", m.Sections)
		}
		if err := CheckSections(m.Sections, s.Half()); err != nil {
			return fmt.Errorf("%w: %w", ErrSpec, err)
		}
		if m.AlternateHW && (m.Interleaved || len(m.Sections) != 3 || m.Sections[0] != m.Sections[1]) {
			return specErr("mrope_section %v with ERNIE's alternating h/w layout: want three sections [h, w, t] with h = w, and not interleaved", m.Sections)
		}
		if m.GGMLFourth && (!m.Interleaved || m.AlternateHW || len(m.Sections) != 4) {
			return specErr("mrope_section %v with llama.cpp's IMROPE fourth position: want four sections, interleaved", m.Sections)
		}
	}
	if l := s.Local; l != nil {
		if err := l.validate(s); err != nil {
			return err
		}
	}
	if c := s.DualChunk; c != nil {
		if c.ChunkSize <= 0 || c.LocalSize < 0 || c.LocalSize >= c.ChunkSize {
			return specErr("dual chunk chunk_size %d, local_size %d: want chunk_size > local_size ≥ 0", c.ChunkSize, c.LocalSize)
		}
	}
	return s.checkTables()
}

// validBase: a base ≤ 1 makes every frequency 1 or larger than 1, which no model means, and a
// tiny one makes inv_freq overflow.
func validBase(b float64) bool { return finitePos(b) && b > 1 }

// CheckSections checks MRoPE sections against half = RotaryDim/2. A section outside 0..half is
// refused before summing, so that sections whose int sum wraps around to half are not taken
// for valid ones.
func CheckSections(sections []int, half int) error {
	sum := 0
	for _, v := range sections {
		if v < 0 {
			return fmt.Errorf("mrope_section %v: negative section %d", sections, v)
		}
		if v > half {
			return fmt.Errorf("mrope_section %v: section %d exceeds rotary dim / 2 = %d", sections, v, half)
		}
		sum += v
	}
	if sum != half {
		return fmt.Errorf("mrope_section %v sums to %d: want rotary dim / 2 = %d", sections, sum, half)
	}
	return nil
}

// maxInvFreq keeps p·inv_freq finite for every int64 position p, so that no position, however
// large, turns cos and sin into NaN.
const maxInvFreq = math.MaxFloat64 / (1 << 63)

// checkTables refuses a spec whose tables would hold a value that is not finite: every inv_freq
// must be finite, ≥ 0 and small enough that any position's angle is finite, and the attention
// factor that multiplies cos and sin must be finite, > 0 and representable in float32 (the
// cache's type). The static table is checked, and LongRoPE's long one; the per-call dynamic
// NTK tables only shrink inv_freq as the length grows, so the static check covers them.
func (s Spec) checkTables() error {
	tables := []int{-1}
	if s.Scaling.Type == ScalingLongRoPE {
		tables = append(tables, s.OriginalMax())
	}
	for _, maxPos := range tables {
		inv, att := s.Frequencies(maxPos)
		for i, f := range inv {
			if !(f >= 0 && f <= maxInvFreq) {
				return specErr("rope_theta %v with %s scaling (factor %v) gives inv_freq[%d] = %v: want a finite value ≤ %.3g, so that every position's angle is finite", s.Base, s.Scaling.typeName(), s.Scaling.Factor, i, f, maxInvFreq)
			}
		}
		if !(att > 0 && att <= math.MaxFloat32) {
			return specErr("%s scaling gives attention factor %v: want a finite value in (0, %.4g] (it multiplies the float32 cos and sin)", s.Scaling.typeName(), att, math.MaxFloat32)
		}
	}
	return nil
}

// typeName is the scaling type as configs spell it, "default" when unset.
func (sc Scaling) typeName() string {
	if sc.Type == "" {
		return string(ScalingDefault)
	}
	return string(sc.Type)
}

func (sc Scaling) validate(s Spec) error {
	if err := sc.validateRanges(); err != nil {
		return err
	}
	need := func(name string, v float64) error {
		if !finitePos(v) {
			return specErr("%s scaling needs %s > 0 (got %v)", sc.Type, name, v)
		}
		return nil
	}
	switch sc.Type {
	case "", ScalingDefault:
		return nil
	case ScalingLinear, ScalingDynamic:
		if err := need("factor", sc.Factor); err != nil {
			return err
		}
		if sc.Type == ScalingDynamic && s.RotaryDim <= 2 {
			return specErr("dynamic scaling needs rotary dim > 2 (got %d)", s.RotaryDim)
		}
		if sc.Type == ScalingDynamic && s.OriginalMax() <= 0 {
			return specErr("dynamic scaling needs max_position_embeddings > 0")
		}
		if sc.Type == ScalingDynamic && sc.Dynamic > DynamicMaxTrained {
			return specErr("dynamic length rule %d: want static, per-call or max-trained", sc.Dynamic)
		}
		if sc.Type == ScalingDynamic && sc.Dynamic == DynamicMaxTrained {
			if sc.MaxTrainedPositions < 0 || !(s.dynamicStretch(-1) > 0) {
				return specErr("dynamic max_trained_positions %d with max positions %d and factor %v: the stretch factor·max/trained − (factor−1) must be > 0", sc.MaxTrainedPositions, s.DynamicMax(), sc.Factor)
			}
		}
		return nil
	case ScalingNTK:
		return need("factor", sc.Factor)
	case ScalingProportional:
		if sc.RotatedPairs < 0 || sc.RotatedPairs > s.Half() {
			return specErr("proportional rotated pairs %d: want 0..rotary dim / 2 = %d", sc.RotatedPairs, s.Half())
		}
		return need("factor", sc.Factor)
	case ScalingNTKAlpha:
		if s.RotaryDim <= 2 {
			return specErr("ntk alpha scaling needs rotary dim > 2 (got %d)", s.RotaryDim)
		}
		return need("alpha", sc.Alpha)
	case ScalingYaRN:
		if err := need("factor", sc.Factor); err != nil {
			return err
		}
		if s.OriginalMax() <= 0 {
			return specErr("yarn scaling needs original_max_position_embeddings > 0")
		}
		if sc.BetaFast < 0 || sc.BetaSlow < 0 {
			return specErr("yarn beta_fast %v / beta_slow %v: want ≥ 0", sc.BetaFast, sc.BetaSlow)
		}
		return nil
	case ScalingLlama3:
		if err := need("factor", sc.Factor); err != nil {
			return err
		}
		if err := need("low_freq_factor", sc.LowFreqFactor); err != nil {
			return err
		}
		if err := need("high_freq_factor", sc.HighFreqFactor); err != nil {
			return err
		}
		if sc.HighFreqFactor < sc.LowFreqFactor {
			return specErr("llama3 high_freq_factor %v is below low_freq_factor %v", sc.HighFreqFactor, sc.LowFreqFactor)
		}
		if sc.OriginalMaxPositions <= 0 {
			return specErr("llama3 scaling needs original_max_position_embeddings > 0")
		}
		return nil
	case ScalingLongRoPE:
		h := s.Half()
		if len(sc.ShortFactor) != h || len(sc.LongFactor) != h {
			return specErr("longrope short_factor has %d and long_factor %d entries: want rotary dim / 2 = %d each", len(sc.ShortFactor), len(sc.LongFactor), h)
		}
		for i := range h {
			if !finitePos(sc.ShortFactor[i]) || !finitePos(sc.LongFactor[i]) {
				return specErr("longrope factors must be finite and > 0 (entry %d)", i)
			}
		}
		if s.OriginalMax() <= 0 {
			return specErr("longrope scaling needs original_max_position_embeddings > 0")
		}
		return nil
	}
	return specErr("unknown rope type %q (want default, linear, dynamic, ntk, ntk_alpha, yarn, llama3, longrope or proportional)", sc.Type)
}

// validateRanges checks every scalar parameter whatever the variant: those a variant reads only
// when set must still be finite, and those that scale something must not be negative.
func (sc Scaling) validateRanges() error {
	for _, p := range []struct {
		name        string
		v           float64
		nonNegative bool
	}{
		{"factor", sc.Factor, true}, {"alpha", sc.Alpha, true},
		{"beta_fast", sc.BetaFast, true}, {"beta_slow", sc.BetaSlow, true},
		{"attention_factor", sc.AttentionFactor, true},
		{"mscale", sc.Mscale, false}, {"mscale_all_dim", sc.MscaleAllDim, false},
		{"mixed_b", sc.MixedB, false},
		{"low_freq_factor", sc.LowFreqFactor, true}, {"high_freq_factor", sc.HighFreqFactor, true},
	} {
		if math.IsNaN(p.v) || math.IsInf(p.v, 0) || (p.nonNegative && p.v < 0) {
			want := "a finite number"
			if p.nonNegative {
				want = "a finite number ≥ 0"
			}
			return specErr("%s scaling %s %v: want %s", sc.typeName(), p.name, p.v, want)
		}
	}
	return nil
}
