package cpu

import (
	"github.com/rotary-go/rotary/backend/native"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// apply_rotary_emb on the CPU: rows of x (all dimensions but the last) are rotated by the
// full-width cos/sin row they broadcast against, converted to float32 once per distinct row and
// run through the assembly kernels' full-row variants, which read x and write out in one pass
// (out may be x); the elements past the rotary dim are copied.
// The backward pass with dcos or dsin reads dy and x once where it can (runFused), summing and
// rotating in one kernel. The arithmetic, and the backward pass's summation order, are
// native's, so results match it bit for bit.

// applyRotaryEmbBackward: dx = dy·cos + rotateᵀ(dy·sin) is the forward rotation of dy with the
// sin row replaced by −(its pair partner): rotateᵀ(v) is (v2, −v1) for half, (v[2i+1], −v[2i])
// for interleave. dcos and dsin are native's float64 sums, each element's terms added in
// native's order: the rows of x in row-major order. That order only ties the rows that share a
// cos row, so the pool splits the cos rows, each thread summing its own cos rows' terms over
// their rows of x in that order: the sums come out bit for bit as native's on any number of
// threads.
func applyRotaryEmbBackward(a *ops.ApplyRotaryEmbBackwardArgs) {
	d := a.RotaryDim
	if a.X.Rank() > maxRank || d > 512 {
		native.ApplyRotaryEmbBackward(a)
		return
	}
	last := a.X.Rank() - 1
	rows := tensor.NumElements(a.X.Shape[:last])
	if rows == 0 {
		// No rows of x, but cos may have rows (it broadcasts along x's empty dimension): their
		// dcos and dsin are sums of no terms, +0, which native writes.
		if !a.DCos.IsZero() || !a.DSin.IsZero() {
			native.ApplyRotaryEmbBackward(a)
		}
		return
	}
	bytes := 3 * a.X.Len() * a.X.DType.Size()
	if a.DCos.IsZero() && a.DSin.IsZero() {
		// Only dx: the forward pass's rows, split as it splits them.
		j := applyRotaryEmbJob{a: ops.ApplyRotaryEmbArgs{X: a.DY, Out: a.DX, Cos: a.Cos, Sin: a.Sin, GPTJ: a.GPTJ, RotaryDim: d}, flip: true}
		if rows < 2 || ThreadsFor(bytes) < 2 || !parallel(&j, rows) {
			j.run(0, rows)
		}
		return
	}
	j := (*backwardJob)(a)
	cosRows := a.Cos.Len() / d
	if cosRows < 2 || ThreadsFor(bytes) < 2 || !parallel(j, cosRows) {
		j.run(0, cosRows)
	}
}

// backwardJob is apply_rotary_emb's backward pass with dcos or dsin (or both) as the pool runs
// it, by cos row.
type backwardJob ops.ApplyRotaryEmbBackwardArgs

var backwardSlot backwardJob

func (*backwardJob) slot() *backwardJob { return &backwardSlot }

// run does cos rows [lo, hi) (row-major over cos's leading dimensions): for each, every row of
// dy and x it broadcasts against, in row-major order, adds its terms to the row's float64 sums
// (native's accumulators, from +0) and writes its dx; then the row's dcos and dsin. Both sums
// are taken when either is asked for: one pass of the kernels fills both. A cos row's dcos and
// dsin are written after its last read of cos and sin, so that they may be cos or sin
// themselves, as in native, which writes them last. Where a cos row's groups of rows lie along
// at most one dimension and the kernel set has a fused kernel for the call (fusable),
// runFused does it all in one pass; otherwise the sums kernel, then the rotation kernel, go
// over each group.
func (b *backwardJob) run(lo, hi int) {
	a := (*ops.ApplyRotaryEmbBackwardArgs)(b)
	k := active
	d := a.RotaryDim
	last := a.X.Rank() - 1
	width := a.X.Shape[last]
	// cw walks the cos rows; the dimensions cos broadcasts along stay at 0 in it.
	cw := rowWalk{lead: a.Cos.Shape[:last]}
	yi, xi, oi, ci, si := cw.operand(a.DY), cw.operand(a.X), cw.operand(a.DX), cw.operand(a.Cos), cw.operand(a.Sin)
	cw.seek(lo)
	// sw walks dcos and dsin (cos-shaped, when present) in step with cw.
	sw := rowWalk{lead: a.Cos.Shape[:last]}
	dci, dsi := -1, -1
	if !a.DCos.IsZero() {
		dci = sw.operand(a.DCos)
	}
	if !a.DSin.IsZero() {
		dsi = sw.operand(a.DSin)
	}
	sw.seek(lo)
	// bw walks, from a cos row's first row of x, the rows that share it: x's extent in the
	// dimensions cos broadcasts along, 1 in the others. When the innermost leading dimension
	// is one of them (heads, in BSND and THD), its rows go to the kernels together.
	var bshape [maxRank]int
	for dim := range last {
		bshape[dim] = 1
		if a.Cos.Shape[dim] == 1 {
			bshape[dim] = a.X.Shape[dim]
		}
	}
	group, inner := 1, last-1
	var ys, xs, os int
	if inner >= 0 && bshape[inner] > 1 {
		group, bshape[inner] = bshape[inner], 1
		ys, xs, os = a.DY.Stride(inner), a.X.Stride(inner), a.DX.Stride(inner)
	}
	bw0 := rowWalk{lead: bshape[:last]}
	one := tensor.NumElements(bw0.lead) == 1 // a cos row's rows are one group (batch 1)
	// The fused kernels take a cos row's groups along at most one dimension (batch, in BSND).
	fl := fusedLayout{group: group, groups: 1, strides: [3]int{ys, xs, os}}
	outer := 0
	for dim := range last {
		if bshape[dim] > 1 {
			outer++
			fl.groups = bshape[dim]
			fl.gstrides = [3]int{a.DY.Stride(dim), a.X.Stride(dim), a.DX.Stride(dim)}
		}
	}
	if outer <= 1 && b.fusable(k) {
		b.runFused(k, lo, hi, &cw, &sw, [5]int{yi, xi, oi, ci, si}, [2]int{dci, dsi}, &fl)
		return
	}
	at0 := func(t tensor.Tensor) tensor.Tensor { t.Offset = 0; return t }
	bw0.operand(at0(a.DY))
	bw0.operand(at0(a.X))
	bw0.operand(at0(a.DX))
	var buf rowBuffers
	var flipped [512]float32
	var sums [2][512]float64
	dcos, dsin := sums[0][:d:d], sums[1][:d:d]
	for c := lo; c < hi; c++ {
		cos, sin := widenRow(k, &a.Cos, cw.offs[ci], d, buf.cos[:]), widenRow(k, &a.Sin, cw.offs[si], d, buf.sin[:])
		negatedPartners(flipped[:d], sin, a.GPTJ)
		clear(dcos)
		clear(dsin)
		bw := bw0
		for {
			y, x, o := cw.offs[yi]+bw.offs[0], cw.offs[xi]+bw.offs[1], cw.offs[oi]+bw.offs[2]
			// All of the group's terms are read before any of its dx is written: dx may be dy.
			accumulateRows(k, dcos, dsin, a.DY, y, ys, a.X, x, xs, group, a.GPTJ)
			if width > d {
				for j := range group {
					copyRow(a.DX, o+j*os+d, a.DY, y+j*ys+d, width-d)
				}
			}
			rotateRows(k, &a.DX, o, group, os, &a.DY, y, ys, cos, flipped[:d], a.GPTJ)
			if one || !bw.next() {
				break
			}
		}
		if dci >= 0 {
			storeSums(k, a.DCos, sw.offs[dci], dcos, buf.cos[:d])
		}
		if dsi >= 0 {
			storeSums(k, a.DSin, sw.offs[dsi], dsin, buf.sin[:d])
		}
		cw.next()
		sw.next()
	}
}

// fusable reports whether the kernel set has a fused backward kernel for the call, whose
// operands then share one dtype, with dcos and dsin contiguous along the rotary dim.
func (b *backwardJob) fusable(k *kernels) bool {
	a := (*ops.ApplyRotaryEmbBackwardArgs)(b)
	d := a.X.DType
	if (a.RotaryDim/2)%16 != 0 || a.Cos.DType != d || !hasBackwardFused(k.isa) {
		return false
	}
	for _, t := range []tensor.Tensor{a.DCos, a.DSin} {
		if !t.IsZero() && (t.DType != d || t.Stride(t.Rank()-1) != 1) {
			return false
		}
	}
	return true
}

// fusedLayout is how a cos row's rows of dy, x and dx lie, from its first: `groups` groups
// gstrides apart, each of `group` rows strides apart (elements; dy, x, dx).
type fusedLayout struct {
	group, groups     int
	strides, gstrides [3]int
}

// runFused is run's fused path: the kernel walks cos rows [lo, hi) itself, as many at a call
// as follow each other along the innermost of cos's leading dimensions with more than one
// row, with their rows as l lays them out (opers: cw's operands dy, x, dx, cos, sin; sums:
// sw's dcos and dsin, or -1). cw and sw are at lo.
func (b *backwardJob) runFused(k *kernels, lo, hi int, cw, sw *rowWalk, opers [5]int, sums [2]int, l *fusedLayout) {
	a := (*ops.ApplyRotaryEmbBackwardArgs)(b)
	d := a.RotaryDim
	last := a.X.Rank() - 1
	width := a.X.Shape[last]
	es := a.X.DType.Size()
	m := -1
	for dim := last - 1; dim >= 0; dim-- {
		if a.Cos.Shape[dim] > 1 {
			m = dim
			break
		}
	}
	yi, xi, oi, ci, si := opers[0], opers[1], opers[2], opers[3], opers[4]
	group, strides := l.group, l.strides
	p := backwardFused{rows: group, ys: strides[0] * es, xs: strides[1] * es, os: strides[2] * es, half: d / 2, n: d / 2}
	// From a group's last row on to the next group's first: the kernel is then a row on from
	// the last.
	p.groups = l.groups
	p.yg = (l.gstrides[0] - group*strides[0]) * es
	p.xg = (l.gstrides[1] - group*strides[1]) * es
	p.og = (l.gstrides[2] - group*strides[2]) * es
	ystep, ostep := 0, 0 // in elements, for the pass-through copies
	if m >= 0 {
		ystep, ostep = cw.strides[yi][m], cw.strides[oi][m]
		p.ystep, p.xstep, p.ostep = ystep*es, cw.strides[xi][m]*es, ostep*es
		p.cstep, p.sstep = cw.strides[ci][m]*es, cw.strides[si][m]*es
		if sums[0] >= 0 {
			p.dcstep = sw.strides[sums[0]][m] * es
		}
		if sums[1] >= 0 {
			p.dsstep = sw.strides[sums[1]][m] * es
		}
	}
	for c := lo; c < hi; {
		n := 1
		if m >= 0 {
			n = min(hi-c, cw.lead[m]-cw.coords[m])
		}
		p.dy, p.x, p.dx = elemPtr(&a.DY, cw.offs[yi]), elemPtr(&a.X, cw.offs[xi]), elemPtr(&a.DX, cw.offs[oi])
		p.cos, p.sin = elemPtr(&a.Cos, cw.offs[ci]), elemPtr(&a.Sin, cw.offs[si])
		p.dcos, p.dsin = nil, nil
		if sums[0] >= 0 {
			p.dcos = elemPtr(&a.DCos, sw.offs[sums[0]])
		}
		if sums[1] >= 0 {
			p.dsin = elemPtr(&a.DSin, sw.offs[sums[1]])
		}
		p.count = n
		backwardFusedAsm(k.isa, a.X.DType, a.GPTJ, &p)
		if width > d {
			for r := range n {
				for g := range l.groups {
					y, o := cw.offs[yi]+r*ystep+g*l.gstrides[0], cw.offs[oi]+r*ostep+g*l.gstrides[2]
					for j := range group {
						copyRow(a.DX, o+j*strides[2]+d, a.DY, y+j*strides[0]+d, width-d)
					}
				}
			}
		}
		advance(cw, m, n)
		advance(sw, m, n)
		c += n
	}
}

// advance moves w on by n rows, the first n−1 of them along dimension m without wrapping.
func advance(w *rowWalk, m, n int) {
	if n > 1 {
		w.coords[m] += n - 1
		for k := range w.n {
			w.offs[k] += (n - 1) * w.strides[k][m]
		}
	}
	w.next()
}

// accumulateRows adds, for each of `rows` rows of dy and x (at y and xi, ys and xs elements
// apart) in order, dy·x to dcos and dy·rotate(x) to dsin, element by element in float64: the
// kernel takes the pairs in blocks of 8 or 16, Go the rest.
func accumulateRows(k *kernels, dcos, dsin []float64, dy tensor.Tensor, y, ys int, x tensor.Tensor, xi, xs, rows int, gptj bool) {
	d := len(dcos)
	half := d / 2
	es := dy.DType.Size()
	from := backwardSumsAsm(k.isa, dy.DType, gptj, &dcos[0], &dsin[0], elemPtr(&dy, y), elemPtr(&x, xi), rows, ys*es, xs*es, half)
	if from == half {
		return
	}
	dcos, dsin = dcos[:d:d], dsin[:d:d]
	var rb struct{ dy, x [512]float32 }
	for r := range rows {
		g := rowF32(dy, y+r*ys, d, rb.dy[:])
		v := rowF32(x, xi+r*xs, d, rb.x[:])
		for p := from; p < half; p++ {
			a, b := p, p+half
			if gptj {
				a, b = 2*p, 2*p+1
			}
			// rotate(x) is −x_b at a, x_a at b.
			dcos[a] += float64(g[a]) * float64(v[a])
			dcos[b] += float64(g[b]) * float64(v[b])
			dsin[a] += float64(g[a]) * float64(-v[b])
			dsin[b] += float64(g[b]) * float64(v[a])
		}
	}
}

// backwardFused is the fused backward kernels' argument block: its words in the order of the
// generator's fused* constants. Pointers are to element 0 of a cos row's first row, strides and
// steps in bytes; the kernel steps the pointers (to the last cos row's) and counts count down.
// A cos row's rows of dy, x and dx are `groups` groups of `rows` rows, in that order.
type backwardFused struct {
	dy, x, dx, cos, sin, dcos, dsin                          *byte // dcos, dsin nil: not written
	rows, ys, xs, os                                         int   // rows of dy, x, dx per cos row
	count, ystep, xstep, ostep, cstep, sstep, dcstep, dsstep int   // cos rows, and their steps
	half, n                                                  int   // pairs per row; pairs to do, a multiple of 16
	groups, yg, xg, og                                       int   // groups of rows per cos row; from a group's last row on to the next's first
}

// storeSums stores float64 sums into t's row at off as native does, through float32; buf
// (len(sums)) is scratch.
func storeSums(k *kernels, t tensor.Tensor, off int, sums []float64, buf []float32) {
	n := len(sums)
	if t.DType == tensor.F32 {
		buf = t.F32[off : off+n : off+n]
	}
	buf = buf[:n:n]
	for j, v := range sums {
		buf[j] = float32(v)
	}
	if t.DType != tensor.F32 {
		narrowBits(k, t.DType, t.Bits[off:off+n], buf[:n])
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
	if rows >= 2 && ThreadsFor(bytes) >= 2 {
		j := applyRotaryEmbJob{a: *a}
		if parallel(&j, rows) {
			return
		}
	}
	rotateBroadcastRows(a, 0, rows, false)
}

// applyRotaryEmbJob is an apply_rotary_emb call as the pool runs it, by row of x; with flip
// set, the backward pass's dx alone (dy in x's place, dx in out's).
type applyRotaryEmbJob struct {
	a    ops.ApplyRotaryEmbArgs
	flip bool
}

var applyRotaryEmbSlot applyRotaryEmbJob

func (*applyRotaryEmbJob) slot() *applyRotaryEmbJob { return &applyRotaryEmbSlot }

func (j *applyRotaryEmbJob) run(lo, hi int) { rotateBroadcastRows(&j.a, lo, hi, j.flip) }

func init() {
	ops.ApplyRotaryEmb.Register(&ops.Impl[ops.ApplyRotaryEmbArgs]{Backend: Name, Priority: 10, Fn: func(a ops.ApplyRotaryEmbArgs) { applyRotaryEmb(&a) }})
	ops.ApplyRotaryEmbBackward.Register(&ops.Impl[ops.ApplyRotaryEmbBackwardArgs]{Backend: Name, Priority: 10, Fn: func(a ops.ApplyRotaryEmbBackwardArgs) { applyRotaryEmbBackward(&a) }})
}
