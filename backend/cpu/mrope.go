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

func mrope(a *ops.MRoPEArgs, lo, hi int) {
	k := active
	half := a.Cache.Half
	var stack [2 * 256]float32
	var axisStack [256]uint8
	buf, axis := stack[:], axisStack[:]
	if half > len(axis) {
		buf, axis = make([]float32, 2*half), make([]uint8, half)
	}
	cos, sin, axis := buf[:half], buf[half:2*half], axis[:half]
	for i := range axis {
		axis[i] = uint8(a.Axis(i))
	}
	var rows [4][]float32 // the cache row of each axis's position
	for t := lo; t < hi; t++ {
		for r := range a.Positions.Rows {
			p := a.Positions.At(r, t)
			rows[r] = a.Cache.Data[int(p)*2*half : (int(p)+1)*2*half]
		}
		for i, ax := range axis {
			row := rows[ax]
			cos[i], sin[i] = row[i], row[half+i]
		}
		rotateQK(k, &a.RoPE, t, cos, sin)
	}
}
