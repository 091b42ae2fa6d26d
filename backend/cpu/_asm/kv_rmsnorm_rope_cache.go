package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// kvcNormKernel emits kvcNormAVX512(y, x, gamma *float32, n int, eps float32): kv_rmsnorm_rope_cache's
// RMSNorm of one widened row, r = native.RMSNormScale(native.SumSquares(x), n, eps), then
// y_j = float32(float32(x_j·r)·g_j); n a multiple of 16.
func (g *generator) kvcNormKernel() {
	g.fastBF16 = false
	TEXT("kvcNormAVX512", NOSPLIT, "func(y, x, gamma *float32, n int, eps float32)")
	Pragma("noescape")
	Doc("kvcNormAVX512 writes the RMSNorm of the n (a multiple of 16) float32 values at x, times gamma, to y, as kv_rmsnorm_rope_cache does.")
	y := Load(Param("y"), GP64())
	x := Load(Param("x"), GP64())
	gamma := Load(Param("gamma"), GP64())
	n := Load(Param("n"), GP64())
	eps := Load(Param("eps"), XMM())
	TESTQ(n, n)
	JZ(LabelRef("done"))
	nF, oneD := g.rmsConsts(n)
	rz := rmsScale(g.sumSquaresLoop(f32, x, n), nF, oneD, eps)
	i := GP64()
	XORQ(i, i)
	Label("scale")
	v := ZMM()
	VMOVUPS(Mem{Base: x, Index: i, Scale: 4}, v)
	VMULPS(rz, v, v) // x·r, x the first operand (its NaN wins, as in the reference)
	VMULPS(Mem{Base: gamma, Index: i, Scale: 4}, v, v)
	VMOVUPS(v, Mem{Base: y, Index: i, Scale: 4})
	ADDQ(U32(16), i)
	CMPQ(i, n)
	JB(LabelRef("scale"))
	Label("done")
	VZEROUPPER()
	RET()
}

// kvcRopeLoop emits kv_rmsnorm_rope_cache's rotation of one token: the dk/2 interleaved pairs
// at r (dtype d) rotated by the dk values at cs and sn into de-interleaved krope,
// y_i = x_2i·c_i − x_2i+1·s_i, y_h+i = x_2i+1·c_h+i + x_2i·s_h+i (h = dk/2, a multiple of 32),
// each product rounded, then one rounding to d. 32 pairs a round.
func (g *generator) kvcRopeLoop(d dtype, c consts, r, cs, sn, krope, dk Register) {
	es := uint8(d.esize)
	rope := g.newLabel("rope")
	h := GP64()
	MOVQ(dk, h)
	SHRQ(U8(1), h)
	var hiMask, evenIdx, oddIdx VecVirtual
	if d == bf16 {
		hiMask = ZMM()
		VPBROADCASTD(g.data.hiMask, hiMask)
	} else {
		evenIdx, oddIdx = ZMM(), ZMM()
		VMOVDQU32(g.data.evenIdx, evenIdx)
		VMOVDQU32(g.data.oddIdx, oddIdx)
	}
	i, e := GP64(), GP64()
	XORQ(i, i)
	Label(rope)
	var y1, y2 [2]VecVirtual
	for blk := range 2 {
		// x1 = the pairs' first elements, x2 the second, of pairs i+16·blk ...: elements
		// 2i+32·blk ... of r.
		LEAQ(Mem{Base: i, Index: i, Scale: 1, Disp: 32 * blk}, e)
		x1, x2 := ZMM(), ZMM()
		if d == bf16 {
			// A bf16 pair is one dword: its first element the low half, the second the high.
			p := ZMM()
			VMOVDQU32(Mem{Base: r, Index: e, Scale: es}, p)
			VPSLLD(U8(16), p, x1)
			VPANDD(hiMask, p, x2)
		} else {
			a := load(d, 16, Mem{Base: r, Index: e, Scale: es})
			b := load(d, 16, Mem{Base: r, Index: e, Scale: es, Disp: 16 * d.esize})
			VMOVAPS(a, x1)
			VPERMT2PS(b, evenIdx, x1)
			VPERMT2PS(b, oddIdx, a)
			x2 = a
		}
		at := func(base Register, off Register, k int) Mem {
			return Mem{Base: base, Index: off, Scale: es, Disp: (16*blk + k) * d.esize}
		}
		c1, s1 := load(d, 16, at(cs, i, 0)), load(d, 16, at(sn, i, 0))
		p, q := ZMM(), ZMM()
		y1[blk], y2[blk] = ZMM(), ZMM()
		VMULPS(c1, x1, p)
		VMULPS(s1, x2, q)
		VSUBPS(q, p, y1[blk]) // x1·c − x2·s
		LEAQ(Mem{Base: i, Index: h, Scale: 1}, e)
		c2, s2 := load(d, 16, at(cs, e, 0)), load(d, 16, at(sn, e, 0))
		VMULPS(c2, x2, p)
		VMULPS(s2, x1, q)
		VADDPS(q, p, y2[blk]) // x2·c + x1·s
	}
	g.kvcStore32(d, c, y1, Mem{Base: krope, Index: i, Scale: es})
	LEAQ(Mem{Base: i, Index: h, Scale: 1}, e)
	g.kvcStore32(d, c, y2, Mem{Base: krope, Index: e, Scale: es})
	ADDQ(U32(32), i)
	CMPQ(i, h)
	JB(LabelRef(rope))
}

// kvcRopeConsts are kvcRopeBF16's constants: the dword mask of a pair's second element, the
// VPERMW indices that widen 16 of 32 loaded bf16 words (the first 16, or the last) to float32,
// and the mask that zeroes the low word of each dword.
type kvcRopeConsts struct {
	hiMask, lo, hi VecVirtual
	odd            Op
}

var kvcWidenIdx struct {
	declared bool
	lo, hi   Mem
}

// kvcRopeConstsBF16 loads kvcRopeBF16's constants.
func (g *generator) kvcRopeConstsBF16() kvcRopeConsts {
	if !kvcWidenIdx.declared {
		for h, m := range []*Mem{&kvcWidenIdx.lo, &kvcWidenIdx.hi} {
			*m = GLOBL([]string{"kvcwidenlo", "kvcwidenhi"}[h], RODATA|NOPTR)
			for i := range 16 {
				DATA(4*i, U16(0))
				DATA(4*i+2, U16(uint16(16*h+i)))
			}
		}
		kvcWidenIdx.declared = true
	}
	var rc kvcRopeConsts
	rc.hiMask, rc.lo, rc.hi = ZMM(), ZMM(), ZMM()
	VPBROADCASTD(g.data.hiMask, rc.hiMask)
	VMOVDQU16(kvcWidenIdx.lo, rc.lo)
	VMOVDQU16(kvcWidenIdx.hi, rc.hi)
	m := GP32()
	MOVL(U32(0xaaaaaaaa), m)
	k := K()
	KMOVD(m, k)
	rc.odd = k
	return rc
}

// kvcRopeBF16 is kvcRopeLoop for bf16 in the multi-token kernel: cos and sin load 32 values at a
// time and widen with one zero-masked VPERMW per 16 (each value to the high word of its dword)
// instead of a VPMOVZXWD and a shift.
func (g *generator) kvcRopeBF16(c consts, rc kvcRopeConsts, r, cs, sn, krope, dk Register) {
	rope := g.newLabel("rope")
	h := GP64()
	MOVQ(dk, h)
	SHRQ(U8(1), h)
	i, e := GP64(), GP64()
	XORQ(i, i)
	Label(rope)
	// The 32 cos and sin values of this round's pairs i..i+31, c1 and s1 from i, c2 and s2 from
	// h+i, each widened to two vectors of 16.
	LEAQ(Mem{Base: i, Index: h, Scale: 1}, e)
	var c1, s1, c2, s2 [2]VecVirtual
	for _, w := range []struct {
		dst  *[2]VecVirtual
		base Register
		off  Register
	}{{&c1, cs, i}, {&s1, sn, i}, {&c2, cs, e}, {&s2, sn, e}} {
		v := ZMM()
		VMOVDQU16(Mem{Base: w.base, Index: w.off, Scale: 2}, v)
		for blk, idx := range []VecVirtual{rc.lo, rc.hi} {
			w.dst[blk] = ZMM()
			VPERMW_Z(v, idx, rc.odd, w.dst[blk])
		}
	}
	var y1, y2 [2]VecVirtual
	for blk := range 2 {
		// x1 = the pairs' first elements, x2 the second, of pairs i+16·blk ...: elements
		// 2i+32·blk ... of r. A bf16 pair is one dword: its first element the low half.
		LEAQ(Mem{Base: i, Index: i, Scale: 1, Disp: 32 * blk}, e)
		p, x1, x2 := ZMM(), ZMM(), ZMM()
		VMOVDQU32(Mem{Base: r, Index: e, Scale: 2}, p)
		VPSLLD(U8(16), p, x1)
		VPANDD(rc.hiMask, p, x2)
		a, b := ZMM(), ZMM()
		y1[blk], y2[blk] = ZMM(), ZMM()
		VMULPS(c1[blk], x1, a)
		VMULPS(s1[blk], x2, b)
		VSUBPS(b, a, y1[blk]) // x1·c − x2·s
		VMULPS(c2[blk], x2, a)
		VMULPS(s2[blk], x1, b)
		VADDPS(b, a, y2[blk]) // x2·c + x1·s
	}
	g.kvcStore32(bf16, c, y1, Mem{Base: krope, Index: i, Scale: 2})
	LEAQ(Mem{Base: i, Index: h, Scale: 1}, e)
	g.kvcStore32(bf16, c, y2, Mem{Base: krope, Index: e, Scale: 2})
	ADDQ(U32(32), i)
	CMPQ(i, h)
	JB(LabelRef(rope))
}

// kvcStore32 rounds v[0] and v[1] (32 consecutive values) to d and stores them at m.
func (g *generator) kvcStore32(d dtype, c consts, v [2]VecVirtual, m Mem) {
	if d == bf16 {
		g.storeBF16Wide(c, v[0], v[1], m)
		return
	}
	g.store(d, 16, c, v[0], m)
	m.Disp += 16 * d.esize
	g.store(d, 16, c, v[1], m)
}

// kvcGroupKernel emits kvcGroup<D><ISA>(grp *byte, n int, gamma, scratch *float32, dv, dk int,
// eps float32): kv_rmsnorm_rope_cache for n (1..16) tokens of dtype d whose results go to
// contiguous rows, in the reference's arithmetic (backend/native): ckv[0:dv] = the RMSNorm of
// kv[0:dv] times gamma (kvcNormKernel's), krope[0:dk] = the rotation of kv's interleaved pairs
// from dv on, de-interleaved (kvcRopeLoop's), each product rounded, then one rounding to d.
// grp holds five arrays of 16 row addresses: kv, cos, sin, ckv (the normalized row's
// destination) and krope (the rotated one's), at byte offsets 0, 128, 256, 384 and 512. gamma is
// the widened gamma, in bf16 with each block of 32 deinterleaved (its 16 even elements, then its
// 16 odd ones), in element order otherwise. scratch holds 16 float32, 32 in bf16 (the flags
// after the scales, kvcFlags). bf16 on AVX512BF16, f32 and f16 on AVX-512; f32 takes at most 4
// tokens a call (package cpu's kvcGroupLen), so it has no eight-token loop.
//
// Two passes, as qkNormRoPEBF16Kernel's. The first computes each token's scale r (the long
// chains: the sum of squares, its lanes' sum, a square root and a division, independent from
// token to token): the sums eight tokens at a time (bf16 with VDPBF16PS, kvcSumsBF16), their
// lanes' trees together (kvcTreeBF16, kvcTreeF), then the scales of the eight in one vector, on
// the divider once instead of once per token. The rotation of each token's rope part, which
// does not depend on r, runs while they complete. The second pass normalizes and stores four
// tokens' dv values at a time, each block of gamma loaded once for the four and each block of
// kv once (loads bound the pass at one token a time). In bf16 a dword splits into its even
// element and its odd one, each multiplied by r and by gamma in that layout, and one
// VCVTNE2PS2BF16 plus one VPERMW puts 32 rounded values back in order; the instruction flushes
// subnormals, which rows the first pass vouched for cannot produce (kvcNorms4), while the others
// test their rounded words and take the integer rounding where one may have been flushed. f32
// and f16 keep the elements in order, and VCVTPS2PH rounds every value exactly.
func (g *generator) kvcGroupKernel(s isa, d dtype) {
	name := "kvcGroup" + d.name + s.name
	g.fastBF16 = s == avx512BF16
	es := uint8(d.esize)
	if d == bf16 {
		TEXT(name, NOSPLIT, "func(grp *byte, n int, gamma, scratch *float32, dv, dk int, eps, rMin float32)")
	} else {
		TEXT(name, NOSPLIT, "func(grp *byte, n int, gamma, scratch *float32, dv, dk int, eps float32)")
	}
	Pragma("noescape")
	layout := "gamma is deinterleaved per 32; rMin is kvcRMin of gamma; scratch holds 32 float32"
	if d != bf16 {
		layout = "gamma is in element order; scratch holds 16 float32"
	}
	Doc(name+" normalizes, rotates and stores n (1..16) "+d.name+" tokens of kv_rmsnorm_rope_cache (dv a multiple of 32, dk of 64):",
		"grp holds their kv, cos, sin, ckv and krope row addresses, 16 of each; "+layout+".")
	var outIdx, loIdx, hiIdx Mem
	if d == bf16 {
		outIdx = wordOrder("kvcoutidx", loadedLanes())
		var lo, hi [16]int // VPERMT2PS indices: e and o back in element order, elements 0..15, 16..31
		for j := range 8 {
			lo[2*j], lo[2*j+1] = j, 16+j
			hi[2*j], hi[2*j+1] = 8+j, 24+j
		}
		loIdx, hiIdx = dwordTable("kvcloidx", lo), dwordTable("kvchiidx", hi)
	}

	// Only grp stays in a register throughout: the other arguments are loaded where they are
	// used, which leaves the eight-token loop the registers it needs.
	grp := Load(Param("grp"), GP64())
	param := func(name string) GPVirtual { return Load(Param(name), GP64()).(GPVirtual) }
	eps := Load(Param("eps"), XMM())
	var c consts
	nF, oneD := g.rmsConsts(param("dv"))
	row := func(array int, t Register) Mem { return Mem{Base: grp, Index: t, Scale: 8, Disp: 128 * array} }

	// First pass: each token's scale r into scratch, eight tokens at a time (sixteen independent
	// FMA chains: one token's two would wait on the FMA latency, and four tokens' eight just
	// keep up with it; f32 has four tokens at most), then four, then the rest one by one.
	t, n4 := GP64(), GP64()
	XORQ(t, t)
	sums := g.kvcSums
	if d == bf16 {
		sums = g.kvcSumsBF16
	}
	if d != f32 {
		n8 := param("n")
		ANDQ(I8(-8), n8)
		JZ(LabelRef("sums4"))
		Label("sums8")
		sums(d, row, t, 8, "sum8", nF, oneD, eps)
		ADDQ(U8(8), t)
		CMPQ(t, n8)
		JB(LabelRef("sums8"))
	}
	Label("sums4")
	MOVQ(param("n"), n4)
	ANDQ(I8(-4), n4)
	CMPQ(t, n4)
	JAE(LabelRef("sums1"))
	sums(d, row, t, 4, "sum4", nF, oneD, eps)
	ADDQ(U8(4), t)
	Label("sums1")
	CMPQ(t, param("n"))
	JAE(LabelRef("ropes"))
	{
		kv := GP64()
		MOVQ(row(0, t), kv)
		sum := g.sumSquaresLoop(d, kv, param("dv"))
		VMOVSS(rmsScalar(sum, nF, oneD, eps), Mem{Base: param("scratch"), Index: t, Scale: 4})
	}
	INCQ(t)
	JMP(LabelRef("sums1"))

	// The rotation, which does not wait for the scales: their divisions and square roots
	// complete while it issues.
	Label("ropes")
	XORQ(t, t)
	var rc kvcRopeConsts
	if d == bf16 {
		rc = g.kvcRopeConstsBF16()
	}
	Label("rope1")
	{
		r, cs, sn, krope := GP64(), GP64(), GP64(), GP64()
		MOVQ(row(0, t), r)
		LEAQ(Mem{Base: r, Index: param("dv"), Scale: es}, r)
		MOVQ(row(1, t), cs)
		MOVQ(row(2, t), sn)
		MOVQ(row(4, t), krope)
		if d == bf16 {
			g.kvcRopeBF16(c, rc, r, cs, sn, krope, param("dk"))
		} else {
			g.kvcRopeLoop(d, c, r, cs, sn, krope, param("dk"))
		}
	}
	INCQ(t)
	CMPQ(t, param("n"))
	JB(LabelRef("rope1"))

	// Second pass: the norm's scaling and stores, four tokens at a time (each block of gamma
	// loaded once for the four), then the rest one by one. In bf16 a result that converts to a
	// zero or subnormal word may be one VCVTNE2PS2BF16 flushed: the rows' smallest doubled word
	// (sign shifted out) says whether any did, and such rows are redone with the integer
	// rounding (rows the first pass vouched for skip the test, kvcNorms4). Rows are addressed from their ends, j counting up from −dv to 0, which frees a
	// register.
	var n kvcNormConsts
	if d == bf16 {
		n.hiMask, n.perm, n.minNormal = ZMM(), ZMM(), ZMM()
		VPBROADCASTD(g.data.hiMask, n.hiMask)
		VMOVDQU16(outIdx, n.perm)
		VPBROADCASTD(g.data.minNormalW, n.minNormal)
		n.loIdx, n.hiIdx = loIdx, hiIdx
	}
	gEnd := GP64()
	LEAQ(Mem{Base: param("gamma"), Index: param("dv"), Scale: 4}, gEnd)
	XORQ(t, t)
	TESTQ(n4, n4)
	JZ(LabelRef("norms1"))
	Label("norms4")
	g.kvcNorms4(d, row, t, gEnd, n, c)
	ADDQ(U8(4), t)
	CMPQ(t, n4)
	JB(LabelRef("norms4"))
	Label("norms1")
	CMPQ(t, param("n"))
	JAE(LabelRef("normsdone"))
	{
		scratch, dv := param("scratch"), param("dv")
		kv, ckv, j := GP64(), GP64(), GP64()
		MOVQ(row(0, t), kv)
		MOVQ(row(3, t), ckv)
		LEAQ(Mem{Base: kv, Index: dv, Scale: es}, kv)
		LEAQ(Mem{Base: ckv, Index: dv, Scale: es}, ckv)
		rz, least := ZMM(), ZMM()
		VBROADCASTSS(Mem{Base: scratch, Index: t, Scale: 4}, rz)
		if d == bf16 {
			VPBROADCASTD(g.data.allOnes, least)
		}
		MOVQ(dv, j)
		NEGQ(j)
		Label("norm")
		if d == bf16 {
			e, o := kvcScaled(kv, j, rz, gEnd, n.hiMask, nil)
			g.kvcStoreNorm(e, o, n.perm, least, Mem{Base: ckv, Index: j, Scale: 2})
		} else {
			g.kvcNormBlock(d, c, kv, ckv, j, rz, gEnd, nil)
		}
		ADDQ(U32(32), j)
		JNZ(LabelRef("norm"))
		if d == bf16 {
			k := K()
			VPCMPUW(U8(1), n.minNormal, least, k) // less than
			KORTESTD(k, k)
			JNZ(LabelRef("normslow"))
			Label("normnext")

			g.coldPaths = append(g.coldPaths, func() {
				Label("normslow")
				kvcNormSlow(g.coldConsts(c), kv, ckv, j, rz, gEnd, n.hiMask, loIdx, hiIdx, "normslow1")
				JMP(LabelRef("normnext"))
			})
		}
	}
	INCQ(t)
	JMP(LabelRef("norms1"))
	Label("normsdone")
	g.retWithColdPaths()
}

// kvcNormConsts are the constants of kvcGroupKernel's second pass in bf16: the dword mask of a
// pair's second element, the VPERMW indices that put a VCVTNE2PS2BF16's words back in element
// order, the doubled-word bound below which a word is zero or subnormal, and the cold path's
// VPERMT2PS index tables.
type kvcNormConsts struct {
	hiMask, perm, minNormal VecVirtual
	loIdx, hiIdx            Mem
}

// kvcNormBlock emits one block of 32 of a row's norm in element order (f32, f16): kv's elements
// j..j+31 times rz, times gamma's block (gv when not nil, loaded once for several rows, else from
// gamma), rounded to d and stored at ckv's. kv, ckv and gamma point at the rows' ends.
func (g *generator) kvcNormBlock(d dtype, c consts, kv, ckv, j Register, rz VecVirtual, gamma Register, gv *[2]VecVirtual) {
	es := uint8(d.esize)
	var v [2]VecVirtual
	for h := range v {
		v[h] = load(d, 16, Mem{Base: kv, Index: j, Scale: es, Disp: 16 * h * d.esize})
		VMULPS(rz, v[h], v[h]) // x·r, x first (its NaN wins, as in the reference)
		if gv != nil {
			VMULPS(gv[h], v[h], v[h])
		} else {
			VMULPS(Mem{Base: gamma, Index: j, Scale: 4, Disp: 64 * h}, v[h], v[h])
		}
	}
	g.kvcStore32(d, c, v, Mem{Base: ckv, Index: j, Scale: es})
}

// kvcScaled emits one block of 32 of a row's norm: the dword-split bf16 elements j..j+31 from kv,
// times rz, times gamma (deinterleaved) as e (the even elements) and o (the odd ones); gv, when
// not nil, holds gamma's block, loaded once for several rows.
func kvcScaled(kv, j Register, rz VecVirtual, gamma Register, hiMask VecVirtual, gv *[2]VecVirtual) (e, o VecVirtual) {
	e, o = ZMM(), ZMM()
	p := ZMM()
	VMOVDQU32(Mem{Base: kv, Index: j, Scale: 2}, p)
	VPSLLD(U8(16), p, e)
	VPANDD(p, hiMask, o)
	VMULPS(rz, e, e) // x·r, x first (its NaN wins, as in the reference)
	VMULPS(rz, o, o)
	if gv != nil {
		VMULPS(gv[0], e, e)
		VMULPS(gv[1], o, o)
	} else {
		VMULPS(Mem{Base: gamma, Index: j, Scale: 4}, e, e)
		VMULPS(Mem{Base: gamma, Index: j, Scale: 4, Disp: 64}, o, o)
	}
	return e, o
}

// kvcStoreNorm rounds e and o (kvcScaled's) with one VCVTNE2PS2BF16, puts the 32 words back in
// element order and stores them at out, folding each word doubled (its sign shifted out) into
// least's minimum unless least is nil.
func (g *generator) kvcStoreNorm(e, o, perm, least VecVirtual, out Mem) {
	w := ZMM()
	cvtNE2PS2BF16(o, e, w)
	if least != nil {
		d := ZMM()
		VPADDW(w, w, d)
		VPMINUW(d, least, least)
	}
	VPERMW(w, perm, w)
	VMOVDQU16(w, out)
}

// kvcNormSlow emits the cold path of a row the fast norm may have flushed: each block of 32
// again, and where one of its float32 results is subnormal (the only values VCVTNE2PS2BF16
// rounds otherwise than the reference, flushing them), the block again with the integer
// rounding, back in element order. The fast path's test cannot tell an exact zero from a
// flushed subnormal, and exact zeros are common (a zero in gamma puts one in every row). kv,
// ckv and gamma point at the rows' ends (as the fast loops address them); label names the loop.
func kvcNormSlow(cc consts, kv, ckv, j Register, rz VecVirtual, gamma Register, hiMask VecVirtual, loIdx, hiIdx Mem, label string) {
	dv := Load(Param("dv"), GP64())
	MOVQ(dv, j)
	NEGQ(j)
	Label(label)
	e, o := kvcScaled(kv, j, rz, gamma, hiMask, nil)
	k1, k2 := K(), K()
	subnormals(e, k1)
	subnormals(o, k2)
	KORTESTW(k1, k2)
	JZ(LabelRef(label + "next"))
	for h, idx := range []Mem{loIdx, hiIdx} {
		ix, v := ZMM(), ZMM()
		VMOVDQU32(idx, ix)
		VMOVAPS(e, v)
		VPERMT2PS(o, ix, v)
		storeBF16Int(16, cc, v, Mem{Base: ckv, Index: j, Scale: 2, Disp: 32 * h})
	}
	Label(label + "next")
	ADDQ(U32(32), j)
	JNZ(LabelRef(label))
}

// kvcNorms4 emits the second pass of kvcGroupKernel for tokens t..t+3: each block of 32 of
// gamma loaded once and applied to the four rows, each row's scale r from scratch. gEnd points at
// gamma's end; n holds bf16's constants.
func (g *generator) kvcNorms4(d dtype, row func(int, Register) Mem, t, gEnd Register, n kvcNormConsts, c consts) {
	es := uint8(d.esize)
	var kv, ckv [4]GPVirtual
	var rz, least [4]VecVirtual
	{
		scratch, dv := Load(Param("scratch"), GP64()), Load(Param("dv"), GP64())
		for i := range kv {
			kv[i], ckv[i] = GP64(), GP64()
			m := row(0, t)
			m.Disp += 8 * i
			MOVQ(m, kv[i])
			LEAQ(Mem{Base: kv[i], Index: dv, Scale: es}, kv[i])
			m = row(3, t)
			m.Disp += 8 * i
			MOVQ(m, ckv[i])
			LEAQ(Mem{Base: ckv[i], Index: dv, Scale: es}, ckv[i])
			rz[i] = ZMM()
			VBROADCASTSS(Mem{Base: scratch, Index: t, Scale: 4, Disp: 4 * i}, rz[i])
		}
		j := GP64()
		MOVQ(dv, j)
		NEGQ(j)
		if d != bf16 {
			g.kvcNorms4Loop(d, kv, ckv, rz, least, j, gEnd, n, c, "norm4")
			return
		}
		// The four rows need no test of their results when the first pass vouched for their
		// elements (kvcSumsBF16: each at least 2^-63 in magnitude) and each scale is at least
		// rMin: then every result is ±0 (a zero in gamma), not finite, or at least about 2^-125
		// in magnitude (kvcRMin), all of which VCVTNE2PS2BF16 rounds as the reference does.
		r4, lim := XMM(), XMM()
		VMOVUPS(Mem{Base: scratch, Index: t, Scale: 4}, r4)
		VBROADCASTSS(Load(Param("rMin"), XMM()), lim)
		VCMPPS(U8(0x19), lim, r4, r4) // NGE_UQ: less than rMin, or NaN
		VORPS(Mem{Base: scratch, Index: t, Scale: 4, Disp: 4 * kvcFlags}, r4, r4)
		VPTEST(r4, r4)
		JNZ(LabelRef("norm4careful"))
		g.kvcNorms4Loop(d, kv, ckv, rz, least, j, gEnd, n, c, "norm4fast")
		JMP(LabelRef("norm4next"))
		Label("norm4careful")
		for i := range least {
			least[i] = ZMM()
			VPBROADCASTD(g.data.allOnes, least[i])
		}
		g.kvcNorms4Loop(d, kv, ckv, rz, least, j, gEnd, n, c, "norm4")
	}
	VPMINUW(least[1], least[0], least[0])
	VPMINUW(least[3], least[2], least[2])
	VPMINUW(least[2], least[0], least[0])
	k := K()
	VPCMPUW(U8(1), n.minNormal, least[0], k) // less than
	KORTESTD(k, k)
	JNZ(LabelRef("norm4slow"))
	Label("norm4next")
	g.coldPaths = append(g.coldPaths, func() {
		// One of the four rows (at least) has a zero or subnormal: all four again.
		Label("norm4slow")
		cc := g.coldConsts(c)
		j := GP64()
		for i := range kv {
			kvcNormSlow(cc, kv[i], ckv[i], j, rz[i], gEnd, n.hiMask, n.loIdx, n.hiIdx, fmt.Sprintf("norm4slow%d", i))
		}
		JMP(LabelRef("norm4next"))
	})
}

// kvcNorms4Loop is kvcNorms4's loop over the rows' blocks of 32, j from −dv up to 0; in bf16,
// least holds the rows' running minima of their doubled words, or nils for rows that need no
// test. label names the loop.
func (g *generator) kvcNorms4Loop(d dtype, kv, ckv [4]GPVirtual, rz, least [4]VecVirtual, j, gEnd Register, n kvcNormConsts, c consts, label string) {
	Label(label)
	var gv [2]VecVirtual
	gv[0], gv[1] = ZMM(), ZMM()
	VMOVUPS(Mem{Base: gEnd, Index: j, Scale: 4}, gv[0])
	VMOVUPS(Mem{Base: gEnd, Index: j, Scale: 4, Disp: 64}, gv[1])
	for i := range kv {
		if d != bf16 {
			g.kvcNormBlock(d, c, kv[i], ckv[i], j, rz[i], gEnd, &gv)
			continue
		}
		e, o := kvcScaled(kv[i], j, rz[i], gEnd, n.hiMask, &gv)
		g.kvcStoreNorm(e, o, n.perm, least[i], Mem{Base: ckv[i], Index: j, Scale: 2})
	}
	ADDQ(U32(32), j)
	JNZ(LabelRef(label))
}

// kvcSums emits the first pass of kvcGroupKernel in f32 and f16 for the k (4 or 8) tokens from
// t: each one's sum of squares (native.SumSquares) into scratch, elements j..j+31 in lanes
// 0..31 of two accumulators, then their scales (kvcTreeF, kvcScalesVec). Rows are addressed
// from their ends, j counting up from −dv to 0, which frees a register. label names the loop.
func (g *generator) kvcSums(d dtype, row func(int, Register) Mem, t Register, k int, label string, nF, oneD, eps Register) {
	es := uint8(d.esize)
	kv, lo, hi, j := kvcSumRows(d, row, t, k)
	// In f32 (four tokens a call, kvcGroupLen) the loop also asks for the lines of the rows the
	// second pass writes, one PREFETCHT1 per 128 bytes (the L2 fetches the line pair): streamed
	// from memory, their write-allocate reads would otherwise begin only at its stores, after
	// the loads of these rows have completed instead of beside them.
	var ckv []GPVirtual
	if d == f32 && k == 4 {
		dv := Load(Param("dv"), GP64())
		ckv = make([]GPVirtual, k)
		for i := range ckv {
			ckv[i] = GP64()
			m := row(3, t)
			m.Disp += 8 * i
			MOVQ(m, ckv[i])
			LEAQ(Mem{Base: ckv[i], Index: dv, Scale: es}, ckv[i])
		}
	}
	Label(label)
	for i := range kv {
		accSquares(load(d, 16, Mem{Base: kv[i], Index: j, Scale: es}), lo[i])
		accSquares(load(d, 16, Mem{Base: kv[i], Index: j, Scale: es, Disp: 16 * d.esize}), hi[i])
		if ckv != nil {
			PREFETCHT1(Mem{Base: ckv[i], Index: j, Scale: es})
		}
	}
	ADDQ(U32(32), j)
	JNZ(LabelRef(label))
	kvcScalesVec(g.kvcTreeF(lo, hi), nF, oneD, eps, Mem{Base: Load(Param("scratch"), GP64()), Index: t, Scale: 4})
}

// kvcSumRows begins the first pass for the k tokens from t: their kv rows' ends (dtype d), two
// zeroed accumulators each, and j = −dv, which counts up to 0 over the rows.
func kvcSumRows(d dtype, row func(int, Register) Mem, t Register, k int) (kv []GPVirtual, lo, hi []VecVirtual, j GPVirtual) {
	dv := Load(Param("dv"), GP64())
	kv = make([]GPVirtual, k)
	lo, hi = make([]VecVirtual, k), make([]VecVirtual, k)
	for i := range kv {
		kv[i] = GP64()
		m := row(0, t)
		m.Disp += 8 * i
		MOVQ(m, kv[i])
		LEAQ(Mem{Base: kv[i], Index: dv, Scale: uint8(d.esize)}, kv[i])
		lo[i], hi[i] = ZMM(), ZMM()
		VXORPS(lo[i], lo[i], lo[i])
		VXORPS(hi[i], hi[i], hi[i])
	}
	j = GP64()
	MOVQ(dv, j)
	NEGQ(j)
	return kv, lo, hi, j
}

// kvcTreeF is kvcTreeBF16 for accumulators in element order (f32, f16): lo[i] holds token i's
// lanes 0..15, hi[i] 16..31. The first step leaves T_2m, T_2m+1, T_8+2m, T_9+2m in 128-bit lane
// m; pairs of tokens then add neighbouring lanes (U), twice pairs of 128-bit lanes (V, W), and
// the last step the neighbours again, whose sums a VPERMPS pair gathers in token order.
func (g *generator) kvcTreeF(lo, hi []VecVirtual) VecVirtual {
	k := len(lo)
	v := make([]VecVirtual, k)
	for i := range v {
		v[i] = addNeighbours(lo[i], hi[i]) // T
	}
	u := make([]VecVirtual, k/2)
	for i := range u {
		u[i] = addNeighbours(v[2*i], v[2*i+1]) // tokens 2i, 2i+1: U_m, U_4+m of each in 128-bit lane m
	}
	w := make([]VecVirtual, k/4)
	for i := range w {
		// V: tokens 4i, 4i+1 in 128-bit lanes 0 (V_0, V_2) and 1 (V_1, V_3), 4i+2 and 4i+3 in 2
		// and 3.
		w[i] = addNeighbourLanes(u[2*i], u[2*i+1])
	}
	// W: each pair of tokens' W_0, W_1 in a 128-bit lane, in token order.
	x := addNeighbourLanes(w[0], w[len(w)-1])
	ie, io, e, o := ZMM(), ZMM(), ZMM(), ZMM()
	VMOVDQU32(g.data.evenIdx, ie)
	VMOVDQU32(g.data.oddIdx, io)
	VPERMPS(x, ie, e)
	VPERMPS(x, io, o)
	if k == 4 {
		sum := XMM()
		VADDPS(o.AsX(), e.AsX(), sum)
		return sum
	}
	sum := YMM()
	VADDPS(o.AsY(), e.AsY(), sum)
	return sum
}

// kvcFlags is where kvcGroupKernel's bf16 scratch holds its per-token flags, in float32 units
// from the start (the scales take the first kvcGroupSize, 16 in package cpu).
const kvcFlags = 16

// kvcSumsBF16 is kvcSums for bf16 on AVX512BF16: VDPBF16PS adds two squares to a lane in one
// instruction, without widening. Lane l of native.SumSquares takes elements l, l+32, l+64, ...,
// so each 64 elements a and b (a the first 32) go in as the dwords (a_i, b_i), a_i in the high
// word, which VDPBF16PS takes first: one VPUNPCKLWD and one VPUNPCKHWD, within 128-bit lanes,
// hold lanes 8k..8k+3 and 8k+4..8k+7 of the 32 sums (k = 0..3). The instruction's two steps
// round as FMA32 does, but it takes subnormal inputs, subnormal sums and subnormal results as
// zero, and of several NaNs keeps another than FMA32. Neither matters when every element is at
// least 2^-63 in magnitude (every square, so every sum, normal or not finite) and the sum is not
// NaN: the first is tested (VPTESTMW of each word's exponent bits 6 and 7; zeros fail it too),
// and when a token fails either, the eight (four) get their sums again with sumSquaresLoop's
// FMAs on a cold path, and a flag that sends their rows to the tested norm.
// The sums' pairwise tree (kvcTreeBF16) then adds up the k tokens' lanes together.
func (g *generator) kvcSumsBF16(_ dtype, row func(int, Register) Mem, t Register, k int, label string, nF, oneD, eps Register) {
	big, zero := ZMM(), ZMM()
	VPBROADCASTD(g.data.bigExpW, big)
	VXORPS(zero, zero, zero)
	ok := make([]Op, k/2) // per pair of tokens: every word so far at least 2^-63
	for i := range ok {
		ok[i] = K()
		KXNORD(ok[i], ok[i], ok[i])
	}
	kv, lo, hi, j := kvcSumRows(bf16, row, t, k)
	step := func(tail bool) {
		for i := range kv {
			a, b := ZMM(), zero // the last 32 alone: low words of +0, which change no sum
			VMOVDQU16(Mem{Base: kv[i], Index: j, Scale: 2}, a)
			if !tail {
				b = ZMM()
				VMOVDQU16(Mem{Base: kv[i], Index: j, Scale: 2, Disp: 64}, b)
			}
			l, h := ZMM(), ZMM()
			VPUNPCKLWD(a, b, l) // dwords (b_i, a_i): a_i in the high word
			VPUNPCKHWD(a, b, h)
			dpBF16PS(l, l, lo[i])
			dpBF16PS(h, h, hi[i])
			VPTESTMW(big, a, ok[i/2], ok[i/2])
			if !tail {
				VPTESTMW(big, b, ok[i/2], ok[i/2])
			}
		}
	}
	tail, done := label+"tail", label+"done"
	CMPQ(j, I8(-64))
	JG(LabelRef(tail))
	Label(label)
	step(false)
	ADDQ(U8(64), j)
	CMPQ(j, I8(-64))
	JLE(LabelRef(label))
	Label(tail)
	TESTQ(j, j)
	JZ(LabelRef(done))
	step(true)
	Label(done)

	sums := kvcTreeBF16(lo, hi)
	scratch := Load(Param("scratch"), GP64())
	kvcScalesVec(sums, nF, oneD, eps, Mem{Base: scratch, Index: t, Scale: 4})
	flagsAt := Mem{Base: scratch, Index: t, Scale: 4, Disp: 4 * kvcFlags}
	if k == 8 {
		VMOVDQU32(zero.AsY(), flagsAt)
	} else {
		VMOVDQU32(zero.AsX(), flagsAt)
	}
	for i := 1; i < len(ok); i++ {
		KANDD(ok[i], ok[0], ok[0])
	}
	nan := K()
	VCMPPS(U8(3), sums, sums, nan) // unordered: a NaN sum
	cold, back := label+"cold", label+"back"
	KORTESTD(ok[0], ok[0])
	JCC(LabelRef(cold)) // carry clear: a word below 2^-63 (or zero)
	KORTESTB(nan, nan)
	JNZ(LabelRef(cold))
	Label(back)
	g.coldPaths = append(g.coldPaths, func() {
		Label(cold)
		u, end := GP64(), GP64()
		MOVQ(t, u)
		LEAQ(Mem{Base: t, Disp: k}, end)
		Label(label + "exact")
		kvr := GP64()
		MOVQ(row(0, u), kvr)
		sum := g.sumSquaresLoop(bf16, kvr, Load(Param("dv"), GP64()))
		sc := Load(Param("scratch"), GP64())
		VMOVSS(rmsScalar(sum, nF, oneD, eps), Mem{Base: sc, Index: u, Scale: 4})
		MOVL(U32(0xffffffff), Mem{Base: sc, Index: u, Scale: 4, Disp: 4 * kvcFlags})
		INCQ(u)
		CMPQ(u, end)
		JB(LabelRef(label + "exact"))
		JMP(LabelRef(back))
	})
}

// kvcTreeBF16 adds up native.SumSquares' lanes for k (4 or 8) tokens together and returns the
// k sums in order (a ymm for 8, an xmm for 4), from kvcSumsBF16's accumulators: lo[i] holds token
// i's lanes 8m..8m+3 and hi[i] its lanes 8m+4..8m+7 in 128-bit lane m. Each step adds the
// reference's pairs, the lower lane of a pair the first operand (its NaN wins, as in
// s_i += s_{i+w}): the 32 lanes to the 16 sums T in order (one VSHUFPS pair and VADDPS per
// token); then, two tokens' vectors at a time, the next level of both (U, V: the pairs sit in
// neighbouring lanes of each 128-bit lane, again a VSHUFPS pair); W and the total pair the
// 128-bit lanes (VSHUFF32X4). A token's tree of one add per level would take nine instructions
// in a chain; this takes about six per token, none of them waiting long.
func kvcTreeBF16(lo, hi []VecVirtual) VecVirtual {
	k := len(lo)
	v := make([]VecVirtual, k)
	for i := range v {
		v[i] = addNeighbours(lo[i], hi[i]) // T_4m..T_4m+3 in 128-bit lane m: T_n in lane n
	}
	for len(v) > k/4 {
		// U: tokens i and i+1's U_2m, U_2m+1 in 128-bit lane m; then V: four tokens' V_m in
		// 128-bit lane m.
		next := make([]VecVirtual, len(v)/2)
		for i := range next {
			next[i] = addNeighbours(v[2*i], v[2*i+1])
		}
		v = next
	}
	// W: 128-bit lanes 2m and 2m+1 (V_2m, V_2m+1) pair up; with eight tokens, tokens 0..3's W_0 in
	// lane 0, W_1 in lane 1, tokens 4..7's in lanes 2 and 3.
	e := addNeighbourLanes(v[0], v[len(v)-1])
	if k == 4 {
		w1, sum := XMM(), XMM()
		VEXTRACTF32X4(U8(1), e, w1)
		VADDPS(w1, e.AsX(), sum)
		return sum
	}
	w := addNeighbourLanes(e, e)
	return w.AsY().(VecVirtual)
}

// addNeighbours adds the neighbouring lanes 2m, 2m+1 of x and of y (each 128-bit lane: x's two
// sums, then y's), the lower lane the first operand.
func addNeighbours(x, y VecVirtual) VecVirtual { return addPairs(VSHUFPS, x, y) }

// addNeighbourLanes adds the 128-bit lanes 2m and 2m+1 of x (the result's lanes 0 and 1) and of y
// (lanes 2 and 3), the lower lane the first operand.
func addNeighbourLanes(x, y VecVirtual) VecVirtual { return addPairs(VSHUFF32X4, x, y) }

// addPairs adds the even and the odd elements (lanes or 128-bit lanes) of x and y that the
// shuffle's selectors 0x88 and 0xdd gather.
func addPairs(shuffle func(...Op), x, y VecVirtual) VecVirtual {
	e, o := ZMM(), ZMM()
	shuffle(U8(0x88), y, x, e)
	shuffle(U8(0xdd), y, x, o)
	VADDPS(o, e, e)
	return e
}

// kvcScalesVec stores native.RMSNormScale of the 8 (a ymm) or 4 (an xmm) sums of squares in v
// to m, rmsScalar's arithmetic lane by lane (nF = float32(n), oneD = 1.0 in the low lanes):
// one division, square root and division for the tokens instead of one each, whose latencies
// would add up on the divider. The sums arrive in one register from the tokens' common tree
// (kvcTreeBF16, kvcTreeF), not gathered through memory, where one wide load of narrow stores
// would wait for them to reach the cache.
func kvcScalesVec(v VecVirtual, nF, oneD, eps Register, m Mem) {
	if v.Size() == 32 {
		nz, ez, oz, d := YMM(), YMM(), ZMM(), ZMM()
		VBROADCASTSS(nF, nz)
		VBROADCASTSS(eps, ez)
		VBROADCASTSD(oneD, oz)
		VDIVPS(nz, v, v) // sum/n
		VADDPS(ez, v, v) // + ε, the mean first
		VCVTPS2PD(v, d)
		VSQRTPD(d, d)
		VDIVPD(d, oz, d) // 1/√
		VCVTPD2PS(d, v)
		VMOVUPS(v, m)
		return
	}
	nz, ez, oz, d := XMM(), XMM(), YMM(), YMM()
	VBROADCASTSS(nF, nz)
	VBROADCASTSS(eps, ez)
	VBROADCASTSD(oneD, oz)
	VDIVPS(nz, v, v)
	VADDPS(ez, v, v)
	VCVTPS2PD(v, d)
	VSQRTPD(d, d)
	VDIVPD(d, oz, d)
	VCVTPD2PSY(d, v)
	VMOVUPS(v, m)
}

// kvcGammaSplitKernel emits kvcGammaSplitBF16(dst *float32, src *uint16, n int) uint16: n bf16
// values (n a multiple of 32) widened to float32 in kvcGroupKernel's bf16 gamma layout, each
// block of 32 as its 16 even elements, then its 16 odd ones: the layout its loads split rows
// into. It returns the least of the values' magnitudes (the words without their sign) less one,
// in 16 bits: 0xffff when every value is ±0, and NaNs above every number.
func (g *generator) kvcGammaSplitKernel() {
	const name = "kvcGammaSplitBF16"
	g.fastBF16 = false // no bf16 stores; plain AVX-512 runs it too
	TEXT(name, NOSPLIT, "func(dst *float32, src *uint16, n int) uint16")
	Pragma("noescape")
	Doc(name+" widens n bf16 values (a multiple of 32) to float32, each block of 32 as its 16 even elements, then its 16 odd ones,",
		"and returns their least magnitude less one (0xffff when all are zero).")
	dst := Load(Param("dst"), GP64())
	src := Load(Param("src"), GP64())
	n := Load(Param("n"), GP64())
	hiMask, absW, ones, least := ZMM(), ZMM(), ZMM(), ZMM()
	VPBROADCASTD(g.data.hiMask, hiMask)
	VPBROADCASTD(g.data.absMaskW, absW)
	VPBROADCASTD(g.data.allOnes, ones)
	VMOVDQA64(ones, least)
	j := GP64()
	XORQ(j, j)
	TESTQ(n, n)
	JZ(LabelRef("done"))
	Label("split")
	e, o, m := ZMM(), ZMM(), ZMM()
	w := Mem{Base: src, Index: j, Scale: 2}
	VPSLLD(U8(16), w, e)
	VPANDD(w, hiMask, o)
	VMOVUPS(e, Mem{Base: dst, Index: j, Scale: 4})
	VMOVUPS(o, Mem{Base: dst, Index: j, Scale: 4, Disp: 64})
	VPANDD(w, absW, m)
	VPADDW(ones, m, m) // −1: a zero wraps to 0xffff, above every magnitude
	VPMINUW(m, least, least)
	ADDQ(U32(32), j)
	CMPQ(j, n)
	JB(LabelRef("split"))
	Label("done")
	h := YMM()
	VEXTRACTI64X4(U8(1), least, h)
	VPMINUW(h, least.AsY(), h)
	x := XMM()
	VEXTRACTI128(U8(1), h, x)
	VPMINUW(x, h.AsX(), x)
	VPHMINPOSUW(x, x)
	r := GP32()
	VMOVD(x, r)
	Store(r.As16(), ReturnIndex(0))
	g.retWithColdPaths()
}
