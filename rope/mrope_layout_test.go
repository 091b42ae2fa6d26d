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
		// llama.cpp's IMROPE [3, 2, 2, 0] (ggml_mrope_cache_init): h at 1, 4 (< 6), w at 2, 5,
		// t at 0, 3, 6 (< 9): every pair claimed, so HF's interleave.
		{MRoPE{Sections: []int{3, 2, 2, 0}, Interleaved: true, GGMLFourth: true}, []int{0, 1, 2, 0, 1, 2, 0}},
		// [2, 3, 3, 0]: t only at 0, 3 (< 6); pair 6 (i%3 == 0, ≥ 6) takes the fourth row.
		{MRoPE{Sections: []int{2, 3, 3, 0}, Interleaved: true, GGMLFourth: true}, []int{0, 1, 2, 0, 1, 2, 3, 1}},
		// Qwen3-VL's [24, 20, 20, 0] as its GGUF says it: pairs 61 and 62 are past 3·20 = 60
		// on their h and w turns, so the fourth row; 60 and 63 are t (< 72).
		{MRoPE{Sections: []int{24, 20, 20, 0}, Interleaved: true, GGMLFourth: true}, qwen3VLGGML()},
		// With three sections there is no fourth row to take: the pairs fall back to axis 0.
		{MRoPE{Sections: []int{2, 3, 3}, Interleaved: true, GGMLFourth: true}, []int{0, 1, 2, 0, 1, 2, 0, 1}},
	} {
		for i, w := range c.want {
			if got := c.m.Axis(i); got != w {
				t.Errorf("%+v pair %d: axis %d, want %d", c.m, i, got, w)
			}
		}
	}
}

// qwen3VLGGML is the axis of each of Qwen3-VL's 64 pairs under llama.cpp's IMROPE with
// sections [24, 20, 20, 0], written out: i mod 3 cycles t, h, w through pair 59, then 60 t,
// 61 and 62 the fourth row, 63 t.
func qwen3VLGGML() []int {
	var w []int
	for range 20 {
		w = append(w, 0, 1, 2)
	}
	return append(w, 0, 3, 3, 0)
}

func TestMRoPEGGMLFourthValidate(t *testing.T) {
	base := Spec{HeadSize: 128, RotaryDim: 128, Base: 5000000, Style: NeoX, MaxPositions: 262144}
	ok := base
	ok.MRoPE = &MRoPE{Sections: []int{24, 20, 20, 0}, Interleaved: true, GGMLFourth: true}
	if err := ok.Validate(); err != nil {
		t.Fatalf("Qwen3-VL's [24, 20, 20, 0]: %v", err)
	}
	for _, c := range []struct {
		m    MRoPE
		want string
	}{
		{MRoPE{Sections: []int{24, 20, 20}, Interleaved: true, GGMLFourth: true}, "fourth position"},
		{MRoPE{Sections: []int{24, 20, 20, 0}, GGMLFourth: true}, "fourth position"},
		{MRoPE{Sections: []int{22, 22, 20, 0}, AlternateHW: true, GGMLFourth: true, Interleaved: true}, "mrope_section"},
	} {
		s := base
		s.MRoPE = &c.m
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error mentioning %q", c.m, err, c.want)
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
