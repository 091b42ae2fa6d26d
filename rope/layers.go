package rope

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
)

// The layer types Hugging Face's layer_types names and the per-layer rules key on.
const (
	FullAttention    = "full_attention"
	SlidingAttention = "sliding_attention"
)

// LocalRoPE is per-layer RoPE: which type each layer is, what RoPE each type uses, and which
// layers use none. The spec's own fields are the RoPE of every layer these rules leave alone
// (in Gemma 3, the full-attention layers). Spec.ForLayer applies the rules.
//
// The forms models use:
//   - Gemma 3 (rope_local_base_freq): Base, with Pattern or LayerTypes; sliding layers use Base
//     and no scaling.
//   - Hugging Face v5 rope_parameters per layer type (OLMo 3, Gemma 3n, gpt-oss): LayerTypes or
//     Pattern, and Types with each type's base, scaling and dims.
//   - NoPE types (Cohere2 and EXAONE 4: full-attention layers are unrotated): Types with an
//     entry whose NoRoPE is set.
//   - NoPE layers by index (Llama 4's and SmolLM3's no_rope_layers): NoRoPE.
type LocalRoPE struct {
	// Base is the sliding_attention layers' base (Gemma 3's rope_local_base_freq); they use no
	// scaling. 0 when no type has such a rule.
	Base float64 `json:"base"`
	// Pattern: layer l is full_attention when (l+1) % Pattern == 0, else sliding_attention.
	// Ignored when LayerTypes is set.
	Pattern int `json:"pattern"`
	// LayerTypes, when set, names each layer's type: sliding_attention, full_attention or a
	// type Types gives.
	LayerTypes []string `json:"layer_types"`
	// Types is the RoPE of each layer type that differs from the spec's own; an entry for
	// sliding_attention wins over Base.
	Types map[string]LayerRoPE `json:"types,omitempty"`
	// NoRoPE[l] true: layer l has no RoPE, whatever its type. Layers past the list are out of
	// range for ForLayer.
	NoRoPE []bool `json:"no_rope,omitempty"`
}

// LayerRoPE is one layer type's RoPE where it differs from the spec's own.
type LayerRoPE struct {
	// NoRoPE: layers of this type are not rotated; the other fields are ignored.
	NoRoPE bool `json:"no_rope"`
	// Base and Scaling replace the spec's.
	Base    float64 `json:"base"`
	Scaling Scaling `json:"scaling"`
	// HeadSize and RotaryDim replace the spec's when > 0.
	HeadSize  int `json:"head_size"`
	RotaryDim int `json:"rotary_dim"`
}

// numLayers is the layer count the rules know (0: any layer index is fine): the shorter of
// LayerTypes and NoRoPE when given.
func (l *LocalRoPE) numLayers() int {
	n := 0
	for _, m := range []int{len(l.LayerTypes), len(l.NoRoPE)} {
		if m > 0 && (n == 0 || m < n) {
			n = m
		}
	}
	return n
}

// layerType is layer i's type: from LayerTypes, else from Pattern, else "".
func (l *LocalRoPE) layerType(i int) string {
	switch {
	case len(l.LayerTypes) > 0:
		if i >= len(l.LayerTypes) {
			return FullAttention
		}
		return l.LayerTypes[i]
	case l.Pattern > 0:
		if (i+1)%l.Pattern == 0 {
			return FullAttention
		}
		return SlidingAttention
	}
	return ""
}

func (l *LocalRoPE) validate(s Spec) error {
	// Without Types or NoRoPE the sliding base is the whole rule, so it must be there.
	if (len(l.Types) == 0 && l.NoRoPE == nil) || l.Base != 0 {
		if !validBase(l.Base) {
			return specErr("rope_local_base_freq %v: want a finite number > 1", l.Base)
		}
	}
	if l.Pattern < 0 {
		return specErr("sliding_window_pattern %d: want ≥ 1", l.Pattern)
	}
	if (l.Base != 0 || len(l.Types) > 0) && l.Pattern == 0 && len(l.LayerTypes) == 0 {
		return specErr("per-layer rope needs sliding_window_pattern or layer_types")
	}
	for i, t := range l.LayerTypes {
		if _, ok := l.Types[t]; !ok && t != SlidingAttention && t != FullAttention {
			return specErr("layer_types[%d] %q: want sliding_attention, full_attention or a type with its own RoPE", i, t)
		}
	}
	for _, t := range slices.Sorted(maps.Keys(l.Types)) {
		r := l.Types[t]
		if r.HeadSize < 0 || r.RotaryDim < 0 {
			return specErr("layer type %q: head size %d, rotary dim %d: want ≥ 0 (0: the spec's)", t, r.HeadSize, r.RotaryDim)
		}
		if r.NoRoPE {
			continue
		}
		if err := s.withType(r).Validate(); err != nil {
			return fmt.Errorf("layer type %q: %w", t, err)
		}
	}
	return nil
}

// withType is s with layer type r's RoPE and no per-layer rules.
func (s Spec) withType(r LayerRoPE) Spec {
	out := s
	out.Local = nil
	if r.NoRoPE {
		return out.withoutRoPE()
	}
	out.Base, out.Scaling = r.Base, r.Scaling
	if r.HeadSize > 0 {
		out.HeadSize = r.HeadSize
	}
	if r.RotaryDim > 0 {
		out.RotaryDim = r.RotaryDim
	}
	return out
}

// withoutRoPE is the spec of an unrotated layer: what shapes query, key and positions stays.
func (s Spec) withoutRoPE() Spec {
	return Spec{HeadSize: s.HeadSize, Style: s.Style, MaxPositions: s.MaxPositions, MRoPE: s.MRoPE, NoRoPE: true, QueryScale: s.QueryScale}
}

// validateNoRoPE checks a spec without RoPE. The per-layer and dual-chunk rules place
// rotations, so a spec that rotates nothing cannot carry them.
func (s Spec) validateNoRoPE() error {
	if s.MaxPositions < 0 {
		return specErr("max positions %d: want ≥ 0", s.MaxPositions)
	}
	if m := s.MRoPE; m != nil {
		if n := len(m.Sections); n != 3 && n != 4 {
			return specErr("mrope_section %v: want 3 or 4 sections", m.Sections)
		}
	}
	if s.Local != nil || s.DualChunk != nil {
		return specErr("a spec without RoPE (NoRoPE) takes no per-layer or dual-chunk rules")
	}
	return nil
}

// LayerType is layer l's type as the per-layer rules name it ("full_attention",
// "sliding_attention", ...), or "" when the spec has no per-layer types.
func (s Spec) LayerType(l int) string {
	if s.Local == nil || l < 0 {
		return ""
	}
	return s.Local.layerType(l)
}

// IsGlobalLayer reports whether layer l is a full-attention layer; always true without
// per-layer types. Whether the layer is rotated at all is ForLayer's NoRoPE.
func (s Spec) IsGlobalLayer(l int) bool {
	t := s.LayerType(l)
	return t == "" || t == FullAttention
}

// ForLayer returns the spec of layer l, with no Local part: the layer type's RoPE when Types
// gives one; for a sliding layer with a local Base, that base and no scaling (Gemma 3); for a
// layer without RoPE, a spec with NoRoPE set; otherwise s itself. Its QueryScale is the layer's
// own (QueryScaleRule.OnLayer).
func (s Spec) ForLayer(l int) (Spec, error) {
	out, err := s.forLayer(l)
	if err != nil {
		return Spec{}, err
	}
	out.QueryScale = s.QueryScale.OnLayer(out.NoRoPE)
	return out, nil
}

func (s Spec) forLayer(l int) (Spec, error) {
	if l < 0 {
		return Spec{}, fmt.Errorf("layer %d: want ≥ 0", l)
	}
	out := s
	out.Local = nil
	lr := s.Local
	if lr == nil {
		return out, nil
	}
	if n := lr.numLayers(); n > 0 && l >= n {
		return Spec{}, fmt.Errorf("layer %d: the model has %d layers", l, n)
	}
	if l < len(lr.NoRoPE) && lr.NoRoPE[l] {
		return out.withoutRoPE(), nil
	}
	t := lr.layerType(l)
	if r, ok := lr.Types[t]; ok {
		return s.withType(r), nil
	}
	if t == SlidingAttention && lr.Base != 0 {
		out.Base = lr.Base
		out.Scaling = Scaling{Type: ScalingDefault}
	}
	return out, nil
}

// DistinctLayers groups layers 0..n−1 by the RoPE ForLayer gives them: specs holds each
// distinct layer spec in order of its first layer, and layerOf[l] the index of layer l's.
// Gemma 3 has two, whatever its depth. The error is ForLayer's for a layer past the rules'
// count.
func (s Spec) DistinctLayers(n int) (specs []Spec, layerOf []int, err error) {
	layerOf = make([]int, n)
	for l := range n {
		ls, err := s.ForLayer(l)
		if err != nil {
			return nil, nil, err
		}
		i := slices.IndexFunc(specs, func(have Spec) bool { return reflect.DeepEqual(have, ls) })
		if i < 0 {
			i, specs = len(specs), append(specs, ls)
		}
		layerOf[l] = i
	}
	return specs, layerOf, nil
}

// NumLayers is the layer count the per-layer rules fix (the length of layer_types or of the
// NoPE list), 0 when they fix none (no rules, or a sliding pattern that repeats).
func (s Spec) NumLayers() int {
	if s.Local == nil {
		return 0
	}
	return s.Local.numLayers()
}
