package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// consts are broadcast constants, loaded once per kernel.
type consts struct {
	one, bias, absMask, inf, quiet VecVirtual // bf16 rounding
	sign                           VecVirtual // sign bit on even lanes (GPT-J)
	dupIdx                         VecVirtual // [0,0,1,1,...] (GPT-J)
}

// vec returns a new vector register of the given width in lanes.
func vec(lanes int) VecVirtual {
	if lanes == 16 {
		return ZMM()
	}
	return YMM()
}

func half(v VecVirtual, lanes int) Op {
	if lanes == 16 {
		return v.AsY()
	}
	return v.AsX()
}

func (g *generator) loadConsts(d dtype, gptj bool, lanes int) consts {
	var c consts
	bcast := func(m Mem) VecVirtual {
		v := vec(lanes)
		VPBROADCASTD(m, v)
		return v
	}
	if d == bf16 {
		c.one, c.bias, c.absMask, c.inf, c.quiet = bcast(g.data.one), bcast(g.data.bias), bcast(g.data.absMask), bcast(g.data.inf), bcast(g.data.quiet)
	}
	if gptj {
		c.sign = vec(lanes)
		c.dupIdx = vec(lanes)
		if lanes == 16 {
			VMOVDQU32(g.data.sign, c.sign)
			VMOVDQU32(g.data.dup16, c.dupIdx)
		} else {
			VMOVDQU(g.data.sign, c.sign)
			VMOVDQU(g.data.dup16, c.dupIdx)
		}
	}
	return c
}

// load widens `lanes` elements at m to float32.
func load(d dtype, lanes int, m Mem) VecVirtual {
	v := vec(lanes)
	switch d {
	case f32:
		VMOVUPS(m, v)
	case bf16:
		VPMOVZXWD(m, v)
		VPSLLD(U8(16), v, v)
	case f16:
		VCVTPH2PS(m, v)
	}
	return v
}

// fit views a broadcast constant at the block's width (an AVX-512 kernel's 8-lane blocks use the
// low halves of its 16-lane constants).
func fit(v VecVirtual, lanes int) Register {
	if lanes == 8 {
		return v.AsY()
	}
	return v.AsZ()
}

// store rounds v to d (nearest even) and writes it to m.
func (g *generator) store(d dtype, lanes int, c consts, v VecVirtual, m Mem) {
	switch d {
	case f32:
		VMOVUPS(v, m)
	case f16:
		VCVTPS2PH(U8(0), v, m)
	case bf16:
		if g.fastBF16 && lanes == 16 {
			// VCVTNEPS2BF16 rounds to nearest even and quiets NaNs exactly as the reference,
			// but flushes subnormal inputs to zero: a vector with any subnormal lane takes the
			// integer path below instead.
			r := YMM()
			cvtNEPS2BF16(v, r)
			k := K()
			subnormals(v, k)
			KORTESTW(k, k)
			slow, done := g.newLabel("bf16slow"), g.newLabel("bf16done")
			JNZ(LabelRef(slow))
			VMOVDQU32(r, m)
			JMP(LabelRef(done))
			Label(slow)
			storeBF16Int(lanes, c, v, m)
			Label(done)
			return
		}
		if g.fastBF16 && lanes == 8 {
			g.storeBF16Half(c, v, m)
			return
		}
		storeBF16Int(lanes, c, v, m)
	}
}

// storeBF16Half stores v's 8 lanes (a YMM) as bf16 at m: one VCVTNEPS2BF16 of the whole ZMM,
// of whose words only the low 8 are stored, unless one of the 8 lanes is subnormal, then the
// integer rounding on the cold path. (The 8-pair blocks of heads of 80 or 112 would otherwise
// take the integer rounding every time.)
func (g *generator) storeBF16Half(c consts, v VecVirtual, m Mem) {
	k := K()
	VFPCLASSPSY(U8(0x20), v, k) // class 0x20: denormal
	KORTESTW(k, k)
	slow, done := g.newLabel("bf16hslow"), g.newLabel("bf16hdone")
	JNZ(LabelRef(slow))
	r := YMM()
	cvtNEPS2BF16(v.AsZ().(VecVirtual), r)
	VMOVDQU16(r.AsX(), m)
	Label(done)
	g.coldPaths = append(g.coldPaths, func() {
		Label(slow)
		w := YMM()
		VPMOVDW(roundBF16Int16(g.coldConsts(c), v.AsZ()), w)
		VMOVDQU16(w.AsX(), m)
		JMP(LabelRef(done))
	})
}

// storeBF16Int rounds with integer arithmetic:
// r = (v + 0x7fff + ((v >> 16) & 1)) >> 16; NaN → (v >> 16) | 0x40.
func storeBF16Int(lanes int, c consts, v Register, m Mem) {
	if lanes == 16 {
		VPMOVDW(roundBF16Int16(c, v), m)
	} else {
		t, nan := vec(lanes), vec(lanes)
		VPSRLD(U8(16), v, t)
		VPSRLD(U8(16), v, nan)
		VPAND(fit(c.one, lanes), t, t)
		VPADDD(v, t, t)
		VPADDD(fit(c.bias, lanes), t, t)
		VPSRLD(U8(16), t, t)
		VPOR(fit(c.quiet, lanes), nan, nan)
		abs := vec(lanes)
		VPAND(fit(c.absMask, lanes), v, abs)
		VPCMPGTD(fit(c.inf, lanes), abs, abs)
		VPBLENDVB(abs, nan, t, t)
		VPACKUSDW(t, t, t)
		VPERMQ(U8(0x08), t, t)
		VMOVDQU(t.AsX(), m)
	}
}

// roundBF16Int16 is storeBF16Int's rounding of 16 lanes (EVEX instructions only, so any of the
// 32 registers will do): each dword's low word the bf16 of v's lane.
func roundBF16Int16(c consts, v Register) VecVirtual {
	t, nan := ZMM(), ZMM()
	VPSRLD(U8(16), v, t)
	VPSRLD(U8(16), v, nan)
	VPANDD(c.one, t, t)
	VPADDD(v, t, t)
	VPADDD(c.bias, t, t)
	VPSRLD(U8(16), t, t)
	VPORD(c.quiet, nan, nan)
	abs := ZMM()
	VPANDD(c.absMask, v, abs)
	k := K()
	VPCMPGTD(c.inf, abs, k)
	VPBLENDMD(nan, t, k, t)
	return t
}

// storeBF16Wide stores lo (16 values) then hi (the next 16) as 32 bf16 at m: one
// VCVTNE2PS2BF16 and one store, unless a lane is subnormal (the instruction flushes
// subnormals), then the integer path.
func (g *generator) storeBF16Wide(c consts, lo, hi VecVirtual, m Mem) {
	k1, k2 := K(), K()
	subnormals(lo, k1)
	subnormals(hi, k2)
	KORTESTW(k1, k2)
	slow, done := g.newLabel("bf16wslow"), g.newLabel("bf16wdone")
	JNZ(LabelRef(slow))
	w := ZMM()
	cvtNE2PS2BF16(hi, lo, w)
	VMOVDQU16(w, m)
	Label(done)
	mhi := m
	mhi.Disp += 32
	g.coldPaths = append(g.coldPaths, func() {
		Label(slow)
		c := g.coldConsts(c)
		storeBF16Int(16, c, lo, m)
		storeBF16Int(16, c, hi, mhi)
		JMP(LabelRef(done))
	})
}

// coldConsts returns c, with the integer rounding's constants broadcast here when c does not
// hold them (kernels that keep their registers for data load them only on the cold path).
func (g *generator) coldConsts(c consts) consts {
	if c.one == nil {
		c = g.loadConsts(bf16, false, 16)
	}
	return c
}

// storeBF16Pair stores a at m1 and b at m2 as bf16: VCVTNEPS2BF16 unless a lane of either
// is subnormal (which the instruction flushes), then the integer path on a cold path, which
// loads the rounding's constants when c does not hold them.
func (g *generator) storeBF16Pair(c consts, a, b VecVirtual, m1, m2 Mem) {
	k1, k2 := K(), K()
	subnormals(a, k1)
	subnormals(b, k2)
	KORTESTW(k1, k2)
	slow, done := g.newLabel("bf16slow"), g.newLabel("bf16done")
	JNZ(LabelRef(slow))
	for _, p := range []struct {
		v VecVirtual
		m Mem
	}{{a, m1}, {b, m2}} {
		r := YMM()
		cvtNEPS2BF16(p.v, r)
		VMOVDQU32(r, p.m)
	}
	Label(done)
	g.coldPaths = append(g.coldPaths, func() {
		Label(slow)
		c := g.coldConsts(c)
		storeBF16Int(16, c, a, m1)
		storeBF16Int(16, c, b, m2)
		JMP(LabelRef(done))
	})
}

// subnormals sets k's lanes where v (16 float32 lanes) is subnormal: the only values on which
// VCVTNE(2)PS2BF16 differs from the reference rounding (it flushes them to ±0; it rounds ±0,
// normals, infinities and NaNs exactly as the reference does).
func subnormals(v VecVirtual, k Op) {
	VFPCLASSPSZ(U8(0x20), v, k) // class 0x20: denormal
}

// backUnlessSubnormal emits a slow path's second look: the hot path's one-instruction test
// sends every zero-exponent lane here, zeros with the subnormals, but VCVTNE(2)PS2BF16 rounds
// ±0 exactly and flushes only the subnormals, so a block whose float32 values vs (16 lanes
// each) hold no subnormal goes back to the conversion at label fast. Exact zeros are common
// (padding rows, a·c equal to b·s); the integer rounding costs several times the instruction.
func (g *generator) backUnlessSubnormal(fast string, vs ...VecVirtual) {
	exp, abs := ZMM(), ZMM()
	VPBROADCASTD(g.data.expMask, exp)
	VPBROADCASTD(g.data.absMask, abs)
	var acc Op
	for _, v := range vs {
		k := K()
		VPTESTNMD(exp, v, k)   // zero exponent ...
		VPTESTMD(abs, v, k, k) // ... and not ±0
		if acc != nil {
			KORW(k, acc, k)
		}
		acc = k
	}
	KORTESTW(acc, acc)
	JZ(LabelRef(fast))
}

// dwordTable declares 16 dwords of read-only data.
func dwordTable(name string, v [16]int) Mem {
	m := GLOBL(name, RODATA|NOPTR)
	for i, x := range v {
		DATA(4*i, U32(uint32(x)))
	}
	return m
}
