package cpu

import (
	"unsafe"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// rotateHeads rotates every head of token t of h by the token's cos/sin rows: the assembly
// kernel takes the pairs in blocks of 8, the Go loop the rest.
func rotateHeads(k *kernels, h *ops.Heads, t int, cos, sin []float32, gptj bool) {
	half := len(cos)
	if half == 0 || h.NumHeads == 0 {
		return
	}
	base := h.Off + t*h.TokenStride
	n := 0
	if k.isa != isaGeneric && half >= 8 {
		n = half &^ 7
		callKernel(k.isa, h.DType, gptj, false, headPtr(h, base), h.NumHeads, h.HeadStride*h.DType.Size(), &cos[0], &sin[0], half, n, nil, 0)
	}
	if n == half {
		return
	}
	rotateTail(h, t, cos, sin, gptj, n)
}

// rotateTail rotates pairs [n, len(cos)) of every head of token t of h in Go.
func rotateTail(h *ops.Heads, t int, cos, sin []float32, gptj bool, n int) {
	half := len(cos)
	base := h.Off + t*h.TokenStride
	for head := range h.NumHeads {
		off := base + head*h.HeadStride
		switch {
		case h.DType == tensor.F32 && gptj:
			gptjF32(h.F32[off:off+2*half], cos, sin, n)
		case h.DType == tensor.F32:
			neoxF32(h.F32[off:off+2*half], cos, sin, n)
		case gptj:
			gptjBits(h.DType, h.Bits[off:off+2*half], cos, sin, n)
		default:
			neoxBits(h.DType, h.Bits[off:off+2*half], cos, sin, n)
		}
	}
}

// headPtr is the address of backing element i of h's data.
func headPtr(h *ops.Heads, i int) *byte {
	if h.DType == tensor.F32 {
		return (*byte)(unsafe.Pointer(&h.F32[i]))
	}
	return (*byte)(unsafe.Pointer(&h.Bits[i]))
}

// The Go kernels rotate pairs [from, len(cos)) of one head, x = the head's first 2·len(cos)
// elements, with the reference's order of operations.

func neoxF32(x, cos, sin []float32, from int) {
	h := len(cos)
	x1, x2, sin := x[:h:h], x[h:2*h:2*h], sin[:h:h]
	for i := from; i < h; i++ {
		a, b, c, s := x1[i], x2[i], cos[i], sin[i]
		x1[i] = float32(a*c) - float32(b*s)
		x2[i] = float32(b*c) + float32(a*s)
	}
}

func gptjF32(x, cos, sin []float32, from int) {
	h := len(cos)
	x, sin = x[:2*h:2*h], sin[:h:h]
	for i := from; i < h; i++ {
		a, b, c, s := x[2*i], x[2*i+1], cos[i], sin[i]
		x[2*i] = float32(a*c) - float32(b*s)
		x[2*i+1] = float32(b*c) + float32(a*s)
	}
}

func neoxBits(d tensor.DType, x []uint16, cos, sin []float32, from int) {
	h := len(cos)
	x1, x2, sin := x[:h:h], x[h:2*h:2*h], sin[:h:h]
	for i := from; i < h; i++ {
		a, b, c, s := tensor.ToFloat32(d, x1[i]), tensor.ToFloat32(d, x2[i]), cos[i], sin[i]
		x1[i] = tensor.FromFloat32(d, float32(a*c)-float32(b*s))
		x2[i] = tensor.FromFloat32(d, float32(b*c)+float32(a*s))
	}
}

func gptjBits(d tensor.DType, x []uint16, cos, sin []float32, from int) {
	h := len(cos)
	x, sin = x[:2*h:2*h], sin[:h:h]
	for i := from; i < h; i++ {
		a, b, c, s := tensor.ToFloat32(d, x[2*i]), tensor.ToFloat32(d, x[2*i+1]), cos[i], sin[i]
		x[2*i] = tensor.FromFloat32(d, float32(a*c)-float32(b*s))
		x[2*i+1] = tensor.FromFloat32(d, float32(b*c)+float32(a*s))
	}
}

// tokenBlock is how many tokens a rotateTokens call takes at most: the row pointers of a
// block sit on the caller's stack.
const tokenBlock = 16

// rotateTokens rotates q and (when present) k of tokens lo ... lo+len(rows)−1, token lo+i by
// the row at rows[i]: its half cos values, then its half sin values. One assembly call takes
// every token and both tensors where the implementation has a token kernel; the pairs past the
// last multiple of 8, and implementations without one, go token by token.
func rotateTokens(k *kernels, r *ops.RoPE, lo int, rows []*float32, half int) {
	if half == 0 || len(rows) == 0 {
		return
	}
	q, kh := &r.Query, &r.Key
	n := 0
	if k.isa != isaGeneric && half >= 8 && (!kh.Present() || kh.DType == q.DType) {
		n = half &^ 7
		qx, qheads, qstride, qstep := tokensOf(q, lo)
		kx, kheads, kstride, kstep := tokensOf(kh, lo)
		if !callTokensKernel(k.isa, q.DType, r.GPTJ, qx, qheads, qstride, qstep, kx, kheads, kstride, kstep, &rows[0], len(rows), half, n) {
			n = 0
		}
	}
	if n == half {
		return
	}
	for i, p := range rows {
		row := unsafe.Slice(p, 2*half)
		cos, sin := row[:half:half], row[half:]
		if n == 0 {
			rotateQK(k, r, lo+i, cos, sin)
			continue
		}
		rotateTail(&r.Query, lo+i, cos, sin, r.GPTJ, n)
		if kh.Present() {
			rotateTail(kh, lo+i, cos, sin, r.GPTJ, n)
		}
	}
}

// tokensOf is h from token lo on as a token kernel takes it: its first head, how many heads,
// and the bytes between heads and between tokens; no heads where h is absent or has none.
func tokensOf(h *ops.Heads, lo int) (x *byte, heads, stride, step int) {
	if !h.Present() || h.NumHeads == 0 {
		return nil, 0, 0, 0
	}
	es := h.DType.Size()
	return headPtr(h, h.Off+lo*h.TokenStride), h.NumHeads, h.HeadStride * es, h.TokenStride * es
}

// rotateQK rotates query and (when present) key of token t.
func rotateQK(k *kernels, r *ops.RoPE, t int, cos, sin []float32) {
	rotateHeads(k, &r.Query, t, cos, sin, r.GPTJ)
	if r.Key.Present() {
		rotateHeads(k, &r.Key, t, cos, sin, r.GPTJ)
	}
}

// rotateRows is the rotation by full-width cos/sin rows (a value per element, not per pair), as
// apply_rotary_emb and the ops built on its rows take them: the first 2·half elements of `rows`
// rows of src, sstride elements apart from so, rotated by the same cos/sin rows into t's rows,
// stride elements apart from off; src may be t itself (in place).
func rotateRows(k *kernels, t *tensor.Tensor, off, rows, stride int, src *tensor.Tensor, so, sstride int, cos, sin []float32, gptj bool) {
	half := len(cos) / 2
	n := 0
	if k.isa != isaGeneric && half >= 8 {
		n = half &^ 7
		es := t.DType.Size()
		callKernel(k.isa, t.DType, gptj, true, elemPtr(t, off), rows, stride*es, &cos[0], &sin[0], half, n, elemPtr(src, so), sstride*es)
	}
	if n < half {
		for r := range rows {
			rotateRowGo(t, off+r*stride, src, so+r*sstride, cos, sin, gptj, n)
		}
	}
}

// rotateBroadcastRows rotates rows [lo, hi) of a.X (all dimensions but the last, row-major)
// into a.Out by the full-width cos/sin rows they broadcast against, widened once per distinct
// row, and copies the elements past the rotary dim: apply_rotary_emb's forward pass, and the
// row walk of the ops built on it. With flip set, each sin value is replaced by minus its pair
// partner's (the backward pass's dx).
func rotateBroadcastRows(a *ops.ApplyRotaryEmbArgs, lo, hi int, flip bool) {
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
	var flipped [len(buf.sin)]float32
	lastC, lastS := -1, -1
	var cos, sin []float32
	for r := lo; r < hi; {
		if w.offs[ci] != lastC || w.offs[si] != lastS {
			lastC, lastS = w.offs[ci], w.offs[si]
			cos, sin = widenRow(k, &a.Cos, lastC, d, buf.cos[:]), widenRow(k, &a.Sin, lastS, d, buf.sin[:])
			if flip {
				negatedPartners(flipped[:d], sin, a.GPTJ)
				sin = flipped[:d]
			}
		}
		n := 1
		if group > 1 && w.coords[inner] == 0 && r+group <= hi {
			n = group
		}
		xs, os := 0, 0
		if n > 1 {
			xs, os = a.X.Stride(inner), a.Out.Stride(inner)
		}
		if width > d {
			for j := range n {
				copyRow(a.Out, w.offs[oi]+j*os+d, a.X, w.offs[xi]+j*xs+d, width-d)
			}
		}
		rotateRows(k, &a.Out, w.offs[oi], n, os, &a.X, w.offs[xi], xs, cos, sin, a.GPTJ)
		w.skip(inner, n)
		r += n
	}
}

// rotateRowGo rotates pairs [from, half) of a row of src at so by full-width cos/sin rows into
// t's row at off.
func rotateRowGo(t *tensor.Tensor, off int, src *tensor.Tensor, so int, cos, sin []float32, gptj bool, from int) {
	half := len(cos) / 2
	for i := from; i < half; i++ {
		a, b := i, i+half
		if gptj {
			a, b = 2*i, 2*i+1
		}
		x1, x2 := src.Float32At(so+a), src.Float32At(so+b)
		t.SetFloat32(off+a, float32(x1*cos[a])-float32(x2*sin[a]))
		t.SetFloat32(off+b, float32(x2*cos[b])+float32(x1*sin[b]))
	}
}

// negatedPartners writes into dst (len(sin)) each value of the full-width sin row replaced by
// minus its pair partner's: the forward rotation by cos and dst is the backward pass's
// dx = dy·cos + rotateᵀ(dy·sin).
func negatedPartners(dst, sin []float32, gptj bool) {
	half := len(sin) / 2
	dst = dst[:len(sin)]
	for j := range half {
		p, q := j, j+half
		if gptj {
			p, q = 2*j, 2*j+1
		}
		dst[p], dst[q] = -sin[q], -sin[p]
	}
}
