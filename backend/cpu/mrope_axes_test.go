package cpu

import (
	"testing"

	"github.com/rotary-go/rotary/ops"
)

// TestMRoPEAxesTable pins mropeAxes to ops.MRoPEArgs.Axis (rope.MRoPE.Axis) for every layout, over
// section lists that do and do not fill the half (the last axis takes the rest).
func TestMRoPEAxesTable(t *testing.T) {
	var lists [][]int
	for a := range 7 {
		for b := range 7 {
			for c := range 7 {
				lists = append(lists, []int{a, b, c}, []int{a, b, c, 2}, []int{a, a, c})
			}
		}
	}
	for _, s := range lists {
		for _, half := range []int{0, 1, 5, 12, 20, 33} {
			for _, mode := range []struct{ interleaved, alternate bool }{{false, false}, {true, false}, {false, true}} {
				a := ops.MRoPEArgs{Sections: s, Interleaved: mode.interleaved, AlternateHW: mode.alternate}
				got := make([]uint8, half)
				mropeAxes(&a, got)
				for i := range half {
					if int(got[i]) != a.Axis(i) {
						t.Fatalf("sections %v interleaved %v alternate %v half %d: pair %d axis %d, Axis says %d", s, mode.interleaved, mode.alternate, half, i, got[i], a.Axis(i))
					}
				}
			}
		}
	}
}
