package rope

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

// TestProportionalFrequencies checks Gemma 4's proportional RoPE against transformers'
// modeling_rope_utils.py _compute_proportional_rope_parameters written in log space:
// inv_freq[i] = exp(−(2i/head_dim)·ln base − ln factor) for i < rope_angles, else 0; the
// exponent of ln base reaches 14, so the two forms agree to about 30 ulp.
func TestProportionalFrequencies(t *testing.T) {
	for _, c := range []struct {
		d, pairs int
		base, f  float64
	}{{512, 64, 1e6, 1}, {512, 256, 1e6, 1}, {256, 0, 10000, 1}, {128, 32, 10000, 8}} {
		s := Spec{HeadSize: c.d, RotaryDim: c.d, Base: c.base, MaxPositions: 131072,
			Scaling: Scaling{Type: ScalingProportional, Factor: c.f, RotatedPairs: c.pairs}}
		if err := s.Validate(); err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		inv, attn := s.Frequencies(-1)
		if attn != 1 || len(inv) != c.d/2 {
			t.Fatalf("%+v: attention %v, %d frequencies: want 1 and %d", c, attn, len(inv), c.d/2)
		}
		for i, got := range inv {
			want := 0.0
			if i < c.pairs {
				want = math.Exp(-float64(2*i)/float64(c.d)*math.Log(c.base) - math.Log(c.f))
			}
			if math.Abs(got-want) > 1e-14*want || (want == 0) != (got == 0) {
				t.Errorf("%+v: inv_freq[%d] = %v, want %v", c, i, got, want)
			}
		}
	}
}

// TestProportionalValidate: the rotated pair count must lie in 0..RotaryDim/2 and the factor
// be positive.
func TestProportionalValidate(t *testing.T) {
	for _, c := range []struct {
		sc   Scaling
		want string
	}{
		{Scaling{Type: ScalingProportional, Factor: 1, RotatedPairs: -1}, "rotated pairs -1"},
		{Scaling{Type: ScalingProportional, Factor: 1, RotatedPairs: 257}, "want 0..rotary dim / 2 = 256"},
		{Scaling{Type: ScalingProportional, RotatedPairs: 64}, "factor"},
	} {
		s := Spec{HeadSize: 512, RotaryDim: 512, Base: 1e6, MaxPositions: 4096, Scaling: c.sc}
		err := s.Validate()
		if !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want ErrSpec naming %q", c.sc, err, c.want)
		}
	}
}

// TestForLayerHeadSizes: Gemma 4's shape, full layers with a 512-wide head and proportional
// RoPE, sliding layers with a 256-wide head and default RoPE; each layer's spec has its own.
func TestForLayerHeadSizes(t *testing.T) {
	prop := Scaling{Type: ScalingProportional, Factor: 1, RotatedPairs: 64}
	spec := Spec{HeadSize: 512, RotaryDim: 512, Base: 1e6, MaxPositions: 262144, Scaling: prop,
		Local: &LocalRoPE{
			LayerTypes: []string{SlidingAttention, FullAttention},
			Types: map[string]LayerRoPE{
				SlidingAttention: {Base: 10000, Scaling: Scaling{Type: ScalingDefault}, HeadSize: 256, RotaryDim: 256},
			},
		}}
	if err := spec.Validate(); err != nil {
		t.Fatal(err)
	}
	full := Spec{HeadSize: 512, RotaryDim: 512, Base: 1e6, MaxPositions: 262144, Scaling: prop}
	sliding := Spec{HeadSize: 256, RotaryDim: 256, Base: 10000, MaxPositions: 262144, Scaling: Scaling{Type: ScalingDefault}}
	for l, want := range []Spec{sliding, full} {
		got, err := spec.ForLayer(l)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ForLayer(%d) = %+v, %v: want %+v", l, got, err, want)
		}
	}
	// A type's proportional pairs are checked against the type's own rotary dim.
	bad := spec
	bad.Local = &LocalRoPE{LayerTypes: spec.Local.LayerTypes, Types: map[string]LayerRoPE{
		SlidingAttention: {Base: 10000, Scaling: Scaling{Type: ScalingProportional, Factor: 1, RotatedPairs: 200}, HeadSize: 256, RotaryDim: 256},
	}}
	if err := bad.Validate(); !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), "sliding_attention") {
		t.Errorf("200 pairs of a 256-wide sliding head: %v, want ErrSpec naming the type", err)
	}
}
