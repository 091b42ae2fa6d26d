package native

import (
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

func init() {
	ops.ApplyRotaryEmb.Register(&ops.Impl[ops.ApplyRotaryEmbArgs]{Backend: ops.Native, Fn: func(a ops.ApplyRotaryEmbArgs) { ApplyRotaryEmb(&a) }})
	ops.ApplyRotaryEmbBackward.Register(&ops.Impl[ops.ApplyRotaryEmbBackwardArgs]{Backend: ops.Native, Fn: func(a ops.ApplyRotaryEmbBackwardArgs) { ApplyRotaryEmbBackward(&a) }})
}

// rotatedAt is element j of rotate(x) over the first d elements of the row at xi:
// half: (−x2, x1); interleave: (−x[2i+1], x[2i]).
func rotatedAt(x tensor.Tensor, xi, j, d int, gptj bool) float32 {
	if gptj {
		if j%2 == 0 {
			return -x.Float32At(xi + j + 1)
		}
		return x.Float32At(xi + j - 1)
	}
	if j < d/2 {
		return -x.Float32At(xi + j + d/2)
	}
	return x.Float32At(xi + j - d/2)
}

// ApplyRotaryEmb is op apply_rotary_emb: out = x·cos + rotate(x)·sin on the first RotaryDim
// elements of each row, the rest copied bit for bit. Out may alias X: a row's rotated part is
// read whole before it is written.
func ApplyRotaryEmb(a *ops.ApplyRotaryEmbArgs) {
	last := a.X.Rank() - 1
	width := a.X.Shape[last]
	d := a.RotaryDim
	row := make([]float32, width)
	forRows(a.X.Shape, func(coords []int) {
		rotateRow(a.X, a.X.Index(coords...), a.Out, a.Out.Index(coords...), a.Cos, broadcastIndex(a.Cos, coords),
			a.Sin, broadcastIndex(a.Sin, coords), d, a.GPTJ, row)
	})
}

// rotateRow writes out = x·cos + rotate(x)·sin for the first d elements of the row of x at xi
// into the row of out at oi, and copies the rest of the row (len(row) elements in all) as raw
// bits. The rotated part is read whole before it is written, so out may alias x.
func rotateRow(x tensor.Tensor, xi int, out tensor.Tensor, oi int, cos tensor.Tensor, ci int, sin tensor.Tensor, si int, d int, gptj bool, row []float32) {
	rot := row[:d]
	for j := range rot {
		rot[j] = x.Float32At(xi + j)
	}
	for j := range d {
		r := rotatedAt(x, xi, j, d, gptj)
		rot[j] = float32(rot[j]*cos.Float32At(ci+j)) + float32(r*sin.Float32At(si+j))
	}
	for j := range rot {
		out.SetFloat32(oi+j, rot[j])
	}
	copyBits(out, oi+d, x, xi+d, len(row)-d)
}

// backwardRow writes dx = dy·cos + rotateᵀ(dy·sin) for the first d elements of the row of dy
// at yi into the row of dx at oi, and dx = dy, as raw bits, for the rest. dx may alias dy.
func backwardRow(dy tensor.Tensor, yi int, dx tensor.Tensor, oi int, cos tensor.Tensor, ci int, sin tensor.Tensor, si int, d int, gptj bool, row []float32) {
	rot := row[:d]
	for j := range rot {
		rot[j] = dy.Float32At(yi + j)
	}
	for j := range d {
		rot[j] = float32(rot[j]*cos.Float32At(ci+j)) + transposedAt(dy, sin, yi, si, j, d, gptj)
	}
	for j := range rot {
		dx.SetFloat32(oi+j, rot[j])
	}
	copyBits(dx, oi+d, dy, yi+d, len(row)-d)
}

// copyBits copies n elements of src at si to dst at di (same dtype) without widening them: a
// float32 round trip would quiet signalling NaNs, and what the rotation does not touch must
// come out with its input's bits. In place (the same memory) nothing is written.
func copyBits(dst tensor.Tensor, di int, src tensor.Tensor, si, n int) {
	if n <= 0 {
		return
	}
	if src.DType == tensor.F32 {
		d, s := dst.F32[di:di+n], src.F32[si:si+n]
		if &d[0] != &s[0] {
			copy(d, s)
		}
		return
	}
	d, s := dst.Bits[di:di+n], src.Bits[si:si+n]
	if &d[0] != &s[0] {
		copy(d, s)
	}
}

// transposedAt is element j of rotateᵀ(v) where v = dy·sin, the adjoint of rotatedAt:
// half: (v2, −v1); interleave: (v[2i+1], −v[2i]).
func transposedAt(dy, sin tensor.Tensor, yi, si, j, d int, gptj bool) float32 {
	v := func(k int) float32 { return float32(dy.Float32At(yi+k) * sin.Float32At(si+k)) }
	if gptj {
		if j%2 == 0 {
			return v(j + 1)
		}
		return -v(j - 1)
	}
	if j < d/2 {
		return v(j + d/2)
	}
	return -v(j - d/2)
}

// ApplyRotaryEmbBackward is apply_rotary_emb's backward pass: dx = dy·cos + rotateᵀ(dy·sin),
// dcos = Σ dy·x and dsin = Σ dy·rotate(x) over the dimensions cos broadcasts along, summed in
// float64 and then stored in the gradient's dtype. Pass-through elements get dx = dy, bit for
// bit.
func ApplyRotaryEmbBackward(a *ops.ApplyRotaryEmbBackwardArgs) {
	last := a.X.Rank() - 1
	width := a.X.Shape[last]
	d := a.RotaryDim
	var dcos, dsin []float64
	if !a.DCos.IsZero() {
		dcos = make([]float64, a.Cos.Len())
	}
	if !a.DSin.IsZero() {
		dsin = make([]float64, a.Cos.Len())
	}
	row := make([]float32, width)
	cosIdx := make([]int, len(a.Cos.Shape))
	forRows(a.X.Shape, func(coords []int) {
		xi, yi, oi := a.X.Index(coords...), a.DY.Index(coords...), a.DX.Index(coords...)
		ci, si := broadcastIndex(a.Cos, coords), broadcastIndex(a.Sin, coords)
		for k := range cosIdx[:last] {
			cosIdx[k] = coords[k]
			if a.Cos.Shape[k] == 1 {
				cosIdx[k] = 0
			}
		}
		acc := 0 // flat contiguous index of this cos row in the accumulators
		for k := range last {
			acc = acc*a.Cos.Shape[k] + cosIdx[k]
		}
		acc *= d
		for j := range d {
			g := float64(a.DY.Float32At(yi + j))
			if dcos != nil {
				dcos[acc+j] += g * float64(a.X.Float32At(xi+j))
			}
			if dsin != nil {
				dsin[acc+j] += g * float64(rotatedAt(a.X, xi, j, d, a.GPTJ))
			}
		}
		backwardRow(a.DY, yi, a.DX, oi, a.Cos, ci, a.Sin, si, d, a.GPTJ, row)
	})
	writeReduced(a.DCos, dcos)
	writeReduced(a.DSin, dsin)
}

// writeReduced stores contiguous float64 sums into the cos-shaped tensor t.
func writeReduced(t tensor.Tensor, sums []float64) {
	if sums == nil {
		return
	}
	n := 0
	forRows(t.Shape, func(coords []int) {
		ti := t.Index(coords...)
		for j := range t.Shape[len(t.Shape)-1] {
			t.SetFloat32(ti+j, float32(sums[n]))
			n++
		}
	})
}
