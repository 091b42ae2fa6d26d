package cpu

import (
	"github.com/rotary-go/rotary/backend/native"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// interleave_rope on the CPU: each row of x is de-interleaved into out, q = (x0, x2, …, x1, x3,
// …), and rotated there in place by the NeoX full-row kernels with its full-width cos/sin row:
// out[i] = q[i]·cos[i] − q[D/2+i]·sin[i], out[D/2+i] = q[D/2+i]·cos[D/2+i] + q[i]·sin[D/2+i],
// native's arithmetic, so the result matches it bit for bit. The rows split across the pool.

func init() {
	ops.InterleaveRoPE.Register(&ops.Impl[ops.InterleaveRoPEArgs]{Backend: Name, Priority: 10, Fn: func(a ops.InterleaveRoPEArgs) { interleaveRoPE(&a) }})
}

func interleaveRoPE(a *ops.InterleaveRoPEArgs) {
	D := a.X.Shape[3]
	if D > len(rowBuffers{}.cos) {
		native.InterleaveRoPE(a)
		return
	}
	rows := tensor.NumElements(a.X.Shape[:3])
	if rows == 0 || D == 0 {
		return
	}
	if rows < 2 || ThreadsFor(2*a.X.Len()*a.X.DType.Size()) < 2 {
		interleaveRows(a, 0, rows)
		return
	}
	parallel(&job{kind: jobInterleaveRoPE, il: *a}, rows)
}

// interleaveRows runs rows [lo, hi) of x (row-major over B, N, S).
func interleaveRows(a *ops.InterleaveRoPEArgs, lo, hi int) {
	k := active
	D := a.X.Shape[3]
	half := D / 2
	w := rowWalk{lead: a.X.Shape[:3]}
	xi, oi, ci, si := w.operand(a.X), w.operand(a.Out), w.operand(a.Cos), w.operand(a.Sin)
	w.seek(lo)
	var buf rowBuffers
	var f32 [len(buf.cos)]float32
	var bits [len(buf.cos)]uint16
	lastC, lastS := -1, -1
	var cos, sin []float32
	for r := lo; r < hi; r++ {
		if w.offs[ci] != lastC || w.offs[si] != lastS {
			lastC, lastS = w.offs[ci], w.offs[si]
			cos, sin = rowF32(a.Cos, lastC, D, buf.cos[:]), rowF32(a.Sin, lastS, D, buf.sin[:])
		}
		// The row is read whole before out is written: out may be x.
		x, o := w.offs[xi], w.offs[oi]
		if a.X.DType == tensor.F32 {
			row := f32[:D:D]
			copy(row, a.X.F32[x:x+D])
			dst := a.Out.F32[o : o+D : o+D]
			for i := range half {
				dst[i], dst[half+i] = row[2*i], row[2*i+1]
			}
		} else {
			row := bits[:D:D]
			copy(row, a.X.Bits[x:x+D])
			dst := a.Out.Bits[o : o+D : o+D]
			for i := range half {
				dst[i], dst[half+i] = row[2*i], row[2*i+1]
			}
		}
		rotateRows(k, a.Out, o, 1, 0, cos, sin, false)
		w.next()
	}
}
