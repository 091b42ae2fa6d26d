package cpu

import (
	"unsafe"

	"github.com/rotary-go/rotary/backend/native"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// interleave_rope on the CPU. Its formula is kv_rmsnorm_rope_cache's rope part, so where the
// ISA has that op's one-token kernels (D a multiple of 64, cos and sin in x's dtype) the rows go
// through the same rotation in assembly: interleaved pairs in, de-interleaved results out, a
// token's heads in one call when cos and sin broadcast over them (DeepSeek's form, and the
// NPU's only one). NEON has a kernel of its own for it (D a multiple of 16, cos and sin in x's
// dtype). Otherwise each row is de-interleaved into out, q = (x0, x2, …, x1, x3, …), and
// rotated there in place as apply_rotary_emb rotates NeoX rows (rotateBroadcastRows):
// out[i] = q[i]·cos[i] − q[D/2+i]·sin[i], out[D/2+i] = q[D/2+i]·cos[D/2+i] + q[i]·sin[D/2+i].
// Either way native's arithmetic, so the result matches it bit for bit. Rows are walked in
// (B, S, N) order, heads innermost, and split across the pool.

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
	j := (*interleaveRoPEJob)(a)
	if rows < 2 || ThreadsFor(2*a.X.Len()*a.X.DType.Size()) < 2 || !parallel(j, rows) {
		j.run(0, rows)
	}
}

// interleaveRoPEJob is an interleave_rope call as the pool runs it, by row in (B, S, N) order.
type interleaveRoPEJob ops.InterleaveRoPEArgs

var interleaveRoPESlot interleaveRoPEJob

func (*interleaveRoPEJob) slot() *interleaveRoPEJob { return &interleaveRoPESlot }

// bsnd is t [B, N, S, D] viewed as [B, S, N, D], its shape and strides kept in the arrays given.
func bsnd(t tensor.Tensor, shape, strides *[4]int) tensor.Tensor {
	*shape = [4]int{t.Shape[0], t.Shape[2], t.Shape[1], t.Shape[3]}
	*strides = [4]int{t.Stride(0), t.Stride(2), t.Stride(1), t.Stride(3)}
	t.Shape, t.Strides = shape[:], strides[:]
	return t
}

// run runs rows [lo, hi) of x in (B, S, N) order.
func (j *interleaveRoPEJob) run(lo, hi int) {
	a := (*ops.InterleaveRoPEArgs)(j)
	var shapes, strides [4][4]int
	x, out := bsnd(a.X, &shapes[0], &strides[0]), bsnd(a.Out, &shapes[1], &strides[1])
	cos, sin := bsnd(a.Cos, &shapes[2], &strides[2]), bsnd(a.Sin, &shapes[3], &strides[3])
	D, d := x.Shape[3], x.DType
	inPlace := overlaps(a.X, a.Out)
	if interleaveRoPEOK(active.isa, d, D, inPlace) && cos.DType == d && sin.DType == d {
		interleaveRowsAsm(x, out, cos, sin, lo, hi, inPlace)
		return
	}
	interleaveRowsGo(x, out, cos, sin, lo, hi)
}

// interleaveRowsAsm runs rows [lo, hi) of the [B, S, N, D] views through the kernel; inPlace
// says that out overlaps x (then it is x).
func interleaveRowsAsm(x, out, cos, sin tensor.Tensor, lo, hi int, inPlace bool) {
	D, size := x.Shape[3], x.DType.Size()
	w := rowWalk{lead: x.Shape[:3]}
	xi, oi, ci, si := w.operand(x), w.operand(out), w.operand(cos), w.operand(sin)
	w.seek(lo)
	const inner = 2 // heads
	group := 1
	if cos.Shape[inner] == 1 && sin.Shape[inner] == 1 {
		group = x.Shape[inner]
	}
	xs, os := x.Stride(inner)*size, out.Stride(inner)*size
	for r := lo; r < hi; {
		n := 1
		if group > 1 && w.coords[inner] == 0 && r+group <= hi {
			n = group
		}
		interleaveRoPEAsm(x.DType, rowPtr(x, w.offs[xi], D), rowPtr(out, w.offs[oi], D), n, xs, os,
			rowPtr(cos, w.offs[ci], D), rowPtr(sin, w.offs[si], D), D, inPlace)
		w.skip(inner, n)
		r += n
	}
}

// interleaveRowsGo runs rows [lo, hi) of the [B, S, N, D] views a piece at a time (whole
// tokens' heads, a few KB): de-interleaved into out, then rotated while still in cache.
func interleaveRowsGo(x, out, cos, sin tensor.Tensor, lo, hi int) {
	D := x.Shape[3]
	half := D / 2
	rot := ops.ApplyRotaryEmbArgs{X: out, Out: out, Cos: cos, Sin: sin, RotaryDim: D}
	heads := x.Shape[2]
	piece := heads * max(1, 64/heads)
	w := rowWalk{lead: x.Shape[:3]}
	xi, oi := w.operand(x), w.operand(out)
	w.seek(lo)
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
		rotateBroadcastRows(&rot, start, end, false)
	}
}

// overlaps reports whether the backing memory of a and b (float tensors) overlaps.
func overlaps(a, b tensor.Tensor) bool {
	span := func(t tensor.Tensor) (lo, hi uintptr) {
		if t.DType == tensor.F32 {
			lo = uintptr(unsafe.Pointer(unsafe.SliceData(t.F32)))
			return lo, lo + uintptr(len(t.F32))*4
		}
		lo = uintptr(unsafe.Pointer(unsafe.SliceData(t.Bits)))
		return lo, lo + uintptr(len(t.Bits))*2
	}
	alo, ahi := span(a)
	blo, bhi := span(b)
	return alo < bhi && blo < ahi
}
