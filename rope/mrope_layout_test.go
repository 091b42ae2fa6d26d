package rope

import (
	"strings"
	"testing"
)

// TestMRoPEAxis: the axis of every pair in the three layouts, written out for small sections.
func TestMRoPEAxis(t *testing.T) {
	for _, c := range []struct {
		m    MRoPE
		want []int
	}{
		// Chunked [2, 3, 3]: t t h h h w w w.
		{MRoPE{Sections: []int{2, 3, 3}}, []int{0, 0, 1, 1, 1, 2, 2, 2}},
		// Interleaved [4, 2, 2] (HF's apply_interleaved_mrope): h at 1, 4 (< 6), w at 2, 5.
		{MRoPE{Sections: []int{4, 2, 2}, Interleaved: true}, []int{0, 1, 2, 0, 1, 2, 0, 0}},
		// ERNIE [3, 3, 2]: inv_freq_3d[:6] = cat(inv_freq[0:6:2], inv_freq[1:6:2]) and
		// recomposition_to_3d's stack(h, w).flatten give pair 2k height, 2k+1 width, then t.
		{MRoPE{Sections: []int{3, 3, 2}, AlternateHW: true}, []int{1, 2, 1, 2, 1, 2, 0, 0}},
		// Four chunked sections.
		{MRoPE{Sections: []int{1, 2, 2, 1}}, []int{0, 1, 1, 2, 2, 3}},
	} {
		for i, w := range c.want {
			if got := c.m.Axis(i); got != w {
				t.Errorf("%+v pair %d: axis %d, want %d", c.m, i, got, w)
			}
		}
	}
}

func TestMRoPEAlternateHWValidate(t *testing.T) {
	base := Spec{HeadSize: 128, RotaryDim: 128, Base: 500000, Style: GPTJ, MaxPositions: 1024}
	ok := base
	ok.MRoPE = &MRoPE{Sections: []int{22, 22, 20}, AlternateHW: true}
	if err := ok.Validate(); err != nil {
		t.Fatalf("ERNIE-4.5-VL's [22, 22, 20]: %v", err)
	}
	for _, m := range []MRoPE{
		{Sections: []int{24, 20, 20}, AlternateHW: true},
		{Sections: []int{16, 16, 16, 16}, AlternateHW: true},
		{Sections: []int{22, 22, 20}, AlternateHW: true, Interleaved: true},
	} {
		s := base
		s.MRoPE = &m
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "alternating h/w") {
			t.Errorf("%+v: %v", m, err)
		}
	}
}
