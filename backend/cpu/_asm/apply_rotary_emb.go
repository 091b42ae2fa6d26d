package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The kernels of package cpu's apply_rotary_emb.go beyond the shared rotation: the backward
// pass's sums, and the backward pass fused (sums and dx in one pass over dy and x).

// backwardSumsKernels emits backwardSums<Style><D><ISA> for every ISA, dtype and style, and
// backwardFused<Style><D><ISA> for AVX-512 (bf16 also on AVX512BF16).
func (g *generator) backwardSumsKernels() {
	for _, s := range []isa{avx512, avx2} {
		for _, d := range []dtype{f32, bf16, f16} {
			for _, gptj := range []bool{false, true} {
				g.backwardSumsKernel(s, d, gptj)
			}
		}
	}
	for _, gptj := range []bool{false, true} {
		for _, d := range []dtype{f32, bf16, f16} {
			g.backwardFusedKernel(avx512, d, gptj)
		}
		g.backwardFusedKernel(avx512BF16, bf16, gptj)
	}
}

// backwardSumsKernel emits backwardSums<Style><D><ISA>(dcos, dsin *float64, dy, x *byte, rows,
// ystride, xstride, half, n int): apply_rotary_emb's backward sums over the first n pairs (n a
// multiple of 8) of `rows` rows of dy and x (strides in bytes), the rows taken in order for
// each element: dcos += dy·x and dsin += dy·rotate(x), in float64. Each product of two float32
// values is exact in float64 (48 significant bits, exponents far inside float64's range), so
// a fused multiply-add rounds once exactly where native's product-then-add does, and the sums
// come out bit for bit as native's. AVX2 machines need not have FMA: their kernels multiply,
// then add. NeoX's pairs are (j, half+j), GPT-J's (2j, 2j+1). bf16 on AVX-512 has a kernel of
// its own, backwardSumsBF16Kernel.
func (g *generator) backwardSumsKernel(s isa, d dtype, gptj bool) {
	if s == avx512 && d == bf16 {
		g.backwardSumsBF16Kernel(gptj)
		return
	}
	style := styleName(gptj)
	name := fmt.Sprintf("backwardSums%s%s%s", style, d.name, s.name)
	TEXT(name, NOSPLIT, "func(dcos, dsin *float64, dy, x *byte, rows, ystride, xstride, half, n int)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s adds the %s backward sums of the first n pairs (n a multiple of 8) of `rows` %s rows, in row order, to dcos and dsin.", name, style, d.name))
	dcos := Load(Param("dcos"), GP64())
	dsin := Load(Param("dsin"), GP64())
	dy := Load(Param("dy"), GP64())
	x := Load(Param("x"), GP64())
	rows := Load(Param("rows"), GP64())
	ys := Load(Param("ystride"), GP64())
	xs := Load(Param("xstride"), GP64())
	hf := Load(Param("half"), GP64())
	n := Load(Param("n"), GP64())
	TESTQ(n, n)
	JZ(LabelRef("done"))
	TESTQ(rows, rows)
	JZ(LabelRef("done"))
	lanes := s.lanes / 2 // float64 lanes
	es := d.esize
	// blocks counts the rounds over the columns: lanes pairs (NeoX) or elements (GPT-J) each.
	blocks := GP64()
	MOVQ(n, blocks)
	if gptj {
		SHLQ(U8(1), blocks)
	}
	SHRQ(U8(log2(lanes)), blocks)
	// The second halves, for NeoX: hb bytes on in dy and x, h8 in the sums.
	hb, h8 := GP64(), GP64()
	if !gptj {
		MOVQ(hf, hb)
		SHLQ(U8(log2(es)), hb)
		MOVQ(hf, h8)
		SHLQ(U8(3), h8)
	}
	var sign VecVirtual
	if gptj {
		sign = wideVec(lanes)
		if lanes == 8 {
			VMOVDQU64(g.evenSign64(), sign)
		} else {
			VMOVDQU(g.evenSign64(), sign)
		}
	}
	acc := func(m Mem) VecVirtual {
		v := wideVec(lanes)
		VMOVUPD(m, v)
		return v
	}
	// add adds a·b to sum, or subtracts it with neg.
	add := func(a, b, sum VecVirtual, neg bool) {
		if lanes == 8 {
			if neg {
				VFNMADD231PD(b, a, sum)
			} else {
				VFMADD231PD(b, a, sum)
			}
			return
		}
		p := wideVec(lanes)
		VMULPD(b, a, p)
		if neg {
			VSUBPD(p, sum, sum)
		} else {
			VADDPD(p, sum, sum)
		}
	}
	w := newSumsRows(dy, x, rows, ys, xs, hb, gptj)
	py, px, r, prefetch := w.py, w.px, w.r, w.prefetch
	Label("block")
	w.begin()
	if !gptj {
		c1, c2 := acc(Mem{Base: dcos}), acc(Mem{Base: dcos, Index: h8, Scale: 1})
		s1, s2 := acc(Mem{Base: dsin}), acc(Mem{Base: dsin, Index: h8, Scale: 1})
		Label("row")
		y1, y2 := widenF64(d, lanes, Mem{Base: py}), widenF64(d, lanes, Mem{Base: py, Index: hb, Scale: 1})
		x1, x2 := widenF64(d, lanes, Mem{Base: px}), widenF64(d, lanes, Mem{Base: px, Index: hb, Scale: 1})
		add(y1, x1, c1, false)
		add(y2, x2, c2, false)
		add(y1, x2, s1, true) // rotate(x) = (−x2, x1)
		add(y2, x1, s2, false)
		prefetch()
		ADDQ(ys, py)
		ADDQ(xs, px)
		DECQ(r)
		JNZ(LabelRef("row"))
		VMOVUPD(c1, Mem{Base: dcos})
		VMOVUPD(c2, Mem{Base: dcos, Index: h8, Scale: 1})
		VMOVUPD(s1, Mem{Base: dsin})
		VMOVUPD(s2, Mem{Base: dsin, Index: h8, Scale: 1})
	} else {
		c1, s1 := acc(Mem{Base: dcos}), acc(Mem{Base: dsin})
		Label("row")
		yv, xv := widenF64(d, lanes, Mem{Base: py}), widenF64(d, lanes, Mem{Base: px})
		rot := wideVec(lanes)
		if lanes == 8 {
			VPERMILPD(U8(0x55), xv, rot) // [x1 x0 x3 x2 ...]
			VXORPD(sign, rot, rot)       // rotate(x) = [−x1 x0 −x3 x2 ...], exactly
		} else {
			VPERMILPD(U8(0x5), xv, rot)
			VXORPD(sign.AsY(), rot, rot)
		}
		add(yv, xv, c1, false)
		add(yv, rot, s1, false)
		prefetch()
		ADDQ(ys, py)
		ADDQ(xs, px)
		DECQ(r)
		JNZ(LabelRef("row"))
		VMOVUPD(c1, Mem{Base: dcos})
		VMOVUPD(s1, Mem{Base: dsin})
	}
	ADDQ(U32(8*lanes), dcos)
	ADDQ(U32(8*lanes), dsin)
	ADDQ(U32(es*lanes), dy)
	ADDQ(U32(es*lanes), x)
	DECQ(blocks)
	JNZ(LabelRef("block"))
	Label("done")
	VZEROUPPER()
	RET()
}

// backwardSumsBF16Kernel emits backwardSums<Style>BF16AVX512, backwardSumsKernel's sums for bf16
// on AVX-512 over the first n pairs, n a multiple of 16 (NeoX) or 8 (GPT-J). A dword of two bf16
// words gives both as float32 without a shuffle (the low word shifted up, the high word masked),
// so the loads split each 16 elements into their even and odd ones, and the sums are kept split
// the same way while the rows go by: gathered from dcos and dsin before, put back in order after
// (VPERMI2PD). In GPT-J the split is the pairing itself: rotate(x) is −x_odd at the even
// elements and x_even at the odd ones.
func (g *generator) backwardSumsBF16Kernel(gptj bool) {
	style := styleName(gptj)
	name := fmt.Sprintf("backwardSums%sBF16AVX512", style)
	TEXT(name, NOSPLIT, "func(dcos, dsin *float64, dy, x *byte, rows, ystride, xstride, half, n int)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s adds the %s backward sums of the first n pairs (n a multiple of 16 for NeoX, 8 for GPT-J) of `rows` BF16 rows, in row order, to dcos and dsin.", name, style))
	dcos := Load(Param("dcos"), GP64())
	dsin := Load(Param("dsin"), GP64())
	dy := Load(Param("dy"), GP64())
	x := Load(Param("x"), GP64())
	rows := Load(Param("rows"), GP64())
	ys := Load(Param("ystride"), GP64())
	xs := Load(Param("xstride"), GP64())
	hf := Load(Param("half"), GP64())
	n := Load(Param("n"), GP64())
	TESTQ(n, n)
	JZ(LabelRef("done"))
	TESTQ(rows, rows)
	JZ(LabelRef("done"))
	// A round covers 16 elements of each operand: 16 pairs' halves (NeoX) or 8 pairs (GPT-J).
	blocks := GP64()
	MOVQ(n, blocks)
	if gptj {
		SHRQ(U8(3), blocks)
	} else {
		SHRQ(U8(4), blocks)
	}
	hb, h8 := GP64(), GP64()
	if !gptj {
		MOVQ(hf, hb)
		SHLQ(U8(1), hb)
		MOVQ(hf, h8)
		SHLQ(U8(3), h8)
	}
	hi := YMM()
	VPBROADCASTD(g.data.hiMask, hi)
	t := g.sumsTables()
	// split loads the 16 float64 sums at m as their even and odd elements.
	split := func(m Mem) (e, o VecVirtual) {
		lo := ZMM()
		VMOVUPD(m, lo)
		mhi := m
		mhi.Disp += 64
		e, o = ZMM(), ZMM()
		VMOVDQU64(t.even, e)
		VPERMI2PD(mhi, lo, e)
		VMOVDQU64(t.odd, o)
		VPERMI2PD(mhi, lo, o)
		return e, o
	}
	// join stores even and odd sums back in order at m.
	join := func(e, o VecVirtual, m Mem) {
		lo, hv := ZMM(), ZMM()
		VMOVDQU64(t.lo, lo)
		VPERMI2PD(o, e, lo)
		VMOVDQU64(t.hi, hv)
		VPERMI2PD(o, e, hv)
		VMOVUPD(lo, m)
		m.Disp += 64
		VMOVUPD(hv, m)
	}
	// widen loads 16 bf16 at m as float64, the even elements and the odd ones.
	widen := func(m Mem) (e, o VecVirtual) {
		w, fe, fo := YMM(), YMM(), YMM()
		VMOVDQU(m, w)
		VPSLLD(U8(16), w, fe)
		VPAND(hi, w, fo)
		e, o = ZMM(), ZMM()
		VCVTPS2PD(fe, e)
		VCVTPS2PD(fo, o)
		return e, o
	}
	w := newSumsRows(dy, x, rows, ys, xs, hb, gptj)
	py, px, r, prefetch := w.py, w.px, w.r, w.prefetch
	Label("block")
	w.begin()
	if !gptj {
		c1e, c1o := split(Mem{Base: dcos})
		c2e, c2o := split(Mem{Base: dcos, Index: h8, Scale: 1})
		s1e, s1o := split(Mem{Base: dsin})
		s2e, s2o := split(Mem{Base: dsin, Index: h8, Scale: 1})
		Label("row")
		y1e, y1o := widen(Mem{Base: py})
		y2e, y2o := widen(Mem{Base: py, Index: hb, Scale: 1})
		x1e, x1o := widen(Mem{Base: px})
		x2e, x2o := widen(Mem{Base: px, Index: hb, Scale: 1})
		VFMADD231PD(x1e, y1e, c1e)
		VFMADD231PD(x1o, y1o, c1o)
		VFMADD231PD(x2e, y2e, c2e)
		VFMADD231PD(x2o, y2o, c2o)
		VFNMADD231PD(x2e, y1e, s1e) // rotate(x) = (−x2, x1)
		VFNMADD231PD(x2o, y1o, s1o)
		VFMADD231PD(x1e, y2e, s2e)
		VFMADD231PD(x1o, y2o, s2o)
		prefetch()
		ADDQ(ys, py)
		ADDQ(xs, px)
		DECQ(r)
		JNZ(LabelRef("row"))
		join(c1e, c1o, Mem{Base: dcos})
		join(c2e, c2o, Mem{Base: dcos, Index: h8, Scale: 1})
		join(s1e, s1o, Mem{Base: dsin})
		join(s2e, s2o, Mem{Base: dsin, Index: h8, Scale: 1})
	} else {
		ce, co := split(Mem{Base: dcos})
		se, so := split(Mem{Base: dsin})
		Label("row")
		ye, yo := widen(Mem{Base: py})
		xe, xo := widen(Mem{Base: px})
		VFMADD231PD(xe, ye, ce)
		VFMADD231PD(xo, yo, co)
		VFNMADD231PD(xo, ye, se) // rotate(x) = [−x1 x0 −x3 x2 ...]
		VFMADD231PD(xe, yo, so)
		prefetch()
		ADDQ(ys, py)
		ADDQ(xs, px)
		DECQ(r)
		JNZ(LabelRef("row"))
		join(ce, co, Mem{Base: dcos})
		join(se, so, Mem{Base: dsin})
	}
	ADDQ(U32(8*16), dcos)
	ADDQ(U32(8*16), dsin)
	ADDQ(U32(2*16), dy)
	ADDQ(U32(2*16), x)
	DECQ(blocks)
	JNZ(LabelRef("block"))
	Label("done")
	VZEROUPPER()
	RET()
}

// sumsTables are backwardSumsBF16Kernel's VPERMI2PD indices over two vectors of 8 float64:
// even and odd gather the even and the odd elements of 16, lo and hi put even and odd ones back
// in order (the first 8 elements, the last 8).
type sumsTables struct{ even, odd, lo, hi Mem }

// sumsTables declares the tables on first use.
func (g *generator) sumsTables() sumsTables {
	if g.data.sums == nil {
		qwords := func(name string, f func(i int) int) Mem {
			m := GLOBL(name, RODATA|NOPTR)
			for i := range 8 {
				DATA(8*i, U64(uint64(f(i))))
			}
			return m
		}
		g.data.sums = &sumsTables{
			even: qwords("sumseven", func(i int) int { return 2 * i }),
			odd:  qwords("sumsodd", func(i int) int { return 2*i + 1 }),
			// Index 8+k is element k of the second vector: the odd sums.
			lo: qwords("sumslo", func(i int) int { return i/2 + 8*(i%2) }),
			hi: qwords("sumshi", func(i int) int { return 4 + i/2 + 8*(i%2) }),
		}
	}
	return *g.data.sums
}

// wideVec is a vector of `lanes` float64: a ZMM for 8, a YMM for 4.
func wideVec(lanes int) VecVirtual {
	if lanes == 8 {
		return ZMM()
	}
	return YMM()
}

// widenF64 loads `lanes` (8 or 4) elements of d at m as float64, exactly.
func widenF64(d dtype, lanes int, m Mem) VecVirtual {
	v := wideVec(lanes)
	var f VecVirtual // the float32 values, half v's width
	if lanes == 8 {
		f = YMM()
	} else {
		f = XMM()
	}
	switch d {
	case f32:
		VCVTPS2PD(m, v)
		return v
	case bf16:
		VPMOVZXWD(m, f)
		VPSLLD(U8(16), f, f)
	case f16:
		VCVTPH2PS(m, f)
	}
	VCVTPS2PD(f, v)
	return v
}

// evenSign64 is the float64 sign bit on the even ones of 8 lanes, declared on first use.
func (g *generator) evenSign64() Mem {
	if g.data.evenSign64 == nil {
		m := GLOBL("evensign64", RODATA|NOPTR)
		for i := range 8 {
			v := uint64(0)
			if i%2 == 0 {
				v = 1 << 63
			}
			DATA(8*i, U64(v))
		}
		g.data.evenSign64 = &m
	}
	return *g.data.evenSign64
}

// sumsRows walks a group of `rows` rows of dy and x for the backward sums kernels: py and px
// at the row, r the rows left, and qy, qx the same bytes `rows` rows on, which each row's loads
// prefetch. Where the heads of consecutive tokens follow each other (BSND, THD) that is the next
// call's group, whose first block would otherwise wait on memory for each of its rows in turn
// (about twice the time per token at 4096 tokens as at 512). A prefetch cannot fault.
type sumsRows struct {
	dy, x, rows, ys, xs, hb Register
	gptj                    bool
	py, px, r, qy, qx       GPVirtual
}

func newSumsRows(dy, x, rows, ys, xs, hb Register, gptj bool) *sumsRows {
	return &sumsRows{dy: dy, x: x, rows: rows, ys: ys, xs: xs, hb: hb, gptj: gptj,
		py: GP64(), px: GP64(), r: GP64(), qy: GP64(), qx: GP64()}
}

// begin points py and px at the group's first row, r at its row count, qy and qx `rows` rows on.
func (w *sumsRows) begin() {
	MOVQ(w.dy, w.py)
	MOVQ(w.x, w.px)
	MOVQ(w.rows, w.r)
	MOVQ(w.rows, w.qy)
	IMULQ(w.ys, w.qy)
	ADDQ(w.py, w.qy)
	MOVQ(w.rows, w.qx)
	IMULQ(w.xs, w.qx)
	ADDQ(w.px, w.qx)
}

// prefetch fetches the row `rows` rows on (both NeoX halves) and steps qy and qx to the next.
func (w *sumsRows) prefetch() {
	PREFETCHT0(Mem{Base: w.qy})
	PREFETCHT0(Mem{Base: w.qx})
	if !w.gptj {
		PREFETCHT0(Mem{Base: w.qy, Index: w.hb, Scale: 1})
		PREFETCHT0(Mem{Base: w.qx, Index: w.hb, Scale: 1})
	}
	ADDQ(w.ys, w.qy)
	ADDQ(w.xs, w.qx)
}

// The words of package cpu's backwardFused, the fused kernels' argument block, in order. The
// kernels step its pointer words from one cos row to the next (to the last one's) and count
// count down to 0.
const (
	fusedDY = iota
	fusedX
	fusedDX
	fusedCos
	fusedSin
	fusedDCos // nil: dcos is not written
	fusedDSin // nil: dsin is not written
	fusedRows // rows of dy, x and dx per cos row
	fusedYS   // bytes between those rows, per operand
	fusedXS
	fusedOS
	fusedCount // cos rows
	fusedYStep // bytes between consecutive cos rows' first rows, per operand
	fusedXStep
	fusedOStep
	fusedCStep
	fusedSStep
	fusedDCStep
	fusedDSStep
	fusedHalf   // pairs per row
	fusedN      // pairs the kernel does: a multiple of 16
	fusedGroups // groups of `rows` rows per cos row
	fusedYG     // bytes from a group's last row on to the next group's first, per operand
	fusedXG
	fusedOG
)

// backwardFusedKernel emits backwardFused<Style><D><ISA>(p *byte): apply_rotary_emb's
// backward pass over the first n pairs of `count` cos rows, each with `groups` groups of
// `rows` rows of dy and x (all of one dtype; the rows in native's order: group by group), as
// backwardSumsKernel and the full-row rotation do it in two passes, in one: each block of 16
// pairs of a row of dy and x is loaded once, adds its terms to the cos row's float64 sums (the
// rows in order, from +0, as native's accumulators) and gives its dx, dx = dy·cos +
// dy_partner·(−sin_partner) (the rotation by the sin row whose values are each minus their
// partner's, with the rotation kernel's operations in its order). After a block's rows the
// sums are rounded to float32, then to d, into dcos and dsin: a block reads its cos and sin
// values before any of its rows and writes its dcos and dsin after all of them, so dcos and
// dsin may be cos and sin themselves, and dx may be dy (each row's block is read before it is
// written). A block is two vectors of 16 elements: in NeoX the pairs' first and second
// halves, in GPT-J 32 consecutive elements, each vector holding its pairs.
func (g *generator) backwardFusedKernel(s isa, d dtype, gptj bool) {
	style := styleName(gptj)
	name := fmt.Sprintf("backwardFused%s%s%s", style, d.name, s.name)
	g.fastBF16 = s == avx512BF16
	TEXT(name, NOSPLIT, "func(p *byte)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s runs the %s backward pass of the first n pairs (a multiple of 16) of `count` cos rows' %s rows, sums and dx in one pass; p is a backwardFused.", name, style, d.name))
	p := Load(Param("p"), GP64())
	f := func(i int) Mem { return Mem{Base: p, Disp: 8 * i} }
	es := d.esize
	hb, nb := GP64(), GP64() // half in bytes; the bytes of a row the kernel does
	MOVQ(f(fusedHalf), hb)
	SHLQ(U8(log2(es)), hb)
	MOVQ(f(fusedN), nb)
	step := 16 * es // a block's bytes in each vector's row span
	if gptj {
		SHLQ(U8(log2(es)+1), nb)
		step = 32 * es
	} else {
		SHLQ(U8(log2(es)), nb)
	}
	// sec is where a block's second vector lies, given its first's.
	sec := func(m Mem) Mem {
		if gptj {
			m.Disp += 16 * es
			return m
		}
		m.Index, m.Scale = hb, 1
		return m
	}
	JZ(LabelRef("done"))
	CMPQ(f(fusedCount), U8(0))
	JE(LabelRef("done"))
	CMPQ(f(fusedRows), U8(0))
	JE(LabelRef("done"))
	CMPQ(f(fusedGroups), U8(0))
	JE(LabelRef("done"))
	var c consts
	if d == bf16 && !g.fastBF16 {
		// On AVX512BF16 the integer rounding's constants are loaded on the cold path
		// (fusedStorePair).
		c = g.loadConsts(bf16, false, 16)
	}
	var hiMask VecVirtual
	var tables sumsTables
	if d == bf16 {
		hiMask = YMM()
		VPBROADCASTD(g.data.hiMask, hiMask)
		tables = g.sumsTables()
	}
	var sign64 VecVirtual // GPT-J's rotate(x) in float64, from x swapped in pairs
	if gptj && d != bf16 {
		sign64 = ZMM()
		VMOVDQU64(g.evenSign64(), sign64)
	}
	off := GP64() // the block's byte offset in every row
	t := GP64()
	Label("cosrow")
	XORQ(off, off)
	Label("block")
	// The block's factors: c1, c2 the cos vectors; sv, sv2 the rotation's sin factors. NeoX:
	// sv = −s2 and sv2 = −s1 (negation flips the sign bit, as Go's). GPT-J: the sin row with
	// each value minus its partner's, [−s1 −s0 −s3 −s2 ...], then as gptjBlock turns it,
	// [s1 −s0 s3 −s2 ...], per vector.
	MOVQ(f(fusedCos), t)
	ADDQ(off, t)
	c1, c2 := load(d, 16, Mem{Base: t}), load(d, 16, sec(Mem{Base: t}))
	MOVQ(f(fusedSin), t)
	ADDQ(off, t)
	neg := ZMM()
	VPBROADCASTD(g.negSign32(), neg)
	var sv, sv2 VecVirtual
	if gptj {
		sv, sv2 = load(d, 16, Mem{Base: t}), load(d, 16, sec(Mem{Base: t}))
		even := ZMM()
		VMOVDQU32(g.data.sign, even)
		for _, v := range []VecVirtual{sv, sv2} {
			VPERMILPS(U8(0xB1), v, v)
			VXORPS(neg, v, v)
			VXORPS(even, v, v)
		}
	} else {
		sv2, sv = load(d, 16, Mem{Base: t}), load(d, 16, sec(Mem{Base: t}))
		VXORPS(neg, sv, sv)
		VXORPS(neg, sv2, sv2)
	}
	// The sums of the block's 32 elements: c for dcos, s for dsin, 1 and 2 the vectors, each
	// in two as wide splits them.
	var c1s, c2s, s1s, s2s [2]VecVirtual
	for _, a := range []*[2]VecVirtual{&c1s, &c2s, &s1s, &s2s} {
		for k := range a {
			a[k] = ZMM()
			VXORPD(a[k], a[k], a[k])
		}
	}
	py, px, po, r := GP64(), GP64(), GP64(), GP64()
	MOVQ(f(fusedDY), py)
	ADDQ(off, py)
	MOVQ(f(fusedX), px)
	ADDQ(off, px)
	MOVQ(f(fusedDX), po)
	ADDQ(off, po)
	MOVQ(f(fusedRows), r)
	gs := GP64() // groups left
	MOVQ(f(fusedGroups), gs)
	// Each row's loads prefetch the same bytes of the next cos row's: at 4096 tokens and more
	// the operands stream from memory, and the rows of a block are too far apart (a row each)
	// for the hardware prefetcher to see. A prefetch cannot fault, so the last cos row's reach
	// past the end is harmless.
	qy, qx := GP64(), GP64()
	MOVQ(f(fusedYStep), qy)
	MOVQ(f(fusedXStep), qx)
	Label("row")
	PREFETCHT0(Mem{Base: py, Index: qy, Scale: 1})
	PREFETCHT0(Mem{Base: px, Index: qx, Scale: 1})
	{
		// The second vectors (py + ystep + hb in NeoX): by way of t.
		LEAQ(Mem{Base: py, Index: qy, Scale: 1}, t)
		PREFETCHT0(sec(Mem{Base: t}))
		LEAQ(Mem{Base: px, Index: qx, Scale: 1}, t)
		PREFETCHT0(sec(Mem{Base: t}))
	}
	y1m, y2m := Mem{Base: py}, sec(Mem{Base: py})
	x1m, x2m := Mem{Base: px}, sec(Mem{Base: px})
	y1, y2 := load(d, 16, y1m), load(d, 16, y2m)
	// wide is the block's 16 values at m (loaded as v) as float64, exactly: the first 8 and
	// the last 8, or for bf16 the even and the odd ones (sumsSplit), which take no shuffle.
	wide := func(v VecVirtual, m Mem) [2]VecVirtual {
		lo, hi := ZMM(), ZMM()
		switch d {
		case f32:
			VCVTPS2PD(m, lo)
			m.Disp += 32
			VCVTPS2PD(m, hi)
		case bf16:
			w, fe, fo := YMM(), YMM(), YMM()
			VMOVDQU(m, w)
			VPSLLD(U8(16), w, fe)
			VPAND(hiMask, w, fo)
			VCVTPS2PD(fe, lo)
			VCVTPS2PD(fo, hi)
		default:
			h := YMM()
			VCVTPS2PD(v.AsY(), lo)
			VEXTRACTF32X8(U8(1), v, h)
			VCVTPS2PD(h, hi)
		}
		return [2]VecVirtual{lo, hi}
	}
	y1w, y2w := wide(y1, y1m), wide(y2, y2m)
	var x1w, x2w [2]VecVirtual
	if d == f16 {
		x1w, x2w = wide(load(d, 16, x1m), x1m), wide(load(d, 16, x2m), x2m)
	} else {
		x1w, x2w = wide(nil, x1m), wide(nil, x2m)
	}
	var o1, o2 VecVirtual
	if !gptj {
		for k := range 2 {
			// As backwardSumsKernel: rotate(x) = (−x2, x1).
			VFMADD231PD(x1w[k], y1w[k], c1s[k])
			VFMADD231PD(x2w[k], y2w[k], c2s[k])
			VFNMADD231PD(x2w[k], y1w[k], s1s[k])
			VFMADD231PD(x1w[k], y2w[k], s2s[k])
		}
		// dx as neoxRotate computes o1 = a·c − b·s, o2 = b·c + a·s with a = y1, b = y2.
		ac, bs, bc, as := ZMM(), ZMM(), ZMM(), ZMM()
		VMULPS(c1, y1, ac)
		VMULPS(sv, y2, bs)
		VMULPS(c2, y2, bc)
		VMULPS(sv2, y1, as)
		VSUBPS(bs, ac, ac)
		VADDPS(as, bc, bc)
		o1, o2 = ac, bc
	} else {
		for _, v := range []struct{ yw, xw, cs, ss [2]VecVirtual }{{y1w, x1w, c1s, s1s}, {y2w, x2w, c2s, s2s}} {
			if d == bf16 {
				// Even and odd elements: the pairs' first and second. As backwardSumsBF16Kernel:
				// rotate(x) = [−x1 x0 −x3 x2 ...].
				VFMADD231PD(v.xw[0], v.yw[0], v.cs[0])
				VFMADD231PD(v.xw[1], v.yw[1], v.cs[1])
				VFNMADD231PD(v.xw[1], v.yw[0], v.ss[0])
				VFMADD231PD(v.xw[0], v.yw[1], v.ss[1])
				continue
			}
			for k := range 2 {
				// As backwardSumsKernel: rotate(x) swaps the pairs and negates the even ones.
				rot := ZMM()
				VPERMILPD(U8(0x55), v.xw[k], rot)
				VXORPD(sign64, rot, rot)
				VFMADD231PD(v.xw[k], v.yw[k], v.cs[k])
				VFMADD231PD(rot, v.yw[k], v.ss[k])
			}
		}
		// dx as gptjBlock computes it: even x0·c − x1·s, odd x1·c + x0·s.
		o := [2]VecVirtual{}
		for i, v := range []struct{ y, c, s VecVirtual }{{y1, c1, sv}, {y2, c2, sv2}} {
			sw, ac, ss := ZMM(), ZMM(), ZMM()
			VPERMILPS(U8(0xB1), v.y, sw)
			VMULPS(v.c, v.y, ac)
			VMULPS(v.s, sw, ss)
			VADDPS(ss, ac, ac)
			o[i] = ac
		}
		o1, o2 = o[0], o[1]
	}
	g.fusedStorePair(d, c, o1, o2, Mem{Base: po}, sec(Mem{Base: po}))
	ADDQ(f(fusedYS), py)
	ADDQ(f(fusedXS), px)
	ADDQ(f(fusedOS), po)
	DECQ(r)
	JNZ(LabelRef("row"))
	DECQ(gs)
	JZ(LabelRef("summed"))
	ADDQ(f(fusedYG), py)
	ADDQ(f(fusedXG), px)
	ADDQ(f(fusedOG), po)
	MOVQ(f(fusedRows), r)
	JMP(LabelRef("row"))
	Label("summed")
	// The block's dcos and dsin: float64 → float32 (nearest even, as Go's conversion) → d.
	narrow := func(w [2]VecVirtual) VecVirtual {
		if d == bf16 {
			// Even and odd elements back in order.
			lo, hi := ZMM(), ZMM()
			VMOVDQU64(tables.lo, lo)
			VPERMI2PD(w[1], w[0], lo)
			VMOVDQU64(tables.hi, hi)
			VPERMI2PD(w[1], w[0], hi)
			w = [2]VecVirtual{lo, hi}
		}
		v, h := ZMM(), YMM()
		VCVTPD2PS(w[0], v.AsY())
		VCVTPD2PS(w[1], h)
		VINSERTF32X8(U8(1), h, v, v)
		return v
	}
	for _, o := range []struct {
		field  int
		s1, s2 [2]VecVirtual
		skip   string
	}{{fusedDCos, c1s, c2s, "nodcos"}, {fusedDSin, s1s, s2s, "nodsin"}} {
		MOVQ(f(o.field), t)
		TESTQ(t, t)
		JZ(LabelRef(o.skip))
		ADDQ(off, t)
		g.fusedStorePair(d, c, narrow(o.s1), narrow(o.s2), Mem{Base: t}, sec(Mem{Base: t}))
		Label(o.skip)
	}
	ADDQ(U32(step), off)
	CMPQ(off, nb)
	JB(LabelRef("block"))
	// The next cos row. The pointer words step only while rows remain, so that they never point
	// past their operands (the garbage collector may see them).
	DECQ(f(fusedCount))
	JZ(LabelRef("done"))
	for _, w := range [][2]int{{fusedDY, fusedYStep}, {fusedX, fusedXStep}, {fusedDX, fusedOStep},
		{fusedCos, fusedCStep}, {fusedSin, fusedSStep}, {fusedDCos, fusedDCStep}, {fusedDSin, fusedDSStep}} {
		MOVQ(f(w[1]), t)
		ADDQ(t, f(w[0]))
	}
	JMP(LabelRef("cosrow"))
	Label("done")
	g.retWithColdPaths()
}

// fusedStorePair rounds a and b (16 float32 each) to d and stores them at m1 and m2: bf16 on
// AVX512BF16 through storeBF16Pair, whose cold path loads the integer rounding's constants
// itself (c holds none here).
func (g *generator) fusedStorePair(d dtype, c consts, a, b VecVirtual, m1, m2 Mem) {
	if d != bf16 || !g.fastBF16 {
		g.store(d, 16, c, a, m1)
		g.store(d, 16, c, b, m2)
		return
	}
	g.storeBF16Pair(c, a, b, m1, m2)
}

// negSign32Data is the float32 sign bit, declared by negSign32 on first use.
var negSign32Data *Mem

// negSign32 is the float32 sign bit, to broadcast: XOR with it negates.
func (g *generator) negSign32() Mem {
	if negSign32Data == nil {
		m := GLOBL("negsign32", RODATA|NOPTR)
		DATA(0, U32(0x80000000))
		negSign32Data = &m
	}
	return *negSign32Data
}
