package rope

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestForLayerTypes: a per-layer-type rule replaces base, scaling and dims for its type only;
// NoRoPE layers (by type or by index) come back as NoRoPE specs that keep what shapes the
// arguments; everything else is the spec itself without Local.
func TestForLayerTypes(t *testing.T) {
	yarn := Scaling{Type: ScalingYaRN, Factor: 8, OriginalMaxPositions: 8192}
	spec := Spec{HeadSize: 128, RotaryDim: 128, Base: 500000, Style: NeoX, MaxPositions: 65536, Scaling: yarn,
		Local: &LocalRoPE{
			LayerTypes: []string{"sliding_attention", "full_attention", "chunked_attention", "sliding_attention"},
			Types: map[string]LayerRoPE{
				"sliding_attention": {Base: 10000, Scaling: Scaling{Type: ScalingLinear, Factor: 2}, RotaryDim: 64},
				"chunked_attention": {NoRoPE: true},
			},
			NoRoPE: []bool{false, false, false, true},
		}}
	if err := spec.Validate(); err != nil {
		t.Fatal(err)
	}
	own := spec
	own.Local = nil
	noRoPE := Spec{HeadSize: 128, Style: NeoX, MaxPositions: 65536, NoRoPE: true}
	sliding := own
	sliding.Base, sliding.Scaling, sliding.RotaryDim = 10000, Scaling{Type: ScalingLinear, Factor: 2}, 64
	for l, want := range []Spec{sliding, own, noRoPE, noRoPE} {
		got, err := spec.ForLayer(l)
		if err != nil {
			t.Fatalf("ForLayer(%d): %v", l, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("ForLayer(%d) = %+v, want %+v", l, got, want)
		}
		if err := got.Validate(); err != nil {
			t.Errorf("ForLayer(%d) does not validate: %v", l, err)
		}
	}
	if _, err := spec.ForLayer(4); err == nil || !strings.Contains(err.Error(), "4 layers") {
		t.Errorf("ForLayer past the layers: %v", err)
	}
	for l, want := range []string{"sliding_attention", "full_attention", "chunked_attention", "sliding_attention"} {
		if got := spec.LayerType(l); got != want {
			t.Errorf("LayerType(%d) = %q, want %q", l, got, want)
		}
	}

	// NoPE full layers by pattern (Cohere2 without layer_types): sliding layers rotate with the
	// spec's own RoPE.
	cohere := Spec{HeadSize: 128, RotaryDim: 128, Base: 50000, Style: GPTJ, MaxPositions: 8192,
		Local: &LocalRoPE{Pattern: 4, Types: map[string]LayerRoPE{"full_attention": {NoRoPE: true}}}}
	for l := range 8 {
		got, err := cohere.ForLayer(l)
		if err != nil {
			t.Fatal(err)
		}
		if wantNoPE := (l+1)%4 == 0; got.NoRoPE != wantNoPE || (!wantNoPE && (got.Base != 50000 || got.RotaryDim != 128)) {
			t.Errorf("pattern NoPE: layer %d = %+v", l, got)
		}
	}

	// NoPE layers by index alone (Llama 4): no types needed.
	llama := Spec{HeadSize: 128, RotaryDim: 128, Base: 500000, Style: GPTJ, MaxPositions: 8192,
		Local: &LocalRoPE{NoRoPE: []bool{false, false, false, true}}}
	if err := llama.Validate(); err != nil {
		t.Fatal(err)
	}
	if l3, _ := llama.ForLayer(3); !l3.NoRoPE || l3.RotaryDim != 0 || l3.Base != 0 {
		t.Errorf("llama layer 3: %+v", l3)
	}
	if l2, _ := llama.ForLayer(2); l2.NoRoPE || l2.Local != nil || l2.Base != 500000 {
		t.Errorf("llama layer 2: %+v", l2)
	}
	if !llama.IsGlobalLayer(3) || llama.LayerType(3) != "" {
		t.Errorf("no layer types: IsGlobalLayer %v LayerType %q", llama.IsGlobalLayer(3), llama.LayerType(3))
	}
	// A NoRoPE spec is its own layer spec.
	if got, err := noRoPE.ForLayer(7); err != nil || !reflect.DeepEqual(got, noRoPE) {
		t.Errorf("ForLayer of a NoRoPE spec: %+v %v", got, err)
	}
}

// TestLocalValidate: each malformed per-layer rule is refused with its field named.
func TestLocalValidate(t *testing.T) {
	base := Spec{HeadSize: 64, RotaryDim: 64, Base: 10000, Style: NeoX, MaxPositions: 4096}
	cases := []struct {
		name  string
		local *LocalRoPE
		spec  func(*Spec)
		want  string
	}{
		{"type entry base", &LocalRoPE{Pattern: 2, Types: map[string]LayerRoPE{"sliding_attention": {Base: 1}}}, nil, `layer type "sliding_attention": invalid rope spec: base`},
		{"type entry rotary dim", &LocalRoPE{Pattern: 2, Types: map[string]LayerRoPE{"sliding_attention": {Base: 10000, RotaryDim: 96}}}, nil, "rotary dim 96 is larger than head size 64"},
		{"type entry negative dims", &LocalRoPE{Pattern: 2, Types: map[string]LayerRoPE{"full_attention": {NoRoPE: true, HeadSize: -1}}}, nil, "head size -1"},
		{"type entry scaling", &LocalRoPE{Pattern: 2, Types: map[string]LayerRoPE{"sliding_attention": {Base: 10000, Scaling: Scaling{Type: ScalingLinear}}}}, nil, "linear scaling needs factor"},
		{"types without layer types", &LocalRoPE{Types: map[string]LayerRoPE{"full_attention": {NoRoPE: true}}}, nil, "sliding_window_pattern or layer_types"},
		{"unnamed layer type", &LocalRoPE{LayerTypes: []string{"full_attention", "chunked_attention"}, Types: map[string]LayerRoPE{"sliding_attention": {NoRoPE: true}}}, nil, "layer_types[1]"},
		{"bad local base beside NoRoPE", &LocalRoPE{Base: 0.5, Pattern: 2, NoRoPE: []bool{true}}, nil, "rope_local_base_freq"},
		{"NoRoPE spec with Local", nil, func(s *Spec) { s.NoRoPE, s.Local = true, &LocalRoPE{NoRoPE: []bool{true}} }, "takes no per-layer"},
		{"NoRoPE spec max positions", nil, func(s *Spec) { s.NoRoPE, s.MaxPositions = true, -1 }, "max positions -1"},
		{"NoRoPE spec head", nil, func(s *Spec) { s.NoRoPE, s.HeadSize = true, 0 }, "head size 0"},
		{"NoRoPE spec sections", nil, func(s *Spec) { s.NoRoPE, s.MRoPE = true, &MRoPE{Sections: []int{1, 2}} }, "3 or 4 sections"},
	}
	for _, c := range cases {
		s := base
		s.Local = c.local
		if c.spec != nil {
			c.spec(&s)
		}
		err := s.Validate()
		if err == nil || !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrSpec naming %q", c.name, err, c.want)
		}
	}
	// A NoRoPE spec needs no rotary fields at all.
	if err := (Spec{HeadSize: 64, NoRoPE: true}).Validate(); err != nil {
		t.Errorf("bare NoRoPE spec: %v", err)
	}
}

// TestDistinctLayers: layers group by the RoPE ForLayer gives them, in order of first layer;
// a layer past the rules' count is ForLayer's error.
func TestDistinctLayers(t *testing.T) {
	s := Spec{HeadSize: 64, RotaryDim: 64, Base: 1e6, MaxPositions: 64, Local: &LocalRoPE{Base: 10000, Pattern: 3}}
	specs, layerOf, err := s.DistinctLayers(7)
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) != 2 || specs[0].Base != 10000 || specs[1].Base != 1e6 || !slices.Equal(layerOf, []int{0, 0, 1, 0, 0, 1, 0}) {
		t.Errorf("specs %v, layerOf %v", specs, layerOf)
	}
	n := Spec{HeadSize: 64, RotaryDim: 64, Base: 1e4, Local: &LocalRoPE{NoRoPE: []bool{false, true}}}
	if _, _, err := n.DistinctLayers(3); err == nil {
		t.Error("a layer past the NoPE list: no error")
	}
}
