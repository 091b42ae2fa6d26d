package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The kernels of package cpu's apply_rotary_emb.go beyond the shared rotation: the backward
// pass's sums.

// backwardSumsKernels emits backwardSums<Style><D><ISA> for every ISA, dtype and style.
func (g *generator) backwardSumsKernels() {
	for _, s := range []isa{avx512, avx2} {
		for _, d := range []dtype{f32, bf16, f16} {
			for _, gptj := range []bool{false, true} {
				g.backwardSumsKernel(s, d, gptj)
			}
		}
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
	style := "NeoX"
	if gptj {
		style = "GPTJ"
	}
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
	style := "NeoX"
	if gptj {
		style = "GPTJ"
	}
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
