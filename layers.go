package rotary

import (
	"fmt"
	"slices"

	"github.com/rotary-go/rotary/tensor"
)

// MaxLayers bounds NewLayers' layer count: more than any model has, few enough that the
// per-layer index costs nothing to speak of.
const MaxLayers = 1 << 16

// Layers is a model's RoPE layer by layer, for models whose layers differ (Gemma 3's sliding
// and full layers, Llama 4's layers without RoPE, every layer_types model) as for those whose
// layers do not: one Embedding, and one cos/sin table, per distinct layer RoPE, shared by the
// layers that have it. A Layers is immutable after NewLayers and safe for concurrent use.
type Layers struct {
	spec    Spec
	embs    []*Embedding // one per distinct layer RoPE, in order of their first layer
	layerOf []int        // layer → index into embs
}

// NewLayers checks spec and builds the embeddings of its numLayers layers: layer l's RoPE is
// spec.ForLayer(l), and layers with equal RoPE share one Embedding (Gemma 3: two, whatever the
// depth). numLayers must match the count the per-layer rules fix (layer_types, the NoPE list;
// Spec.NumLayers) when they fix one. The options apply to every embedding.
func NewLayers(spec Spec, numLayers int, opts ...Option) (*Layers, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if numLayers < 1 || numLayers > MaxLayers {
		return nil, fmt.Errorf("numLayers %d: want 1..%d layers", numLayers, MaxLayers)
	}
	if n := spec.NumLayers(); n > 0 && numLayers != n {
		return nil, fmt.Errorf("numLayers %d: the spec's per-layer rules describe %d layers", numLayers, n)
	}
	specs, layerOf, err := spec.DistinctLayers(numLayers)
	if err != nil {
		return nil, err
	}
	ls := &Layers{spec: spec, layerOf: layerOf, embs: make([]*Embedding, len(specs))}
	for i, s := range specs {
		if ls.embs[i], err = New(s, opts...); err != nil {
			return nil, fmt.Errorf("layer %d: %w", slices.Index(layerOf, i), err)
		}
	}
	return ls, nil
}

// NumLayers is the number of layers (0 for a nil or zero Layers).
func (ls *Layers) NumLayers() int {
	if ls == nil {
		return 0
	}
	return len(ls.layerOf)
}

// Distinct is the number of distinct layer RoPEs, each with its own Embedding and table.
func (ls *Layers) Distinct() int {
	if ls == nil {
		return 0
	}
	return len(ls.embs)
}

// Spec returns the model's spec, per-layer rules included (the zero Spec for a nil Layers).
func (ls *Layers) Spec() Spec {
	if ls == nil {
		return Spec{}
	}
	return ls.spec
}

// Layer returns layer l's Embedding; a layer without RoPE has one whose Forward, Gather and
// Apply leave query and key untouched.
func (ls *Layers) Layer(l int) (*Embedding, error) {
	if err := ls.ready(); err != nil {
		return nil, err
	}
	if err := ls.checkLayer(l); err != nil {
		return nil, err
	}
	return ls.embs[ls.layerOf[l]], nil
}

// QueryScale is the position-dependent query scale layer l applies beside RoPE (op
// query_scale, rotary.QueryScale): Llama 4's temperature tuning on its layers without RoPE, the
// beta rule of Ministral 3 and Mistral 4 on every layer after RoPE; the rule of kind none for
// other layers, for a layer out of range and for a nil Layers. An engine runs it on every layer
// where it is not none; the gathered cos/sin do not include it.
func (ls *Layers) QueryScale(l int) QueryScaleRule {
	if ls.ready() != nil || ls.checkLayer(l) != nil {
		return QueryScaleRule{}
	}
	return ls.embs[ls.layerOf[l]].spec.QueryScale
}

func (ls *Layers) ready() error {
	if ls == nil || len(ls.embs) == 0 {
		return errLayersNotBuilt
	}
	return nil
}

func (ls *Layers) checkLayer(l int) error {
	if l < 0 || l >= len(ls.layerOf) {
		return fmt.Errorf("layer %d: want 0..%d", l, len(ls.layerOf)-1)
	}
	return nil
}

// LayersCosSin holds cos and sin gathered for one forward pass's positions, once per distinct
// layer RoPE: the hoisted gather of a Layers. Like CosSin it is reused across forward passes
// without allocating once grown, and must not be gathered into while layers apply it.
type LayersCosSin struct {
	sets    []CosSin
	layerOf []int
}

// Gather fills dst with the cos/sin of the given positions (shapes as in Embedding.Forward) for
// every distinct layer RoPE. On error dst is unchanged.
func (ls *Layers) Gather(positions tensor.Tensor, dst *LayersCosSin) error {
	if err := ls.ready(); err != nil {
		return err
	}
	if dst == nil {
		return errNilLayersDst
	}
	for _, e := range ls.embs {
		if e.spec.DualChunk != nil {
			return errDualChunk
		}
	}
	// The first gather checks the positions for all: every layer's spec shapes them alike
	// (ForLayer keeps the head size and MRoPE sections), so the others cannot fail after it.
	var first CosSin
	if len(dst.sets) > 0 {
		first = dst.sets[0]
	}
	if err := ls.embs[0].Gather(positions, &first); err != nil {
		return err
	}
	if cap(dst.sets) < len(ls.embs) {
		dst.sets = append(dst.sets[:cap(dst.sets)], make([]CosSin, len(ls.embs)-cap(dst.sets))...)
	}
	dst.sets = dst.sets[:len(ls.embs)]
	dst.sets[0] = first
	for i, e := range ls.embs[1:] {
		if err := e.Gather(positions, &dst.sets[i+1]); err != nil {
			return err
		}
	}
	dst.layerOf = ls.layerOf
	return nil
}

// Tokens is the number of tokens gathered (0 for a nil or empty LayersCosSin).
func (cs *LayersCosSin) Tokens() int {
	if cs == nil || len(cs.sets) == 0 {
		return 0
	}
	return cs.sets[0].tokens
}

// Apply rotates layer l's query and key (may be the zero Tensor) in place with the cos/sin
// gathered for that layer's RoPE; a layer without RoPE checks them and writes nothing. Shapes as
// in Embedding.Forward, with the layer's head size and the token count Gather saw. On error
// nothing is written. It does not allocate.
func (cs *LayersCosSin) Apply(l int, query, key tensor.Tensor) error {
	if cs == nil || cs.layerOf == nil {
		return errNotGathered
	}
	if l < 0 || l >= len(cs.layerOf) {
		return fmt.Errorf("layer %d: want 0..%d", l, len(cs.layerOf)-1)
	}
	return cs.sets[cs.layerOf[l]].Apply(query, key)
}
