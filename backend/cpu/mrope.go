package cpu

import (
	"github.com/rotary-go/rotary/ops"
)

func init() {
	ops.MRoPE.Register(&ops.Impl[ops.MRoPEArgs]{Backend: Name, Priority: 10, Fn: func(a ops.MRoPEArgs) {
		j := (*mropeJob)(&a)
		if !worthThreads(a.Query.Tokens, &a.RoPE) || !parallel(j, a.Query.Tokens) {
			j.run(0, a.Query.Tokens)
		}
	}})
}

// mropeJob is an mrope call as the pool runs it, by token.
type mropeJob ops.MRoPEArgs

var mropeSlot mropeJob

func (*mropeJob) slot() *mropeJob { return &mropeSlot }

// mropeMaxRows bounds the position rows a layout draws from (rope.MRoPE's sections); the
// dispatcher's checks keep Positions.Rows within it.
const mropeMaxRows = 4

func (j *mropeJob) run(lo, hi int) {
	a := (*ops.MRoPEArgs)(j)
	k := active
	half := a.Cache.Half
	var stack [2 * 256]float32
	var axisStack [256]uint8
	var maskStack [2 * 256 / 16]uint64
	buf, axis := stack[:], axisStack[:]
	if half > len(axis) {
		buf, axis = make([]float32, 2*half), make([]uint8, half)
	}
	buf, axis = buf[:2*half:2*half], axis[:half:half]
	cos, sin := buf[:half:half], buf[half:]
	var masks []uint64 // with axis, filled at the first token whose axes differ: text needs neither
	rows := min(a.Positions.Rows, mropeMaxRows)
	var row [mropeMaxRows][]float32 // the cache row of each axis's position
	for t := lo; t < hi; t++ {
		p0 := a.Positions.At(0, t)
		same := true
		for r := 1; r < rows; r++ {
			same = same && a.Positions.At(r, t) == p0
		}
		if same {
			// A text token: every axis at one position, so the pairs take that row as it is.
			c, s := a.Cache.Row(p0)
			rotateQK(k, &a.RoPE, t, c, s)
			continue
		}
		for r := range row {
			p := int(a.Positions.At(min(r, rows-1), t)) // rows past the layout's are never selected
			row[r] = a.Cache.Data[p*2*half : (p+1)*2*half : (p+1)*2*half]
		}
		if masks == nil {
			mropeAxes(a, axis)
			masks = mropeMasks(axis, maskStack[:min(len(maskStack), len(buf)/16)])
		}
		mropeGather(k.isa, buf, &row, axis, masks)
		rotateQK(k, &a.RoPE, t, cos, sin)
	}
}

// mropeGather assembles a token's [cos | sin] row in buf (2·len(axis) floats) from the cache
// rows of its axes' positions, laid out the same way: float j takes the row of its pair's axis,
// axis[j mod half]. masks are mropeMasks(axis, ...).
func mropeGather(i isa, buf []float32, row *[mropeMaxRows][]float32, axis []uint8, masks []uint64) {
	half := len(axis)
	for j := mropeGatherAsm(i, buf, row, masks); j < len(buf); j++ {
		p := j
		if p >= half {
			p -= half
		}
		buf[j] = row[axis[p]&(mropeMaxRows-1)][j]
	}
}

// mropeMasks fills masks (one per 16 floats of a token's [cos | sin] row, as many as fit) for
// mropeGatherAsm: in masks[c], bit 16(a−1)+l is set where float 16c+l takes axis a ≥ 1's row.
func mropeMasks(axis []uint8, masks []uint64) []uint64 {
	i := 0 // the pair of float 16c+l
	for c := range masks {
		var m uint64
		for l := range 16 {
			if a := axis[i] & (mropeMaxRows - 1); a > 0 {
				m |= 1 << (16*uint(a-1) + uint(l))
			}
			if i++; i == len(axis) {
				i = 0
			}
		}
		masks[c] = m
	}
	return masks
}

// mropeAxes fills axis[i] with the position row pair i takes its cos/sin from, as
// ops.MRoPEArgs.Axis (rope.MRoPE.Axis) gives it, without its division per pair.
func mropeAxes(a *ops.MRoPEArgs, axis []uint8) {
	s := a.Sections
	switch {
	case len(s) < 2 || a.Interleaved && len(s) < 3, // layouts the spec rejects: Axis itself
		a.Interleaved && a.GGMLFourth && !a.AlternateHW: // once per token range: Axis's divisions cost nothing a loop of its own would save
		for i := range axis {
			axis[i] = uint8(a.Axis(i))
		}
	case a.AlternateHW:
		hw := s[0] + s[1]
		for i := range axis {
			axis[i] = 0
			if i < hw {
				axis[i] = 1 + uint8(i&1)
			}
		}
	case a.Interleaved:
		r := 0 // i mod 3
		for i := range axis {
			var ax uint8
			if r == 1 && i < 3*s[1] {
				ax = 1
			} else if r == 2 && i < 3*s[2] {
				ax = 2
			}
			axis[i] = ax
			if r++; r == 3 {
				r = 0
			}
		}
	default:
		i := 0
		for ax, n := range s {
			if ax == len(s)-1 {
				n = len(axis) - i // the last section takes the rest
			}
			for ; n > 0 && i < len(axis); n-- {
				axis[i] = uint8(ax)
				i++
			}
		}
	}
}
