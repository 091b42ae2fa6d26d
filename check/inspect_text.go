package check

import (
	"fmt"
	"io"
	"strings"

	"github.com/rotary-go/rotary/gguf"
	"github.com/rotary-go/rotary/rope"
)

// WriteText writes the report as rotary inspect prints it, one "key: value" line each, from
// the report's exported fields alone. A nil report or a nil w writes nothing.
func (r *InspectReport) WriteText(w io.Writer) {
	if r == nil || w == nil {
		return
	}
	p := func(k string, format string, args ...any) {
		fmt.Fprintf(w, "%-22s %s\n", k+":", fmt.Sprintf(format, args...))
	}
	if g := r.GGUF; g != nil {
		p("gguf", "version %d, general.architecture %s, llama.cpp rope type %s (%s), %s", g.Version, g.Architecture, g.RopeType, ggufPairing(g.RopeType), GGUFScalingType(g.ScalingType))
		if len(g.FactorTensor) > 0 {
			p("frequency factors", "%s", strings.Join(g.FactorTensor, ", "))
		}
	}
	spec := r.textSpec()
	p("source", "%s", r.Source)
	p("model type", "%s", r.ModelType)
	if r.Rope == "indexer" {
		p("rope", "the lightning indexer's (--rope indexer)")
	}
	p("heads", "%d query, %d key/value", r.NumHeads, r.NumKVHeads)
	p("head size", "%d", r.HeadSize)
	for _, warning := range r.Warnings {
		p("warning", "%s", warning)
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
	p("scaling", "%s", SpecWords(spec))
	if r.PositionsFamily != "" {
		p("positions", "%s's get_rope_index (rotary positions --family %s)", r.PositionsFamily, r.PositionsFamily)
	}
	sc := r.Scaling
	switch sc.Type {
	case rope.ScalingYaRN:
		p("yarn", "original=%d beta_fast=%g beta_slow=%g truncate=%t mscale=%g mscale_all_dim=%g", spec.OriginalMax(), orDefault(sc.BetaFast, 32), orDefault(sc.BetaSlow, 1), !sc.NoTruncate, sc.Mscale, sc.MscaleAllDim)
	case rope.ScalingLlama3:
		p("llama3", "original=%d low_freq_factor=%g high_freq_factor=%g", sc.OriginalMaxPositions, sc.LowFreqFactor, sc.HighFreqFactor)
	case rope.ScalingLongRoPE:
		rule := "config's factor, else max / original (HF main)"
		if sc.LongRoPEFactorFromLengths {
			rule = "max / original (HF v4.57, vLLM, Microsoft)"
		}
		if sc.AttentionFactor != 0 {
			p("longrope", "original=%d (long factors when any position ≥ it); attention factor as given (attention_factor, short_mscale / long_mscale, or the dialect's)", spec.OriginalMax())
			break
		}
		p("longrope", "original=%d (long factors when any position ≥ it); attention from factor %g: the %s", spec.OriginalMax(), spec.LongRoPEFactor(), rule)
	case rope.ScalingDynamic:
		p("dynamic", "original=%d max=%d length=%s", spec.OriginalMax(), spec.DynamicMax(), sc.Dynamic.Describe())
	case rope.ScalingProportional:
		p("proportional", "%s; the other %d pairs have frequency 0 and pass unchanged", rotatedPairs(spec), spec.Half()-sc.RotatedPairs)
	}
	p("attention factor", "%.17g", r.AttentionFactor)
	if ix := r.Indexer; ix != nil {
		p("indexer rope", "head %d, dims 0..%d rotated (%s), %d pass-through; the same cos/sin (--rope indexer selects it)", ix.HeadSize, ix.RotaryDim-1, ix.Style, ix.HeadSize-ix.RotaryDim)
	}
	if r.Local != nil {
		p("layer", "%d: %s", r.Layer, r.layerKind())
	}
	if n := len(r.InvFreq); n > 0 {
		p("inv_freq", "[0]=%.17g [1]=%.17g ... [%d]=%.17g", r.InvFreq[0], r.InvFreq[min(1, n-1)], n-1, r.InvFreq[n-1])
		if m := len(r.LongInvFreq); m > 0 {
			p("inv_freq (long)", "[0]=%.17g ... [%d]=%.17g", r.LongInvFreq[0], m-1, r.LongInvFreq[m-1])
		}
	}
	for _, note := range r.Notes {
		p("note", "%s", note)
	}
}

// textSpec is the described spec as far as WriteText reads it, from the report's fields.
func (r *InspectReport) textSpec() rope.Spec {
	s := rope.Spec{HeadSize: r.HeadSize, RotaryDim: r.RotaryDim, Base: r.Base, MaxPositions: r.MaxPositions,
		Scaling: r.Scaling, MRoPE: r.MRoPE, DualChunk: r.DualChunk, NoRoPE: r.NoRoPE}
	if r.Style == rope.GPTJ.String() {
		s.Style = rope.GPTJ
	}
	return s
}

// ggufPairing says which elements the llama.cpp rope type named name pairs (a name no rope
// type has: gguf.RopeType.Pairing's unknown pairs).
func ggufPairing(name string) string {
	types := []gguf.RopeType{gguf.RopeNone, gguf.RopeNorm, gguf.RopeNeoX, gguf.RopeMRoPE, gguf.RopeVision, gguf.RopeIMRoPE}
	for _, t := range types {
		if t.String() == name {
			return t.Pairing()
		}
	}
	return gguf.RopeType(-2).Pairing() // no rope type's value
}

// layerKind says which of the model's per-layer rules layer r.Layer follows.
func (r *InspectReport) layerKind() string {
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

// rotatedPairs says which pairs of a proportional spec rotate and which dims they span.
func rotatedPairs(s rope.Spec) string {
	n := s.Scaling.RotatedPairs
	if n == 0 {
		return "no pair rotates"
	}
	if s.Style == rope.GPTJ {
		return fmt.Sprintf("pairs 0..%d rotate (dims 0..%d)", n-1, 2*n-1)
	}
	h := s.Half()
	return fmt.Sprintf("pairs 0..%d rotate (dims 0..%d with %d..%d)", n-1, n-1, h, h+n-1)
}
