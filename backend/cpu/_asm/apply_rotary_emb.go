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
// then add. NeoX's pairs are (j, half+j), GPT-J's (2j, 2j+1).
func (g *generator) backwardSumsKernel(s isa, d dtype, gptj bool) {
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
	py, px, r := GP64(), GP64(), GP64()
	Label("block")
	MOVQ(dy, py)
	MOVQ(x, px)
	MOVQ(rows, r)
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
