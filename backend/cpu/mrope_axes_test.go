package cpu

import (
	"testing"

	"github.com/rotary-go/rotary/ops"
)

// mropeModes are the layouts ops.MRoPEArgs carries: chunked, interleaved, ERNIE's alternating
// h/w and llama.cpp's IMROPE with its fourth row.
var mropeModes = []struct{ interleaved, alternate, ggml bool }{{false, false, false}, {true, false, false}, {false, true, false}, {true, false, true}}

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
			for _, mode := range mropeModes {
				a := ops.MRoPEArgs{Sections: s, Interleaved: mode.interleaved, AlternateHW: mode.alternate, GGMLFourth: mode.ggml}
				got := make([]uint8, half)
				mropeAxes(&a, got)
				for i := range half {
					if int(got[i]) != a.Axis(i) {
						t.Fatalf("sections %v %+v half %d: pair %d axis %d, Axis says %d", s, mode, half, i, got[i], a.Axis(i))
					}
				}
			}
		}
	}
}

// TestMRoPEGather pins the assembled cos/sin row (mropeGather: the assembly's whole chunks and
// Go's tail) to its definition, float j from the row of axis[j mod half], on every
// implementation, for every layout and halves that do and do not fill whole chunks, with rows
// whose values name their row and index so that any float taken from the wrong row or place
// shows.
func TestMRoPEGather(t *testing.T) {
	for _, half := range []int{1, 5, 8, 12, 20, 24, 33, 64, 72, 128, 256} {
		var row [mropeMaxRows][]float32
		for r := range row {
			row[r] = make([]float32, 2*half)
			for j := range row[r] {
				row[r][j] = float32(r*100000 + j)
			}
		}
		for _, s := range [][]int{{24, 20, 20}, {16, 24, 24}, {8, 12, 12}, {2, 1, 1}, {1, 1, 1, 1}, {0, 3, 0}, {5, 0, 7, 2}, {24, 20, 20, 0}} {
			for _, mode := range mropeModes {
				a := ops.MRoPEArgs{Sections: s, Interleaved: mode.interleaved, AlternateHW: mode.alternate, GGMLFourth: mode.ggml}
				axis := make([]uint8, half)
				mropeAxes(&a, axis)
				var stack [2 * 256 / 16]uint64
				masks := mropeMasks(axis, stack[:min(len(stack), 2*half/16)])
				for _, k := range impls {
					buf := make([]float32, 2*half)
					mropeGather(k.isa, buf, &row, axis, masks)
					for j, v := range buf {
						if want := row[axis[j%half]&(mropeMaxRows-1)][j]; v != want {
							t.Fatalf("%s half %d sections %v %+v: float %d = %v, want %v", k.name, half, s, mode, j, v, want)
						}
					}
				}
			}
		}
	}
}
