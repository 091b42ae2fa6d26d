package cpu

import (
	"github.com/rotary-go/rotary/ops"
)

func init() {
	ops.MRoPE.Register(&ops.Impl[ops.MRoPEArgs]{Backend: Name, Priority: 10, Fn: func(a ops.MRoPEArgs) {
		if !worthThreads(a.Query.Tokens, &a.RoPE) {
			mrope(&a, 0, a.Query.Tokens)
			return
		}
		parallel(&job{kind: jobMRoPE, mr: a}, a.Query.Tokens)
	}})
}

// mropeMaxRows bounds the position rows a layout draws from (rope.MRoPE's sections); the
// dispatcher's checks keep Positions.Rows within it.
const mropeMaxRows = 4

func mrope(a *ops.MRoPEArgs, lo, hi int) {
	k := active
	half := a.Cache.Half
	var stack [2 * 256]float32
	var axisStack [256]uint8
	buf, axis := stack[:], axisStack[:]
	if half > len(axis) {
		buf, axis = make([]float32, 2*half), make([]uint8, half)
	}
	cos, sin, axis := buf[:half:half], buf[half:2*half:2*half], axis[:half:half]
	mropeAxes(a, axis)
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
		for r := range rows {
			p := int(a.Positions.At(r, t))
			row[r] = a.Cache.Data[p*2*half : (p+1)*2*half : (p+1)*2*half]
		}
		for i, ax := range axis {
			rw := row[ax&(mropeMaxRows-1)]
			cos[i], sin[i] = rw[i], rw[half+i]
		}
		rotateQK(k, &a.RoPE, t, cos, sin)
	}
}

// mropeAxes fills axis[i] with the position row pair i takes its cos/sin from, as
// ops.MRoPEArgs.Axis (rope.MRoPE.Axis) gives it, without its division per pair.
func mropeAxes(a *ops.MRoPEArgs, axis []uint8) {
	s := a.Sections
	switch {
	case len(s) < 2 || a.Interleaved && len(s) < 3: // layouts the spec rejects: Axis itself
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
