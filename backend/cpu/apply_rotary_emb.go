package cpu

import (
	"github.com/rotary-go/rotary/backend/native"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// apply_rotary_emb on the CPU: rows of x (all dimensions but the last) are rotated by the
// full-width cos/sin row they broadcast against, converted to float32 once per distinct row and
// run through the assembly kernels' full-row variants (in place, on out after copying x there).
// The arithmetic, and the backward pass's summation order, are native's, so results match it bit
// for bit.

// applyRows runs the forward pass on rows [lo, hi) of x.
func applyRows(a *ops.ApplyRotaryEmbArgs, lo, hi int) {
	d := a.RotaryDim
	k := active
	last := a.X.Rank() - 1
	width := a.X.Shape[last]
	w := rowWalk{lead: a.X.Shape[:last]}
	xi, oi, ci, si := w.operand(a.X), w.operand(a.Out), w.operand(a.Cos), w.operand(a.Sin)
	w.seek(lo)
	// When cos and sin broadcast over the innermost leading dimension (heads, in BSND and THD),
	// its rows share one cos/sin row and go to the kernel together.
	group, inner := 1, last-1
	if inner >= 0 && a.Cos.Shape[inner] == 1 && a.Sin.Shape[inner] == 1 {
		group = a.X.Shape[inner]
	}
	var buf rowBuffers
	lastC, lastS := -1, -1
	var cos, sin []float32
	for r := lo; r < hi; {
		if w.offs[ci] != lastC || w.offs[si] != lastS {
			lastC, lastS = w.offs[ci], w.offs[si]
			cos, sin = rowF32(a.Cos, lastC, d, buf.cos[:]), rowF32(a.Sin, lastS, d, buf.sin[:])
		}
		n := 1
		if group > 1 && w.coords[inner] == 0 && r+group <= hi {
			n = group
		}
		xs, os := 0, 0
		if n > 1 {
			xs, os = a.X.Stride(inner), a.Out.Stride(inner)
		}
		for j := range n {
			copyRow(a.Out, w.offs[oi]+j*os, a.X, w.offs[xi]+j*xs, width)
		}
		rotateRows(k, a.Out, w.offs[oi], n, os, cos, sin, a.GPTJ)
		w.skip(inner, n)
		r += n
	}
}

// applyRotaryEmbBackward: dx = dy·cos + rotateᵀ(dy·sin) is the forward rotation of dy with the
// sin row replaced by −(its pair partner): rotateᵀ(v) is (v2, −v1) for half, (v[2i+1], −v[2i])
// for interleave. dcos and dsin sum in float64 in native's row order.
func applyRotaryEmbBackward(a *ops.ApplyRotaryEmbBackwardArgs) {
	d := a.RotaryDim
	if a.X.Rank() > maxRank || d > 512 {
		native.ApplyRotaryEmbBackward(a)
		return
	}
	k := active
	last := a.X.Rank() - 1
	width := a.X.Shape[last]
	w := rowWalk{lead: a.X.Shape[:last]}
	if tensor.NumElements(w.lead) == 0 || width == 0 {
		return
	}
	yi, xi, oi, ci, si := w.operand(a.DY), w.operand(a.X), w.operand(a.DX), w.operand(a.Cos), w.operand(a.Sin)
	var dcos, dsin []float64
	if !a.DCos.IsZero() {
		dcos = make([]float64, a.Cos.Len())
	}
	if !a.DSin.IsZero() {
		dsin = make([]float64, a.Cos.Len())
	}
	// acc is the flat index of the current cos row in the contiguous accumulators.
	accW := rowWalk{lead: a.X.Shape[:last]}
	accStrides := tensor.ContiguousStrides(a.Cos.Shape)
	accW.n = 1
	for dim := range accW.lead {
		if a.Cos.Shape[dim] != 1 {
			accW.strides[0][dim] = accStrides[dim]
		}
	}
	var buf rowBuffers
	var rows struct{ dy, x [512]float32 }
	var flipped [512]float32
	lastC, lastS := -1, -1
	var cos, sin []float32
	for {
		if w.offs[ci] != lastC || w.offs[si] != lastS {
			lastC, lastS = w.offs[ci], w.offs[si]
			cos, sin = rowF32(a.Cos, lastC, d, buf.cos[:]), rowF32(a.Sin, lastS, d, buf.sin[:])
			negatedPartners(flipped[:d], sin, a.GPTJ)
		}
		if dcos != nil || dsin != nil {
			acc := accW.offs[0]
			dy := rowF32(a.DY, w.offs[yi], d, rows.dy[:])
			x := rowF32(a.X, w.offs[xi], d, rows.x[:])
			if dcos != nil {
				sums := dcos[acc : acc+d : acc+d]
				for j, g := range dy {
					sums[j] += float64(g) * float64(x[j])
				}
			}
			if dsin != nil {
				accumulateRotated(dsin[acc:acc+d:acc+d], dy, x, a.GPTJ)
			}
		}
		copyRow(a.DX, w.offs[oi], a.DY, w.offs[yi], width)
		rotateRows(k, a.DX, w.offs[oi], 1, 0, cos, flipped[:d], a.GPTJ)
		accW.next()
		if !w.next() {
			break
		}
	}
	writeSums(a.DCos, dcos)
	writeSums(a.DSin, dsin)
}

// accumulateRotated adds dy·rotate(x) to sums, element by element, in index order.
func accumulateRotated(sums []float64, dy, x []float32, gptj bool) {
	d := len(x)
	sums, dy = sums[:d:d], dy[:d:d]
	if gptj {
		for j := 0; j+1 < d; j += 2 {
			sums[j] += float64(dy[j]) * float64(-x[j+1])
			sums[j+1] += float64(dy[j+1]) * float64(x[j])
		}
		return
	}
	h := d / 2
	x1, x2 := x[:h:h], x[h:d:d]
	for j := range h {
		sums[j] += float64(dy[j]) * float64(-x2[j])
	}
	for j := range h {
		sums[h+j] += float64(dy[h+j]) * float64(x1[j])
	}
}

// writeSums stores contiguous float64 sums into the cos-shaped tensor t, as native does.
func writeSums(t tensor.Tensor, sums []float64) {
	if sums == nil {
		return
	}
	last := t.Rank() - 1
	width := t.Shape[last]
	w := rowWalk{lead: t.Shape[:last]}
	if tensor.NumElements(w.lead) == 0 || width == 0 {
		return
	}
	ti := w.operand(t)
	n := 0
	for {
		for j := range width {
			t.SetFloat32(w.offs[ti]+j, float32(sums[n]))
			n++
		}
		if !w.next() {
			return
		}
	}
}

// applyRotaryEmb splits the rows across the pool when the call is large enough.
func applyRotaryEmb(a *ops.ApplyRotaryEmbArgs) {
	if a.X.Rank() > maxRank || a.RotaryDim > 512 {
		native.ApplyRotaryEmb(a)
		return
	}
	last := a.X.Rank() - 1
	rows := tensor.NumElements(a.X.Shape[:last])
	if rows == 0 || a.X.Shape[last] == 0 {
		return
	}
	bytes := 2 * a.X.Len() * a.X.DType.Size()
	if rows < 2 || ThreadsFor(bytes) < 2 {
		applyRows(a, 0, rows)
		return
	}
	parallel(&job{kind: jobApply, ap: *a}, rows)
}

func init() {
	ops.ApplyRotaryEmb.Register(&ops.Impl[ops.ApplyRotaryEmbArgs]{Backend: Name, Priority: 10, Fn: func(a ops.ApplyRotaryEmbArgs) { applyRotaryEmb(&a) }})
	ops.ApplyRotaryEmbBackward.Register(&ops.Impl[ops.ApplyRotaryEmbBackwardArgs]{Backend: Name, Priority: 10, Fn: func(a ops.ApplyRotaryEmbBackwardArgs) { applyRotaryEmbBackward(&a) }})
}
