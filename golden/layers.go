package golden

import (
	"fmt"

	"github.com/rotary-go/rotary"
)

// LayerKind is a set of layers with one RoPE, named by what sets them apart.
type LayerKind struct {
	Name   string
	Layers []int
}

// LayerKinds groups the layers of spec by the RoPE ForLayer gives them, in order of first
// layer. n is the model's layer count (0: unknown, then the per-layer rules' own count, or one
// period of a pattern).
func LayerKinds(spec rotary.Spec, n int) []LayerKind {
	l := spec.Local
	if l == nil {
		return nil
	}
	if n <= 0 {
		n = max(len(l.LayerTypes), len(l.NoRoPE), l.Pattern)
	}
	if known := spec.NumLayers(); known > 0 {
		n = min(n, known)
	}
	specs, layerOf, err := spec.DistinctLayers(n)
	if err != nil {
		return nil
	}
	kinds := make([]LayerKind, len(specs))
	for i, j := range layerOf {
		if kinds[j].Layers == nil {
			name := spec.LayerType(i)
			_, own := l.Types[name]
			switch {
			case specs[j].NoRoPE:
				name = "no RoPE"
			case name == "":
				name = "rotated"
			case name == "sliding_attention" && !own && l.Base != 0:
				name += fmt.Sprintf(" (base %g, no scaling)", l.Base)
			}
			kinds[j].Name = name
		}
		kinds[j].Layers = append(kinds[j].Layers, i)
	}
	return kinds
}
