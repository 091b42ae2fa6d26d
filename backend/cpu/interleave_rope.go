package cpu

import (
	"github.com/rotary-go/rotary/backend/native"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// interleave_rope on the CPU: each row of x is de-interleaved into out, q = (x0, x2, …, x1, x3,
// …), and then rotated there in place as apply_rotary_emb rotates NeoX rows by full-width cos/sin
// rows (applyRows): out[i] = q[i]·cos[i] − q[D/2+i]·sin[i], out[D/2+i] = q[D/2+i]·cos[D/2+i] +
// q[i]·sin[D/2+i], native's arithmetic, so the result matches it bit for bit. The rows are
// walked in (B, S, N) order, heads innermost, so that where cos and sin broadcast over the heads
// (DeepSeek's, and the NPU's only form) a token's heads go to the kernel in one call. The rows
// split across the pool.

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

// bsnd is t [B, N, S, D] viewed as [B, S, N, D], its shape and strides kept in the arrays given.
func bsnd(t tensor.Tensor, shape, strides *[4]int) tensor.Tensor {
	*shape = [4]int{t.Shape[0], t.Shape[2], t.Shape[1], t.Shape[3]}
	*strides = [4]int{t.Stride(0), t.Stride(2), t.Stride(1), t.Stride(3)}
	t.Shape, t.Strides = shape[:], strides[:]
	return t
}

// interleaveRows runs rows [lo, hi) of x in (B, S, N) order: a piece of rows at a time (whole
// tokens' heads, a few KB), de-interleaved into out and then rotated while still in cache.
func interleaveRows(a *ops.InterleaveRoPEArgs, lo, hi int) {
	var shapes, strides [4][4]int
	x, out := bsnd(a.X, &shapes[0], &strides[0]), bsnd(a.Out, &shapes[1], &strides[1])
	rot := ops.ApplyRotaryEmbArgs{X: out, Out: out, Cos: bsnd(a.Cos, &shapes[2], &strides[2]), Sin: bsnd(a.Sin, &shapes[3], &strides[3]), RotaryDim: x.Shape[3]}
	heads := x.Shape[2]
	piece := heads * max(1, 64/heads)
	w := rowWalk{lead: x.Shape[:3]}
	xi, oi := w.operand(x), w.operand(out)
	w.seek(lo)
	D := x.Shape[3]
	half := D / 2
	var f32 [len(rowBuffers{}.cos)]float32
	var bits [len(f32)]uint16
	for r := lo; r < hi; {
		start, end := r, min(hi, (r/piece+1)*piece)
		for ; r < end; r++ {
			// The row is read whole before out is written: out may be x.
			xo, oo := w.offs[xi], w.offs[oi]
			if x.DType == tensor.F32 {
				row, dst := f32[:D:D], out.F32[oo:oo+D:oo+D]
				copy(row, x.F32[xo:xo+D])
				for i := range half {
					dst[i], dst[half+i] = row[2*i], row[2*i+1]
				}
			} else {
				row, dst := bits[:D:D], out.Bits[oo:oo+D:oo+D]
				copy(row, x.Bits[xo:xo+D])
				for i := range half {
					dst[i], dst[half+i] = row[2*i], row[2*i+1]
				}
			}
			w.next()
		}
		applyRows(&rot, start, end)
	}
}
