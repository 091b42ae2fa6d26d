package ops

import (
	"testing"

	"github.com/rotary-go/rotary/rope"
)

// TestMRoPEArgsAxis: the op's Axis is rope.MRoPE.Axis for every layout the spec carries,
// llama.cpp's IMROPE fourth row included, so a kernel reading the args rotates as the spec says.
func TestMRoPEArgsAxis(t *testing.T) {
	for _, m := range []rope.MRoPE{
		{Sections: []int{16, 24, 24}},
		{Sections: []int{24, 20, 20}, Interleaved: true},
		{Sections: []int{22, 22, 20}, AlternateHW: true},
		{Sections: []int{24, 20, 20, 0}, Interleaved: true, GGMLFourth: true},
		{Sections: []int{8, 24, 24, 8}, Interleaved: true, GGMLFourth: true},
	} {
		a := MRoPEArgs{Sections: m.Sections, Interleaved: m.Interleaved, AlternateHW: m.AlternateHW, GGMLFourth: m.GGMLFourth}
		fourth := 0
		for i := range 64 {
			if got, want := a.Axis(i), m.Axis(i); got != want {
				t.Errorf("%+v pair %d: args axis %d, spec axis %d", m, i, got, want)
			}
			if a.Axis(i) == 3 {
				fourth++
			}
		}
		if m.GGMLFourth && fourth == 0 {
			t.Errorf("%+v: no pair takes the fourth row", m)
		}
	}
}
