package check

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rope"
)

// Severity grades a finding: errors break the run or its numbers, warnings may.
type Severity string

// The severities.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
)

// Finding is one problem.
type Finding struct {
	Severity Severity `json:"severity"`
	Code     string   `json:"code"`
	What     string   `json:"what"`
	Why      string   `json:"why"`
	Fix      string   `json:"fix"`
}

func (f Finding) String() string {
	return fmt.Sprintf("%s [%s] %s\n  why: %s\n  fix: %s", f.Severity, f.Code, f.What, f.Why, f.Fix)
}

// Launch holds the launch options checked against the config. Zero values mean "not given".
type Launch struct {
	// PositionEmbeddingType is Megatron's position_embedding_type: "rope" or "mrope".
	PositionEmbeddingType string
	// UseFusedRotaryPosEmb is MindSpeed's --use-fused-rotary-pos-emb.
	UseFusedRotaryPosEmb bool
	// ApplyRoPEFusion is Megatron Core / Bridge's apply_rope_fusion.
	ApplyRoPEFusion bool
	// PositionRows is the row count of the positions tensor the caller passes (1, 3 or 4).
	PositionRows int
	// CacheMode is npu_mrope's cache_mode: "default" or "interleave".
	CacheMode string
	// RotaryMode is the pair layout the launch uses: "half" or "interleave".
	RotaryMode string
	// Op is the fused operator the launch calls, when one is named: rotary's name of it or
	// torch_npu's ("npu_mrope", "npu_interleave_rope", "npu_rotary_mul", "rotary_embedding",
	// ...; see OpNames).
	Op string
	// Style, when not nil, is the pairing the checkpoint uses as the caller knows it
	// (hf.ParseOptions.Style, rotary check --style): it names the pairing of a model_type hf
	// does not know, which is otherwise assumed NeoX and reported.
	Style *rope.Style
}

// CanonicalOp returns the registry name (one of ops.Names) of an op named by rotary's name or
// torch_npu's, and false for a name rotary does not know: ops.Canonical.
func CanonicalOp(name string) (string, bool) { return ops.Canonical(name) }

// OpNames lists every name CanonicalOp accepts, sorted: ops.NamesWithAliases.
func OpNames() []string { return ops.NamesWithAliases() }

// Config runs every check on a config.json and launch options.
func Config(data []byte, l Launch) []Finding {
	var c checker
	if l.Op != "" {
		op, ok := CanonicalOp(l.Op)
		if !ok {
			c.add(Error, "op", fmt.Sprintf("unknown op %q", l.Op),
				"the checks of an op's limits only run for an op they know: a misspelt name would pass without them",
				"name the op as torch_npu or rotary does: "+strings.Join(OpNames(), ", "))
		}
		l.Op = op
	}
	c.launch = l
	m, err := hf.ParseOptions{Style: l.Style}.Parse(data)
	c.raw(data, m)
	if c.parseFailed {
		return c.findings
	}
	if err != nil {
		c.parseError(err)
		return c.findings
	}
	if a := m.Assumption(); a != "" {
		c.add(Warning, "model-type", a,
			"config.json does not record the pair layout; it follows the checkpoint's weights, and a checkpoint that pairs (2i, 2i+1) rotated as (i, i+d/2), or the reverse, gives wrong attention without any error",
			"read the model's modeling code (rotate_half: neox; rotate_every_two or interleaved cos/sin: gptj) and pass the --style it names, or set a known model_type: "+strings.Join(hf.KnownModelTypes(), ", "))
	}
	for _, f := range m.HFFails {
		c.add(Warning, "hf-fails", f.String(),
			"Hugging Face transformers main, the reading rotary takes for its reference, raises on this config, so no run of it says which RoPE the checkpoint was trained with: the reading rotary takes in its place is a guess",
			"read the checkpoint's own modeling code and make the config say what it does, so that transformers main runs it (rotary inspect shows the reading taken)")
	}
	for _, u := range m.Unread {
		why := "a key nobody reads leaves its default in place: a misspelt original_max_position_embeddings falls back to max_position_embeddings, and the cos/sin change with no error (transformers' rope_config_validation warns about such keys too)"
		fix := "remove the key, or give the rope type that reads it (rotary inspect shows what is read)"
		switch {
		case u.Why != "":
			why = "the reading taken here leaves this key aside where another reader may take it (the message names who reads it and what is taken instead), so the RoPE a checkpoint gets can depend on which one loads it"
			fix = "keep one value, under the key the readers named all take (rotary check --frameworks compares the readings of the frameworks rotary models)"
		case u.Suggest != "":
			fix = "rename it " + u.Suggest
		}
		c.add(Warning, "unread-key", u.String(), why, fix)
	}
	c.model(m)
	return c.findings
}

type checker struct {
	launch      Launch
	findings    []Finding
	parseFailed bool
	covered     map[string]bool // codes the raw checks reported, so a parse error is not repeated
}

func (c *checker) add(sev Severity, code, what, why, fix string) {
	if c.covered == nil {
		c.covered = map[string]bool{}
	}
	c.covered[code] = true
	c.findings = append(c.findings, Finding{Severity: sev, Code: code, What: what, Why: why, Fix: fix})
}

// HasErrors reports whether any finding is an error.
func HasErrors(fs []Finding) bool {
	for _, f := range fs {
		if f.Severity == Error {
			return true
		}
	}
	return false
}

// Guess is the first of the findings that says the config's RoPE rests on a guess, what
// --strict refuses: a key its variant does not read or a near miss of a RoPE key
// ("unread-key"), a pairing assumed for an unknown model_type ("model-type"), or a config
// transformers main cannot run ("hf-fails"), as hf.Model.Warnings says them. ok is false when
// none does.
func Guess(fs []Finding) (f Finding, ok bool) {
	for _, f := range fs {
		if f.Severity == Warning && (f.Code == "unread-key" || f.Code == "model-type" || f.Code == "hf-fails") {
			return f, true
		}
	}
	return Finding{}, false
}

// raw checks the rope object: what hf.Parse would reject with less explanation, and what it
// accepts but a launch would trip on. It reads the config through hf's raw view; the head size
// and rotary dim are m's when hf parsed the config, the raw view's (hf's rules, unchecked) to
// explain a config hf refuses.
func (c *checker) raw(data []byte, m *hf.Model) {
	r, err := hf.ReadRaw(data)
	if err != nil {
		c.parseFailed = true
		c.add(Error, "config-json", fmt.Sprintf("the config is not a JSON object: %v", err), "nothing can be derived from it", "pass the model's config.json")
		return
	}
	head, rd := r.HeadSize(), r.RotaryDim()
	if m != nil {
		head, rd = m.Spec.HeadSize, m.Spec.RotaryDim
	}
	if head > 0 && rd > head {
		c.add(Error, "rotary-dim", fmt.Sprintf("rotary dim %d is larger than head dim %d", rd, head),
			"a kernel that trusts the rotary dim reads and writes past each head into the next one: FlashInfer issue #4349 corrupts the neighbouring head silently, with no error",
			"set rotary_dim / partial_rotary_factor so that the rotary dim is ≤ head_dim")
	}
	if rd > 0 {
		c.longRoPELengths(r, rd)
		c.sections(r, rd)
		c.yarnFactor(r, m)
	}
}

func (c *checker) longRoPELengths(r *hf.Raw, rd int) {
	if k := r.RopeType(); k != "longrope" && k != "su" {
		return
	}
	for _, l := range r.LongRoPEFactors() {
		if len(l.Values) != rd/2 {
			c.add(Error, "longrope-factors", fmt.Sprintf("rope_scaling.%s has %d entries, want rotary dim / 2 = %d", l.Key, len(l.Values), rd/2),
				"each entry rescales one frequency pair: a list of the wrong length belongs to another model or another partial_rotary_factor, and implementations either crash or silently broadcast",
				fmt.Sprintf("use the %s list published with this checkpoint (%d values)", l.Key, rd/2))
		}
	}
}

func (c *checker) sections(cfg *hf.Raw, rd int) {
	raw, ok, err := cfg.Sections()
	if !ok || err != nil {
		return
	}
	// Each section is checked against 0..rd/2 before summing: a sum of huge values can wrap
	// around to the right total.
	sum, n, inRange := 0, len(raw), true
	for _, v := range raw {
		f, ok := v.(float64)
		if !ok || f != math.Trunc(f) || f < 0 || f > float64(rd/2) {
			inRange = false
			c.add(Error, "mrope-sections", fmt.Sprintf("mrope_section %v: entry %v is not an integer in 0..%d (rotary dim / 2)", raw, v, rd/2),
				"each section counts frequency pairs, so it lies between 0 and the number of pairs",
				fmt.Sprintf("use sections summing to %d, e.g. Qwen2-VL [16,24,24] or Qwen3-VL [24,20,20] for rotary dim 128", rd/2))
			break
		}
		sum += int(f)
	}
	if n != 3 && n != 4 {
		c.add(Error, "mrope-sections", fmt.Sprintf("mrope_section %v has %d sections, want 3 (t, h, w) or 4", raw, n),
			"npu_mrope and every MRoPE implementation take one position row per section", "give 3 sections (or 4 with cache_mode default)")
	}
	if inRange && sum != rd/2 {
		c.add(Error, "mrope-sections", fmt.Sprintf("mrope_section %v sums to %d, want rotary dim / 2 = %d", raw, sum, rd/2),
			"each section assigns frequency pairs to a position axis; pairs left over or missing rotate with the wrong axis or not at all (npu_mrope rejects it)",
			fmt.Sprintf("use sections summing to %d, e.g. Qwen2-VL [16,24,24] or Qwen3-VL [24,20,20] for rotary dim 128", rd/2))
	}
	if n == 4 && c.launch.CacheMode == "interleave" {
		c.add(Error, "mrope-cache-mode", "4 mrope sections with cache_mode interleave",
			"npu_mrope's interleave cache mode interleaves exactly three axes (t, h, w); four sections are only defined for cache_mode default",
			"use cache_mode default with 4 sections, or 3 sections with interleave")
	}
	if r := c.launch.PositionRows; r != 0 && r != n && r != 1 {
		c.add(Error, "mrope-position-rows", fmt.Sprintf("positions have %d rows but mrope_section has %d sections", r, n),
			"each position row drives one section: npu_mrope requires positions.shape == (len(mrope_section), T)",
			fmt.Sprintf("pass positions of shape [%d, T] (1-D positions mean text-only input)", n))
	}
}

// parseError turns an hf parse failure into a finding, unless a raw check already explained it.
func (c *checker) parseError(err error) {
	msg := err.Error()
	switch {
	case errors.Is(err, hf.ErrNoRoPE):
		c.add(Error, "no-rope", msg, "the model positions tokens without rotary position embeddings, so there is no RoPE contract to check or compute",
			"use the model's own position scheme; rotary has nothing to do for it")
	case strings.Contains(msg, "model_type"):
		c.add(Error, "model-type", msg, "the pair layout (NeoX or GPT-J) and the keys to read depend on the family; guessing rotates the wrong elements", "set model_type to a known family: "+strings.Join(hf.KnownModelTypes(), ", "))
	case c.covered["rotary-dim"] && strings.Contains(msg, "rotary"),
		c.covered["longrope-factors"] && strings.Contains(msg, "factor"),
		c.covered["mrope-sections"] && strings.Contains(msg, "mrope"):
		// already reported with its reason
	default:
		c.add(Error, "config", msg, "the config does not describe a valid RoPE", "fix the named key")
	}
}

// model runs the checks that need the derived spec and the launch options.
func (c *checker) model(m *hf.Model) {
	l := c.launch
	s := m.Spec
	c.longRoPEFactor(m)
	c.variants(m)
	if s.MRoPE != nil {
		sections := fmt.Sprint(s.MRoPE.Sections)
		if l.PositionEmbeddingType == "rope" {
			c.add(Error, "mrope-on-rope-branch", fmt.Sprintf("%s is an MRoPE model (mrope_section %s) launched with position_embedding_type rope", m.ModelType, sections),
				"Megatron Core's rope branch calls rotary_pos_emb.get_rotary_seq_len(...), which the multimodal rotary embedding does not have: AttributeError '...MultimodalRotaryEmbedding' object has no attribute 'get_rotary_seq_len'; even patched, its forward(position_ids, mrope_section, ...) takes other arguments",
				"set position_embedding_type=\"mrope\" with mrope_section="+sections+" and apply_rope_fusion=False")
		}
		if l.UseFusedRotaryPosEmb {
			c.add(Error, "fused-rope-with-mrope", "--use-fused-rotary-pos-emb on an MRoPE model",
				"MindSpeed's fused RoPE (npu_rotary_position_embedding) is the plain-rope path: its argument check requires --position-embedding-type rope, and it has no notion of 3-axis positions",
				"drop --use-fused-rotary-pos-emb; for a fused NPU MRoPE call torch_npu.npu_mrope explicitly at the q/k rotary apply (cache_mode interleave for Qwen3-VL)")
		}
		if l.ApplyRoPEFusion {
			c.add(Error, "rope-fusion-with-mrope", "apply_rope_fusion=True on an MRoPE model",
				"Megatron's MRoPE path asserts not config.apply_rope_fusion: the fusion switch only covers the plain rope branch",
				"set apply_rope_fusion=False; fuse MRoPE with an explicit npu_mrope branch that handles q and k together")
		}
		if r := l.PositionRows; r != 0 && r != 1 && r != len(s.MRoPE.Sections) && !c.covered["mrope-position-rows"] {
			c.add(Error, "mrope-position-rows", fmt.Sprintf("positions have %d rows but mrope_section has %d sections", r, len(s.MRoPE.Sections)),
				"each position row drives one section", fmt.Sprintf("pass positions of shape [%d, T]", len(s.MRoPE.Sections)))
		}
		if s.MRoPE.GGMLFourth && l.CacheMode != "" {
			c.add(Error, "mrope-cache-mode", fmt.Sprintf("%s uses llama.cpp's IMROPE layout (mrope_section %s: the pairs no section claims take a fourth position row) but is launched on npu_mrope with cache_mode %s", m.ModelType, sections, l.CacheMode),
				"npu_mrope's interleave mode is Hugging Face's: a pair no section claims takes the temporal position; ggml_mrope_cache_init gives it the fourth row, which llama.cpp fills with 0 for text and image tokens, and default mode chunks the sections instead",
				"to match llama.cpp rotate with the GGUF's spec (rotary.Embedding, [4, T] positions with the fourth row 0 for text); to match Hugging Face, with the checkpoint's config and cache_mode interleave")
		} else if s.MRoPE.AlternateHW && l.CacheMode != "" {
			c.add(Error, "mrope-cache-mode", fmt.Sprintf("%s uses ERNIE-4.5-VL's MRoPE (h and w alternating over the first %d pairs, t last) but is launched on npu_mrope with cache_mode %s", m.ModelType, s.MRoPE.Sections[0]+s.MRoPE.Sections[1], l.CacheMode),
				"npu_mrope's cache modes are Qwen2-VL's chunks (default) and Qwen3-VL's round-robin over three axes (interleave); neither gives even pairs height and odd pairs width (transformers Ernie4_5_VLMoeTextRotaryEmbedding, vLLM Ernie4_5_VLRotaryEmbedding)",
				"rotate with the model's own 3-D RoPE (vLLM's Ernie4_5_VLRotaryEmbedding, rotary apply) instead of npu_mrope")
		} else if s.MRoPE.Interleaved && l.CacheMode == "default" {
			c.add(Error, "mrope-cache-mode", fmt.Sprintf("%s uses interleaved MRoPE but cache_mode is default", m.ModelType),
				"Qwen3-VL's apply_interleaved_mrope spreads h and w over pairs 1::3 and 2::3; cache_mode default concatenates the sections and gives each axis the wrong frequencies",
				"use cache_mode interleave")
		}
		if !s.MRoPE.Interleaved && !s.MRoPE.AlternateHW && l.CacheMode == "interleave" {
			c.add(Error, "mrope-cache-mode", fmt.Sprintf("%s uses chunked MRoPE but cache_mode is interleave", m.ModelType),
				"Qwen2/2.5-VL take consecutive runs of pairs per axis; interleave mode assigns them round-robin", "use cache_mode default")
		}
	} else {
		if l.PositionEmbeddingType == "mrope" {
			c.add(Error, "rope-on-mrope-branch", fmt.Sprintf("%s has no mrope_section but position_embedding_type is mrope", m.ModelType),
				"the MRoPE branch needs sections to split the frequencies among position axes", "use position_embedding_type rope")
		}
		if l.PositionRows > 1 {
			c.add(Error, "position-rows", fmt.Sprintf("positions have %d rows for a model without MRoPE", l.PositionRows),
				"plain RoPE takes one position per token", "pass positions of shape [T]")
		}
		if l.Op == ops.MRoPE.Name() && l.CacheMode == "interleave" {
			c.add(Error, "mrope-cache-mode", "cache_mode interleave without mrope_section", "interleave mode only reorders MRoPE sections", "use cache_mode default, or no MRoPE op")
		}
	}
	// When the style is a guess (the model-type warning says so) the launch may know better.
	switch l.RotaryMode {
	case "half":
		if s.Style == rope.GPTJ && !m.StyleAssumed {
			c.add(Error, "rotary-mode", fmt.Sprintf("rotary_mode half on %s, whose checkpoints pair (2i, 2i+1)", m.ModelType),
				"the pair layout follows the weights: rotating (i, i+d/2) pairs mixes unrelated elements and ruins attention without any error",
				"use rotary_mode interleave (GPT-J style)")
		}
	case "interleave":
		if s.Style == rope.NeoX && !m.StyleAssumed {
			c.add(Error, "rotary-mode", fmt.Sprintf("rotary_mode interleave on %s, whose checkpoints pair (i, i+d/2)", m.ModelType),
				"the pair layout follows the weights: rotating (2i, 2i+1) pairs mixes unrelated elements and ruins attention without any error",
				"use rotary_mode half (GPT-NeoX style)")
		}
	case "":
	default:
		c.add(Error, "rotary-mode", fmt.Sprintf("rotary_mode %q", l.RotaryMode), "torch_npu knows half and interleave", "use half or interleave")
	}
	if l.Op == ops.InterleaveRoPE.Name() {
		if s.RotaryDim != 64 {
			c.add(Error, "interleave-rope-dim", fmt.Sprintf("npu_interleave_rope with rotary dim %d", s.RotaryDim),
				"npu_interleave_rope supports only D = 64 (4-D BNSD x, cos and sin with N = 1), for inference in graph mode",
				"use npu_rotary_mul(rotary_mode='interleave') or npu_mrope for other sizes")
		}
		if s.Style != rope.GPTJ {
			c.add(Error, "interleave-rope-style", fmt.Sprintf("npu_interleave_rope on %s, a NeoX-style model", m.ModelType),
				"the op always pairs (2i, 2i+1); this checkpoint pairs (i, i+d/2)", "use npu_rotary_mul with rotary_mode half")
		}
		if s.MRoPE != nil {
			c.add(Error, "interleave-rope-mrope", "npu_interleave_rope on an MRoPE model",
				"it takes gathered cos/sin for one position axis and knows no mrope_section", "use npu_mrope")
		}
	}
}

// longRoPEFactor warns when a LongRoPE config's factor differs from max / original: HF main
// computes the attention factor from the config's factor, HF v4.57, vLLM
// (phi3_long_rope_scaled_rope.py) and Microsoft's Phi-3 code from the ratio, so the frameworks
// scale cos and sin differently.
func (c *checker) longRoPEFactor(m *hf.Model) {
	s := m.Spec
	if s.Scaling.Type != rope.ScalingLongRoPE || s.Scaling.AttentionFactor != 0 {
		return
	}
	byLengths := s
	byLengths.Scaling.LongRoPEFactorFromLengths = true
	_, hfMain := s.Frequencies(-1)
	_, ratio := byLengths.Frequencies(-1)
	if hfMain == ratio {
		return
	}
	c.add(Warning, "longrope-factor",
		fmt.Sprintf("longrope factor %v differs from max_position_embeddings / original = %v: attention factor %.6f (HF main) vs %.6f (HF v4.57, vLLM, Microsoft's code)",
			s.Scaling.Factor, byLengths.LongRoPEFactor(), hfMain, ratio),
		"HF main takes the config's factor for the attention factor; the older readings take the ratio of the lengths, so cos and sin differ by that ratio between frameworks",
		"set rope_scaling.attention_factor explicitly, or make factor equal max_position_embeddings / original_max_position_embeddings")
}
