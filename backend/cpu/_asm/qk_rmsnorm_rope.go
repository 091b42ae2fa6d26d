package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// qkNormKernel emits qkNorm<D><ISA>(x *byte, heads, stride int, w *float32, n int, eps float32):
// qk_rmsnorm_rope's norm, in place, for `heads` heads of n elements (n a multiple of 16), stride
// bytes apart, with the reference's arithmetic (ops.QKRMSNormRoPEArgs):
//
//	sum = native.SumSquares(x)  (float32, 32 lanes: sumSquaresLoop)
//	r   = native.RMSNormScale(sum, n, eps)
//	x_j = dtype(w_j · dtype(x_j · r))
func (g *generator) qkNormKernel(s isa, d dtype) {
	name := fmt.Sprintf("qkNorm%s%s", d.name, s.name)
	g.fastBF16 = s == avx512BF16
	TEXT(name, NOSPLIT, "func(x *byte, heads, stride int, w *float32, n int, eps float32)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s RMS-normalizes `heads` %s heads of n (a multiple of 16) elements in place, as qk_rmsnorm_rope does.", name, d.name))
	x := Load(Param("x"), GP64())
	heads := Load(Param("heads"), GP64())
	stride := Load(Param("stride"), GP64())
	w := Load(Param("w"), GP64())
	n := Load(Param("n"), GP64())
	eps := Load(Param("eps"), XMM())
	TESTQ(n, n)
	JZ(LabelRef("done"))
	TESTQ(heads, heads)
	JZ(LabelRef("done"))
	c := g.loadConsts(d, false, 16)
	var hiMask, quiet32 VecVirtual
	if d == bf16 {
		hiMask, quiet32 = ZMM(), ZMM()
		VPBROADCASTD(g.data.hiMask, hiMask)
		VPBROADCASTD(g.data.quiet32, quiet32)
	}
	nF, oneD := g.rmsConsts(n)
	Label("head")
	sum := g.sumSquaresLoop(d, x, n)
	rz := rmsScale(sum, nF, oneD, eps)
	i := GP64()
	XORQ(i, i)
	Label("scale")
	{
		m := Mem{Base: x, Index: i, Scale: uint8(d.esize)}
		v := load(d, 16, m)
		VMULPS(rz, v, v) // h = x·r
		switch d {
		case bf16:
			v = roundBF16(c, hiMask, quiet32, v)
		case f16:
			h := YMM()
			VCVTPS2PH(U8(0), v, h)
			VCVTPH2PS(h, v)
		}
		VMULPS(Mem{Base: w, Index: i, Scale: 4}, v, v) // y = w·h
		g.store(d, 16, c, v, m)
	}
	ADDQ(U32(16), i)
	CMPQ(i, n)
	JB(LabelRef("scale"))
	ADDQ(stride, x)
	DECQ(heads)
	JNZ(LabelRef("head"))
	Label("done")
	g.retWithColdPaths()
}

// roundBF16 returns v rounded to bf16 (nearest even) as float32, exactly as
// tensor.ToFloat32(BF16, tensor.BF16FromFloat32(v)): integer rounding of the low half, and NaN
// lanes become their quieted truncation.
func roundBF16(c consts, hiMask, quiet32, v VecVirtual) VecVirtual {
	t, out := ZMM(), ZMM()
	VPSRLD(U8(16), v, t)
	VPANDD(c.one, t, t)
	VPADDD(v, t, t)
	VPADDD(c.bias, t, t)
	VPANDD(hiMask, t, out)
	k := K()
	VCMPPS(U8(3), v, v, k) // unordered: NaN
	u := ZMM()
	VPANDD(hiMask, v, u)
	VPORD(quiet32, u, k, out)
	return out
}

// qkNormRoPEKernel emits qkNormRoPENeoX128<D><ISA>(x *byte, heads, stride int, w, cos,
// sin *float32, eps float32): qk_rmsnorm_rope whole, for heads of 128 elements rotated full
// width NeoX style (Qwen3's shape), f32 and f16 (bf16 has its own, qkNormRoPEBF16Kernel). Each
// head stays in registers from its load to its store: the sum of squares as in qkNormKernel,
// the two intermediate roundings (f16: VCVTPS2PH and back), then the rotation by the token's
// cos/sin and one rounding store.
func (g *generator) qkNormRoPEKernel(s isa, d dtype) {
	name := fmt.Sprintf("qkNormRoPENeoX128%s%s", d.name, s.name)
	g.fastBF16 = s == avx512BF16
	TEXT(name, NOSPLIT, "func(x *byte, heads, stride int, w, cos, sin *float32, eps float32)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s normalizes and rotates `heads` %s heads of 128 elements in place, as qk_rmsnorm_rope does for a full-width NeoX rotation.", name, d.name))
	x := Load(Param("x"), GP64())
	heads := Load(Param("heads"), GP64())
	stride := Load(Param("stride"), GP64())
	w := Load(Param("w"), GP64())
	cs := Load(Param("cos"), GP64())
	sn := Load(Param("sin"), GP64())
	eps := Load(Param("eps"), XMM())
	TESTQ(heads, heads)
	JZ(LabelRef("done"))
	var c consts // f32 and f16 stores need no constants
	tmp := GP64()
	MOVQ(U32(128), tmp)
	nF, oneD := g.rmsConsts(tmp)
	// Two heads at a time: one head's work is a single dependency chain (sum, scale, the
	// roundings, the rotation) longer than the out-of-order window reaches past, so two
	// interleaved chains run at twice the rate. An odd last head goes alone.
	CMPQ(heads, U8(2))
	JB(LabelRef("one"))
	Label("two")
	g.qkNormRoPEHeads(d, c, x, stride, w, cs, sn, nF, oneD, eps, 2)
	LEAQ(Mem{Base: x, Index: stride, Scale: 2}, x)
	SUBQ(U8(2), heads)
	CMPQ(heads, U8(2))
	JAE(LabelRef("two"))
	Label("one")
	TESTQ(heads, heads)
	JZ(LabelRef("done"))
	g.qkNormRoPEHeads(d, c, x, stride, w, cs, sn, nF, oneD, eps, 1)
	Label("done")
	g.retWithColdPaths()
}

// qkNormRoPEHeads emits the fused kernel's work on nh heads at x, x+stride, ...
func (g *generator) qkNormRoPEHeads(d dtype, c consts, x, stride, w, cs, sn, nF, oneD, eps Register, nh int) {
	base := make([]Register, nh)
	base[0] = x
	for h := 1; h < nh; h++ {
		base[h] = GP64()
		LEAQ(Mem{Base: base[h-1], Index: stride, Scale: 1}, base[h])
	}
	y := make([][8]VecVirtual, nh)
	acc := make([][2]VecVirtual, nh)
	for h := range nh {
		for a := range acc[h] {
			acc[h][a] = ZMM()
			VXORPS(acc[h][a], acc[h][a], acc[h][a])
		}
	}
	for k := range 8 {
		for h := range nh {
			y[h][k] = load(d, 16, Mem{Base: base[h], Disp: 16 * d.esize * k})
			accSquares(y[h][k], acc[h][k%2])
		}
	}
	rz := make([]VecVirtual, nh)
	for h := range nh {
		rz[h] = rmsScale(sumLanes(acc[h][0], acc[h][1]), nF, oneD, eps)
	}
	for k := 0; k < 8; k += 2 {
		for h := range nh {
			a, b := y[h][k], y[h][k+1]
			VMULPS(rz[h], a, a)
			VMULPS(rz[h], b, b)
			roundPair(d, a, b)
		}
		for h := range nh {
			a, b := y[h][k], y[h][k+1]
			VMULPS(Mem{Base: w, Disp: 64 * k}, a, a)
			VMULPS(Mem{Base: w, Disp: 64 * (k + 1)}, b, b)
			roundPair(d, a, b)
		}
	}
	// Pairs (i, i+64): y[k] with y[k+4]; o1 = a·c − b·s into y[k], o2 = b·c + a·s into y[k+4].
	for h := range nh {
		p, q := ZMM(), ZMM()
		for k := range 4 {
			a, b := y[h][k], y[h][k+4]
			cm, sm := Mem{Base: cs, Disp: 64 * k}, Mem{Base: sn, Disp: 64 * k}
			VMULPS(cm, a, p)
			VMULPS(sm, b, q)
			VSUBPS(q, p, p)
			VMULPS(cm, b, b)
			VMULPS(sm, a, q)
			VADDPS(q, b, b)
			VMOVAPS(p, a)
		}
		for k := range 8 {
			g.store(d, 16, c, y[h][k], Mem{Base: base[h], Disp: 16 * d.esize * k})
		}
	}
}

// roundPair rounds a and b (16 float32 each) to d and back in place (f32: nothing to do).
func roundPair(d dtype, a, b VecVirtual) {
	if d != f16 {
		return
	}
	for _, v := range []VecVirtual{a, b} {
		h := YMM()
		VCVTPS2PH(U8(0), v, h)
		VCVTPH2PS(h, v)
	}
}

// The layouts of qkNormRoPEBF16Kernel after its roundings: l0 as loaded (loadedLanes), l1 after
// x·r is rounded (the weight is multiplied in it), l2 after w·h is rounded (the rotation's).
func qkL1() bf16Lanes { return loadedLanes().rounded() }
func qkL2() bf16Lanes { return qkL1().rounded() }

// permuteBlocks emits, for each of the nblocks 32-value blocks of float32 at src, its values in
// the layout whose VPERMT2PS indices ie and io are (layoutTables): the e lanes to dst+dstDisp,
// then the o lanes 64 bytes on.
func permuteBlocks(dst, src Register, dstDisp, nblocks int, ie, io VecVirtual) {
	for c := range nblocks {
		for h, idx := range []VecVirtual{ie, io} {
			v := ZMM()
			VMOVUPS(Mem{Base: src, Disp: 128 * c}, v)
			VPERMT2PS(Mem{Base: src, Disp: 128*c + 64}, idx, v)
			VMOVUPS(v, Mem{Base: dst, Disp: dstDisp + 128*c + 64*h})
		}
	}
}

// layoutTables declares the VPERMT2PS indices of layout l: lane j of e is element l.e[j].
func layoutTables(name string, l bf16Lanes) (e, o Mem) {
	return dwordTable(name+"e", l.e), dwordTable(name+"o", l.o)
}

// qkWeightBF16Kernel emits qkWeightBF16(dst, w *float32): the 128 float32 of a norm weight in
// the layout qkNormRoPEBF16Kernel multiplies them in, once per call of the op.
func (g *generator) qkWeightBF16Kernel() {
	w1E, w1O := layoutTables("qkw1", qkL1())
	g.fastBF16 = false // no bf16 stores
	TEXT("qkWeightBF16", NOSPLIT, "func(dst, w *float32)")
	Pragma("noescape")
	Doc("qkWeightBF16 writes the 128 float32 of w to dst in the order qkNormRoPENeoX128BF16AVX512BF16 takes them.")
	dst := Load(Param("dst"), GP64())
	w := Load(Param("w"), GP64())
	ie, io := ZMM(), ZMM()
	VMOVDQU32(w1E, ie)
	VMOVDQU32(w1O, io)
	permuteBlocks(dst, w, 0, 4, ie, io)
	VZEROUPPER()
	RET()
}

// qkNormRoPEBF16Kernel emits qkNormRoPENeoX128BF16AVX512BF16(x *byte, heads, stride int, w, cos,
// sin, scratch *float32, eps float32) int: qk_rmsnorm_rope for bf16 heads of 128 rotated full
// width NeoX style (Qwen3's shape), in place, with the reference's roundings; w is the weight as
// qkWeightBF16 lays it out.
//
// The heads go in blocks of up to 16, in two passes. The first computes every head's scale r;
// the second normalizes, rounds, scales by the weight, rounds, rotates and stores each head.
// Split this way, the first pass's long chains (32 squares, the lanes' sum, a square root and a
// division) are independent of each other, and the second pass has no long chain at all.
// (Measured on Zen 4: two heads interleaved in the second pass were half again slower; the
// first pass run one to eight heads ahead of the second was no faster.)
//
// Values stay deinterleaved from load to store (bf16Lanes): the roundings to bf16 and back are
// one VCVTNE2PS2BF16 and two one-cycle splits per 32 values, and only the final store puts the
// words back in order (one VPERMW). VCVTNE2PS2BF16 flushes subnormals, so rounded words are
// tested (qkHead: all three roundings' for a zero exponent in the careful variant, the second
// rounding's for an exponent of at least 64 in the usual one), and a head with a word that
// fails is not stored; the kernel returns how many heads it wrote, and the caller finishes that
// head on the exact path and calls again for the rest.
//
// scratch holds 144 float32: 16 scales and the token's cos and sin in layout l2.
func (g *generator) qkNormRoPEBF16Kernel() {
	const name = "qkNormRoPENeoX128BF16AVX512BF16"
	g.fastBF16 = true
	TEXT(name, NOSPLIT, "func(x *byte, heads, stride int, w, cos, sin, scratch *float32, eps float32) int")
	Pragma("noescape")
	Doc(name+" normalizes and rotates up to `heads` BF16 heads of 128 elements in place, as qk_rmsnorm_rope does for a full-width NeoX rotation,",
		"and returns how many it wrote: fewer when head number n rounds a value to zero or a subnormal, which it leaves to the caller.",
		"w is the weight as qkWeightBF16 writes it; scratch holds 144 float32.")
	r2E, r2O := layoutTables("qkr2", qkL2())
	outIdx := wordOrder("qkoutidx", qkL2())
	expW := ConstData("bf16exp2", U32(0x7f807f80))

	x := Load(Param("x"), GP64())
	heads := Load(Param("heads"), GP64())
	stride := Load(Param("stride"), GP64())
	w := Load(Param("w"), GP64())
	scratch := Load(Param("scratch"), GP64())
	eps := Load(Param("eps"), XMM())
	done := GP64()
	XORQ(done, done)
	TESTQ(heads, heads)
	JZ(LabelRef("ret"))

	// cos and sin in layout l2 into scratch[16:80] and [80:144]: block c (c = 0, 1) of the
	// first halves pairs with block c+2 of the second, and both use cos/sin[32c:32c+32].
	{
		ie, io := ZMM(), ZMM()
		VMOVDQU32(r2E, ie)
		VMOVDQU32(r2O, io)
		for t, name := range []string{"cos", "sin"} {
			src := Load(Param(name), GP64())
			permuteBlocks(scratch, src, 64+256*t, 2, ie, io)
		}
	}
	careful := g.qkTinyTrig(scratch)
	hiMask, expMask, bigMask, perm := ZMM(), ZMM(), ZMM(), ZMM()
	VPBROADCASTD(g.data.hiMask, hiMask)
	VPBROADCASTD(expW, expMask)
	VPBROADCASTD(g.data.bigExpW, bigMask)
	VMOVDQU16(outIdx, perm)
	oneD, invN, tmp := XMM(), XMM(), GP32()
	VMOVSD(g.data.oneF64, oneD)
	MOVL(U32(0x3c000000), tmp) // 1/128
	VMOVD(tmp, invN)
	split := func(m Op, e, o VecVirtual) {
		VPSLLD(U8(16), m, e)
		VPANDD(m, hiMask, o)
	}
	rs := func(h Register) Mem { return Mem{Base: scratch, Index: h, Scale: 4} } // head h's scale

	nb, p, h, sixteen := GP64(), GP64(), GP64(), GP64()
	MOVQ(U32(16), sixteen)
	Label("block")
	MOVQ(heads, nb)
	SUBQ(done, nb)
	CMPQ(nb, sixteen)
	CMOVQGT(sixteen, nb)

	// First pass: r for each head of the block.
	MOVQ(x, p)
	XORQ(h, h)
	// Each head's first read prefetches the head 16 on (the next block's, or past the last
	// head, where the next token's heads usually follow). Out of cache a head took about 23 ns
	// on one core against 17 in cache; the hint recovers part of that (rotary bench, 4096
	// tokens, six alternating runs: median 2.15 -> 1.91 ms per call). A prefetch past the end
	// of the tensor cannot fault.
	ahead := GP64()
	MOVQ(stride, ahead)
	SHLQ(U8(4), ahead)
	Label("sums")
	{
		for c := range 4 {
			PREFETCHT0(Mem{Base: p, Index: ahead, Scale: 1, Disp: 64 * c})
		}
		acc := [2]VecVirtual{ZMM(), ZMM()}
		for c := range 4 {
			e, o := ZMM(), ZMM()
			split(Mem{Base: p, Disp: 64 * c}, e, o)
			for i, v := range []VecVirtual{e, o} {
				if c == 0 {
					VMULPS(v, v, acc[i]) // FMA32(v, v, 0): the square, rounded once
				} else {
					accSquares(v, acc[i])
				}
			}
		}
		// Lane 2m in acc[0], 2m+1 in acc[1]: the first step adds the neighbours.
		VADDPS(acc[1], acc[0], acc[0])
		VMOVSS(rmsScalarPow2(sumTree(acc[0], true), invN, oneD, eps), rs(h))
	}
	ADDQ(stride, p)
	INCQ(h)
	CMPQ(h, nb)
	JB(LabelRef("sums"))

	// Second pass: each head from load to store; the careful variant when cos or sin has a tiny
	// value.
	MOVQ(x, p)
	XORQ(h, h)
	TESTQ(careful, careful)
	JNZ(LabelRef("headsc"))
	for _, careful := range []bool{false, true} {
		suffix := map[bool]string{false: "", true: "c"}[careful]
		Label("heads" + suffix)
		qkHead(careful, p, h, w, scratch, rs, split, hiMask, expMask, bigMask, perm)
		ADDQ(stride, p)
		INCQ(h)
		CMPQ(h, nb)
		JB(LabelRef("heads" + suffix))
		if !careful {
			JMP(LabelRef("blockdone"))
		}
	}
	Label("blockdone")
	MOVQ(p, x)
	ADDQ(nb, done)
	CMPQ(done, heads)
	JB(LabelRef("block"))

	Label("ret")
	Store(done, ReturnIndex(0))
	VZEROUPPER()
	RET()

	// Head h of the block needs the exact rounding: report the heads before it as written.
	Label("exact")
	ADDQ(h, done)
	Store(done, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// qkTinyTrig returns careful for qkNormRoPEBF16Kernel: nonzero when a cos or sin value in
// scratch (from byte 64) lies strictly between 0 and 2^-39 in magnitude; qkHead says why that
// matters.
func (g *generator) qkTinyTrig(scratch Register) GPVirtual {
	careful := GP64()
	abs, ones, least, thr := ZMM(), ZMM(), ZMM(), ZMM()
	VPBROADCASTD(g.data.absMask, abs)
	VPTERNLOGD(U8(0xff), ones, ones, ones)
	for i := range 8 {
		v := ZMM()
		VPANDD(Mem{Base: scratch, Disp: 64 + 64*i}, abs, v)
		VPADDD(ones, v, v) // |v| − 1: 0 wraps to the top, out of reach
		if i == 0 {
			VMOVDQA64(v, least)
		} else {
			VPMINUD(v, least, least)
		}
	}
	VPBROADCASTD(g.data.tinyTrig, thr)
	k := K()
	VPCMPUD(U8(1), thr, least, k) // less than
	KMOVW(k, careful.As32())
	return careful
}

// qkHead emits the second pass of qkNormRoPEBF16Kernel for the head at p (number h of its
// block). The careful variant tests every rounding's words for a zero exponent. The other tests
// only the second rounding's (after the weight), for an exponent of at least 64 (|h| ≥ 2^-63),
// and relies on two facts: no weight is infinite (the caller's qkFusedWeight declines such a
// weight), and every cos and sin value is 0 or at least 2^-39 in magnitude (the kernel checks
// per call and runs only the careful variant when one is not):
//   - a first rounding that flushed a subnormal to zero leaves a zero (the weight is finite) or
//     a NaN that a NaN weight gives anyway, and a second rounding that flushed one leaves a
//     zero: the test rejects the zeros;
//   - a word that passes is at least 2^-63 or not finite, so each rotation product is 0, not
//     finite, or at least 2^-102 and then a multiple of 2^-125; so are the differences and sums
//     of two such products, which therefore cannot be subnormal.
func qkHead(careful bool, p, h, w, scratch Register, rs func(Register) Mem, split func(Op, VecVirtual, VecVirtual), hiMask, expMask, bigMask, perm VecVirtual) {

	var e, o [4]VecVirtual
	rz := ZMM()
	VBROADCASTSS(rs(h), rz)
	for c := range 4 {
		e[c], o[c] = ZMM(), ZMM()
		split(Mem{Base: p, Disp: 64 * c}, e[c], o[c])
		VMULPS(rz, e[c], e[c]) // x·r, x first (its NaN wins, as in the reference)
		VMULPS(rz, o[c], o[c])
	}
	// Per tested rounding, a mask register collects whether each rounded word passes
	// (three short chains rather than one long one).
	ks := [3]Register{K1, K2, K3}
	round := func(r, c int, w VecVirtual) {
		cvtNE2PS2BF16(o[c], e[c], w)
		mask := expMask
		switch {
		case !careful && r != 1:
			return
		case !careful:
			mask = bigMask
		}
		if c == 0 {
			VPTESTMW(mask, w, ks[r])
		} else {
			VPTESTMW(mask, w, ks[r], ks[r])
		}
	}
	for r := range 2 {
		for c := range 4 {
			t := ZMM()
			round(r, c, t)
			split(t, e[c], o[c])
		}
		if r == 0 {
			for c := range 4 { // y = w·h, h first
				VMULPS(Mem{Base: w, Disp: 128 * c}, e[c], e[c])
				VMULPS(Mem{Base: w, Disp: 128*c + 64}, o[c], o[c])
			}
		}
	}
	// The rotation: a = block c, b = block c+2; a' = a·cos − b·sin, b' = b·cos + a·sin,
	// each product rounded to float32.
	for c := range 2 {
		for k, v := range [][4]VecVirtual{e, o} {
			cm := Mem{Base: scratch, Disp: 64 + 128*c + 64*k}
			sm := cm
			sm.Disp += 256
			a, b := v[c], v[c+2]
			na, q := ZMM(), ZMM()
			VMULPS(cm, a, na)
			VMULPS(sm, b, q)
			VSUBPS(q, na, na)
			VMULPS(cm, b, b)
			VMULPS(sm, a, q)
			VADDPS(q, b, b)
			if k == 0 {
				e[c] = na
			} else {
				o[c] = na
			}
		}
	}
	var res [4]VecVirtual
	for c := range 4 {
		res[c] = ZMM()
		round(2, c, res[c])
		VPERMW(res[c], perm, res[c])
	}
	if careful {
		KANDD(ks[0], ks[1], ks[1])
		KANDD(ks[2], ks[1], ks[1])
	}
	KORTESTD(ks[1], ks[1]) // CF: every tested word passed
	JCC(LabelRef("exact"))
	for c := range 4 {
		VMOVDQU64(res[c], Mem{Base: p, Disp: 64 * c})
	}
}
