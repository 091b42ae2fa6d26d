package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/check"
	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/multimodal"
)

const inspectUsage = "CONFIG.json | FILE.gguf | --model PRESET [--layer N] [--style neox|gptj] [--rope main|indexer] [--json]"

// inspectReport is what inspect prints; its JSON form is a contract for tools.
type inspectReport struct {
	Source          string            `json:"source"`
	ModelType       string            `json:"model_type"`
	Layer           int               `json:"layer"`
	NumLayers       int               `json:"num_layers,omitempty"`
	NumHeads        int               `json:"num_heads"`
	NumKVHeads      int               `json:"num_kv_heads"`
	HeadSize        int               `json:"head_size"`
	RotaryDim       int               `json:"rotary_dim"`
	Style           string            `json:"style"`
	StyleAssumed    bool              `json:"style_assumed,omitempty"`
	Base            float64           `json:"base"`
	MaxPositions    int               `json:"max_position_embeddings"`
	CacheLen        int               `json:"cache_len"`
	Scaling         rotary.Scaling    `json:"scaling"`
	AttentionFactor float64           `json:"attention_factor"`
	InvFreq         []float64         `json:"inv_freq"`
	LongInvFreq     []float64         `json:"inv_freq_long,omitempty"`
	MRoPE           *rotary.MRoPE     `json:"mrope,omitempty"`
	Local           *rotary.LocalRoPE `json:"local,omitempty"`
	GlobalLayer     bool              `json:"global_layer"`
	LayerType       string            `json:"layer_type,omitempty"`
	NoRoPE          bool              `json:"no_rope,omitempty"`
	DualChunk       *rotary.DualChunk `json:"dual_chunk,omitempty"`
	// SoftmaxMscale is the factor a DeepSeek-style attention multiplies its softmax scale by
	// (yarn_get_mscale(factor, mscale_all_dim)²): not RoPE, so in no cos/sin (see softmaxMscale).
	SoftmaxMscale float64  `json:"softmax_mscale,omitempty"`
	Notes         []string `json:"notes,omitempty"`
	// Warnings are the reasons the RoPE may not be the checkpoint's (modelWarnings): unread or
	// misspelt keys, an assumed pairing.
	Warnings []string `json:"warnings,omitempty"`
	// Rope names the spec the fields above describe: "main", or "indexer" under --rope indexer.
	Rope string `json:"rope"`
	// Indexer is the model's second RoPE (DeepSeek-V3.2's lightning indexer), whichever --rope
	// chose, so that one report shows both; its cos/sin are the main RoPE's.
	Indexer *indexerReport `json:"indexer,omitempty"`
	// PositionsFamily is the multimodal family whose get_rope_index `rotary positions` runs for
	// this model_type, empty for a text-only model.
	PositionsFamily string `json:"positions_family,omitempty"`
}

// indexerReport is what differs between the indexer's spec and the main one.
type indexerReport struct {
	HeadSize  int    `json:"head_size"`
	RotaryDim int    `json:"rotary_dim"`
	Style     string `json:"style"`
}

func runInspect(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("inspect", inspectUsage, stderr)
	var m modelFlags
	m.register(fs.FlagSet)
	asJSON := fs.Bool("json", false, "print JSON")
	// The config may come before or after the flags.
	var positional []string
	for len(args) > 0 {
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		args = fs.Args()
		if len(args) > 0 {
			positional = append(positional, args[0])
			args = args[1:]
		}
	}
	switch {
	case len(positional) > 1:
		return usagef("unexpected argument %q", positional[1])
	case len(positional) == 1 && m.config != "":
		return usagef("give the config once (as an argument or --config)")
	case len(positional) == 1:
		m.config = positional[0]
	}
	if isGGUF(m.config) {
		return inspectGGUF(m, *asJSON, stdout)
	}
	if err := presetNotFile(m.config); err != nil {
		return err
	}
	model, spec, err := m.load()
	if err != nil {
		return err
	}
	r, err := inspect(model, spec, m)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(snakeJSON(r))
	}
	printInspect(stdout, r, spec)
	return nil
}

func inspect(model *hf.Model, spec rotary.Spec, m modelFlags) (*inspectReport, error) {
	emb, err := rotary.New(spec, rotary.WithCacheLen(0))
	if err != nil {
		return nil, usageError{err}
	}
	cacheLen := spec.DefaultCacheLen()
	if spec.NoRoPE {
		cacheLen = 0
	}
	src := m.config
	if m.preset != "" {
		src = "preset " + m.preset
	}
	notes := model.Notes
	mscale := softmaxMscale(model.ModelType, spec.Scaling)
	if mscale != 0 {
		notes = append(slices.Clip(notes), fmt.Sprintf("the attention also multiplies its softmax scale (qk_head_dim^-0.5) by yarn_get_mscale(%g, mscale_all_dim %g)² = %.17g: not RoPE, so in no cos/sin here and not in the attention factor above (transformers %s yarn_apply_mscale)", spec.Scaling.Factor, spec.Scaling.MscaleAllDim, mscale, model.ModelType))
	}
	if why, ok := multimodal.Unsupported(model.TopModelType); ok {
		notes = append(slices.Clip(notes), "positions: "+why)
	}
	var ix *indexerReport
	if s := model.Indexer; s != nil {
		ix = &indexerReport{HeadSize: s.HeadSize, RotaryDim: s.RotaryDim, Style: s.Style.String()}
	}
	return &inspectReport{
		Rope: m.rope, Indexer: ix,
		Source: src, ModelType: model.ModelType, Layer: m.layer, NumLayers: model.NumLayers,
		NumHeads: model.NumHeads, NumKVHeads: model.NumKVHeads, HeadSize: spec.HeadSize,
		RotaryDim: spec.RotaryDim, Style: spec.Style.String(), StyleAssumed: model.StyleAssumed, Base: spec.Base,
		MaxPositions: spec.MaxPositions, CacheLen: cacheLen, Scaling: spec.Scaling,
		AttentionFactor: emb.AttentionFactor(), InvFreq: emb.InvFreq(), LongInvFreq: emb.LongInvFreq(),
		MRoPE: spec.MRoPE, Local: model.Spec.Local, GlobalLayer: model.Spec.IsGlobalLayer(m.layer),
		LayerType: model.Spec.LayerType(m.layer), NoRoPE: spec.NoRoPE, DualChunk: spec.DualChunk, Notes: notes,
		SoftmaxMscale: mscale, PositionsFamily: positionsFamily(model), Warnings: modelWarnings(model),
	}, nil
}

// positionsFamily names the multimodal positions family of m, or "": the top level's, which
// builds the positions, when it names another model than the text model; a wrapper whose
// positions rotary does not compute has none, whatever its text model's would be.
func positionsFamily(m *hf.Model) string {
	modelType := m.ModelType
	if m.TopModelType != "" && m.TopModelType != m.ModelType {
		if _, ok := multimodal.Unsupported(m.TopModelType); ok {
			return ""
		}
		if k, err := multimodal.KindForModelType(m.TopModelType); err == nil {
			return k.String()
		}
	}
	k, err := multimodal.KindForModelType(modelType)
	if err != nil {
		return ""
	}
	return k.String()
}

func describeScaling(s rotary.Spec) string {
	parts := []string{check.ScalingWords(s.Scaling)}
	if s.MRoPE != nil {
		kind := "chunked"
		if s.MRoPE.Interleaved {
			kind = "interleaved"
		}
		if s.MRoPE.AlternateHW {
			kind = "h/w alternating, t last (ERNIE)"
		}
		mr := fmt.Sprintf("mrope %s %v", kind, s.MRoPE.Sections)
		if p := check.FourthRowPairs(s.MRoPE, s.Half()); s.MRoPE.GGMLFourth && len(p) > 0 {
			mr += fmt.Sprintf(", %s on llama.cpp's fourth position row", check.PairList(p))
		}
		parts = append(parts, mr)
	}
	if s.Local != nil {
		parts = append(parts, describeLocal(s.Local))
	}
	if s.DualChunk != nil {
		parts = append(parts, fmt.Sprintf("dual-chunk %d/%d", s.DualChunk.ChunkSize, s.DualChunk.LocalSize))
	}
	return strings.Join(parts, ", ")
}

// describeLocal names a per-layer model's rules: the sliding layers' local base (Gemma 3, OLMo 3),
// each layer type's own base (Gemma 4, gpt-oss) and the layers without RoPE (Llama 4, SmolLM3,
// Cohere2, EXAONE 4). A rule the model lacks is not named: a local base of 0 means none.
func describeLocal(l *rotary.LocalRoPE) string {
	var rules []string
	if l.Base != 0 {
		rules = append(rules, fmt.Sprintf("local base %g", l.Base))
	}
	for _, name := range slices.Sorted(maps.Keys(l.Types)) {
		if t := l.Types[name]; t.NoRoPE {
			rules = append(rules, name+" without RoPE")
		} else {
			rules = append(rules, fmt.Sprintf("%s base %g", name, t.Base))
		}
	}
	if n := countTrue(l.NoRoPE); n > 0 {
		rules = append(rules, fmt.Sprintf("%d of %d layers without RoPE", n, len(l.NoRoPE)))
	}
	if len(rules) == 0 {
		return "per-layer"
	}
	return "per-layer " + strings.Join(rules, ", ")
}

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

func printInspect(w io.Writer, r *inspectReport, spec rotary.Spec) {
	p := func(k string, format string, args ...any) {
		fmt.Fprintf(w, "%-22s %s\n", k+":", fmt.Sprintf(format, args...))
	}
	p("source", "%s", r.Source)
	p("model type", "%s", r.ModelType)
	if r.Rope == "indexer" {
		p("rope", "the lightning indexer's (--rope indexer)")
	}
	p("heads", "%d query, %d key/value", r.NumHeads, r.NumKVHeads)
	p("head size", "%d", r.HeadSize)
	for _, w := range r.Warnings {
		p("warning", "%s", w)
	}
	if r.NoRoPE {
		// Nothing below applies to a layer that rotates nothing.
		p("layer", "%d: no RoPE on this layer (query and key pass through unrotated)", r.Layer)
		for _, note := range r.Notes {
			p("note", "%s", note)
		}
		return
	}
	p("rotary dim", "%d (%d pairs, %d pass-through)", r.RotaryDim, r.RotaryDim/2, r.HeadSize-r.RotaryDim)
	if r.StyleAssumed {
		p("style", "%s (assumed: the model_type is not a known family; --style names it)", r.Style)
	} else {
		p("style", "%s", r.Style)
	}
	p("base (rope_theta)", "%g", r.Base)
	p("max positions", "%d (cache %d rows)", r.MaxPositions, r.CacheLen)
	p("scaling", "%s", describeScaling(spec))
	if r.PositionsFamily != "" {
		p("positions", "%s's get_rope_index (rotary positions --family %s)", r.PositionsFamily, r.PositionsFamily)
	}
	sc := r.Scaling
	switch sc.Type {
	case rotary.ScalingYaRN:
		p("yarn", "original=%d beta_fast=%g beta_slow=%g truncate=%t mscale=%g mscale_all_dim=%g", spec.OriginalMax(), orDefault(sc.BetaFast, 32), orDefault(sc.BetaSlow, 1), !sc.NoTruncate, sc.Mscale, sc.MscaleAllDim)
	case rotary.ScalingLlama3:
		p("llama3", "original=%d low_freq_factor=%g high_freq_factor=%g", sc.OriginalMaxPositions, sc.LowFreqFactor, sc.HighFreqFactor)
	case rotary.ScalingLongRoPE:
		rule := "config's factor, else max / original (HF main)"
		if sc.LongRoPEFactorFromLengths {
			rule = "max / original (HF v4.57, vLLM, Microsoft)"
		}
		if sc.AttentionFactor != 0 {
			p("longrope", "original=%d (long factors when any position ≥ it); attention factor as given (attention_factor, short_mscale / long_mscale, or the dialect's)", spec.OriginalMax())
			break
		}
		p("longrope", "original=%d (long factors when any position ≥ it); attention from factor %g: the %s", spec.OriginalMax(), spec.LongRoPEFactor(), rule)
	case rotary.ScalingDynamic:
		p("dynamic", "original=%d max=%d length=%s", spec.OriginalMax(), spec.DynamicMax(), sc.Dynamic.Describe())
	case rotary.ScalingProportional:
		p("proportional", "%s; the other %d pairs have frequency 0 and pass unchanged", rotatedPairs(spec), spec.Half()-sc.RotatedPairs)
	}
	p("attention factor", "%.17g", r.AttentionFactor)
	if ix := r.Indexer; ix != nil {
		p("indexer rope", "head %d, dims 0..%d rotated (%s), %d pass-through; the same cos/sin (--rope indexer selects it)", ix.HeadSize, ix.RotaryDim-1, ix.Style, ix.HeadSize-ix.RotaryDim)
	}
	if r.Local != nil {
		p("layer", "%d: %s", r.Layer, layerKind(r))
	}
	n := len(r.InvFreq)
	p("inv_freq", "[0]=%.17g [1]=%.17g ... [%d]=%.17g", r.InvFreq[0], at(r.InvFreq, 1), n-1, r.InvFreq[n-1])
	if r.LongInvFreq != nil {
		p("inv_freq (long)", "[0]=%.17g ... [%d]=%.17g", r.LongInvFreq[0], n-1, r.LongInvFreq[n-1])
	}
	for _, note := range r.Notes {
		p("note", "%s", note)
	}
}

// layerKind says which of the model's per-layer rules layer r.Layer follows.
func layerKind(r *inspectReport) string {
	t := r.LayerType
	if _, own := r.Local.Types[t]; own {
		return t + " (its own RoPE: the values above)"
	}
	switch {
	case t == "":
		return "rotated with the model's RoPE" // the model's only per-layer rule is its layers without RoPE
	case t == "sliding_attention" && r.Local.Base != 0:
		return t + " (the local base, no scaling: the values above)"
	}
	return t + " (the model's RoPE)"
}

// mscaleSoftmaxTypes are the model types whose attention scales its softmax by
// yarn_get_mscale(factor, mscale_all_dim)² under a scaled RoPE: transformers main
// models/<type>/modeling_<type>.py yarn_apply_mscale, called for the attention's scaling (MLA
// models; vLLM's deepseek_v2.py DeepseekV2MLAAttention does the same under its deepseek_yarn).
var mscaleSoftmaxTypes = []string{"deepseek_v2", "deepseek_v3", "deepseek_v32", "glm4_moe_lite", "glm_moe_dsa", "longcat_flash", "minicpm3", "mistral4", "youtu", "axk1"}

// softmaxMscale is the factor such a model multiplies its softmax scale by, or 0 when it does
// not: yarn_apply_mscale scales only under a rope_type other than default and with a
// mscale_all_dim other than 0; yarn_get_mscale(s, m) is 1 for s ≤ 1, else 0.1·m·ln(s) + 1.
func softmaxMscale(modelType string, sc rotary.Scaling) float64 {
	if !slices.Contains(mscaleSoftmaxTypes, modelType) || sc.Type == "" || sc.Type == rotary.ScalingDefault || sc.MscaleAllDim == 0 {
		return 0
	}
	m := 1.0
	if sc.Factor > 1 {
		m = 0.1*sc.MscaleAllDim*math.Log(sc.Factor) + 1
	}
	return m * m
}

// presetNotFile refuses a config path that is no file but a preset's name, saying how to name
// the preset; any other path is left to the loader's own error.
func presetNotFile(path string) error {
	if path == "" {
		return nil
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if _, err := hf.PresetJSON(path); err != nil {
		return nil
	}
	return usagef("%s: no such file, but a preset has that name: rotary inspect --model %s", path, path)
}

// rotatedPairs says which pairs of a proportional spec rotate and which dims they span.
func rotatedPairs(s rotary.Spec) string {
	n := s.Scaling.RotatedPairs
	if n == 0 {
		return "no pair rotates"
	}
	if s.Style == rotary.GPTJ {
		return fmt.Sprintf("pairs 0..%d rotate (dims 0..%d)", n-1, 2*n-1)
	}
	h := s.Half()
	return fmt.Sprintf("pairs 0..%d rotate (dims 0..%d with %d..%d)", n-1, n-1, h, h+n-1)
}

func orDefault(v, d float64) float64 {
	if v == 0 {
		return d
	}
	return v
}

func at(v []float64, i int) float64 {
	if i < len(v) {
		return v[i]
	}
	return v[len(v)-1]
}
