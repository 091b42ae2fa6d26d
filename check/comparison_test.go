package check

import (
	"math"
	"slices"
	"testing"

	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/rope"
)

// TestFrequencyTableSwitches: the comparison's table cache changes exactly where
// rope.Spec.FrequenciesInto does, for LongRoPE and per-call dynamic NTK.
func TestFrequencyTableSwitches(t *testing.T) {
	m, err := hf.Preset("phi-3-mini-128k")
	if err != nil {
		t.Fatal(err)
	}
	dyn := rope.Spec{HeadSize: 64, RotaryDim: 64, Base: 10000, MaxPositions: 100,
		Scaling: rope.Scaling{Type: rope.ScalingDynamic, Factor: 2, Dynamic: rope.DynamicPerCall}}
	for _, s := range []rope.Spec{m.Spec, dyn} {
		tab := &frequencyTable{spec: s}
		for _, p := range []int{0, 1, 98, 99, 100, 101, 4094, 4095, 4096, 4097, 131071, 131072} {
			got, gotAtt := tab.at(p)
			want, wantAtt := s.Frequencies(p)
			if !slices.Equal(got, want) || gotAtt != wantAtt {
				t.Errorf("%s at %d: the cached table differs from Frequencies", s.Scaling.Type, p)
			}
		}
	}
}

// TestCompareSpecsClosedForm: for two specs that rotate the same pairs, the largest output gap
// of a unit vector is max over pairs of |a·e^{iθa} − b·e^{iθb}| = √(a² + b² − 2ab·cos Δθ).
func TestCompareSpecsClosedForm(t *testing.T) {
	a := rope.Spec{HeadSize: 8, RotaryDim: 8, Base: 10000, MaxPositions: 50}
	b := a
	b.Base = 12000
	c := compareSpecs(a, b)
	invA, _ := a.Frequencies(-1)
	invB, _ := b.Frequencies(-1)
	want, at := 0.0, 0
	for p := range 50 {
		for i := range invA {
			d := float64(p) * (invA[i] - invB[i])
			if v := math.Sqrt(2 - 2*math.Cos(d)); v > want {
				want, at = v, p
			}
		}
	}
	if math.Abs(c.MaxOutputDiff-want) > 1e-12 || c.MaxOutputAt != at || c.FirstPosition != 1 || !c.Divergent {
		t.Errorf("compareSpecs: %+v, want max %v at %d, first 1", c, want, at)
	}
	same := compareSpecs(a, a)
	if same.MaxOutputDiff != 0 || same.Divergent || same.FirstPosition != -1 {
		t.Errorf("a spec against itself: %+v", same)
	}
}

// TestSectionsLayoutCompared: check --frameworks and check --gguf tell ERNIE-4.5-VL's
// alternating layout from chunks of the same sections, and llama.cpp's IMROPE fourth row from
// HF's interleave of the same sections.
func TestSectionsLayoutCompared(t *testing.T) {
	ernie := &rope.MRoPE{Sections: []int{22, 22, 20}, AlternateHW: true}
	chunked := &rope.MRoPE{Sections: []int{22, 22, 20}}
	if sameSections(ernie, chunked) || !sameSections(ernie, &rope.MRoPE{Sections: []int{22, 22, 20}, AlternateHW: true}) {
		t.Error("sameSections ignores the alternating layout")
	}
	if sectionsString(ernie) == sectionsString(chunked) || sectionsDesc(ernie, 64) == sectionsDesc(chunked, 64) {
		t.Errorf("descriptions alike: %q, %q", sectionsString(ernie), sectionsDesc(ernie, 64))
	}
	ggml := &rope.MRoPE{Sections: []int{24, 20, 20, 0}, Interleaved: true, GGMLFourth: true}
	hf := &rope.MRoPE{Sections: []int{24, 20, 20, 0}, Interleaved: true}
	if sameSections(ggml, hf) {
		t.Error("sameSections ignores llama.cpp's fourth position row")
	}
	if sectionsString(ggml) == sectionsString(hf) || sectionsDesc(ggml, 64) == sectionsDesc(hf, 64) {
		t.Errorf("descriptions alike: %q, %q", sectionsString(ggml), sectionsDesc(ggml, 64))
	}
}
