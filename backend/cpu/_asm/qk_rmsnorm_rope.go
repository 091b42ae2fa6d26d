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
// sin, scratch *float32, eps float32): qk_rmsnorm_rope whole, for heads of 128 elements rotated
// full width NeoX style (Qwen3's shape), f32 and f16 (bf16 has its own, qkNormRoPEBF16Kernel).
// As there, the heads go in blocks of up to 16: a first pass computes their scales into
// scratch[0:16] (qkSums), a second normalizes, rounds (f16: VCVTPS2PH and back), scales by the
// weight, rounds, rotates by the token's cos and sin and stores each head with one rounding,
// two heads at a time with their instructions interleaved. f16's first pass also leaves the
// heads widened to float32 in scratch[16:], which the second loads: its conversions, 1.3 to 1.5
// cycles a vector on the pipes its roundings keep busy, bound it (one core, heads in L1: 31.0
// ns a head converting again, 28.8 loading).
func (g *generator) qkNormRoPEKernel(s isa, d dtype) {
	name := fmt.Sprintf("qkNormRoPENeoX128%s%s", d.name, s.name)
	g.fastBF16 = s == avx512BF16
	TEXT(name, NOSPLIT, "func(x *byte, heads, stride int, w, cos, sin, scratch *float32, eps float32)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s normalizes and rotates `heads` %s heads of 128 elements in place, as qk_rmsnorm_rope does for a full-width NeoX rotation;", name, d.name),
		fmt.Sprintf("scratch holds %d float32.", map[dtype]int{f32: 16, f16: 16 + 16*128}[d]))
	x := Load(Param("x"), GP64())
	heads := Load(Param("heads"), GP64())
	stride := Load(Param("stride"), GP64())
	w := Load(Param("w"), GP64())
	cs := Load(Param("cos"), GP64())
	sn := Load(Param("sin"), GP64())
	scratch := Load(Param("scratch"), GP64())
	eps := Load(Param("eps"), XMM())
	TESTQ(heads, heads)
	JZ(LabelRef("done"))
	var c consts // f32 and f16 stores need no constants
	ahead := qkPrefetchAhead(stride)
	nb, h, next, wide := GP64(), GP64(), GP64(), GP64()
	Label("block")
	qkBlockSize(nb, heads, nil)
	g.qkSums(d, x, stride, nb, scratch, nil, eps)
	XORQ(h, h)
	if d == f16 {
		LEAQ(Mem{Base: scratch, Disp: 64}, wide)
	}
	Label("two")
	LEAQ(Mem{Base: h, Disp: 2}, next)
	CMPQ(next, nb)
	JA(LabelRef("one"))
	g.qkNormRoPEHeads(d, c, x, stride, ahead, w, cs, sn, scratch, wide, h, 2)
	LEAQ(Mem{Base: x, Index: stride, Scale: 2}, x)
	if d == f16 {
		ADDQ(U32(1024), wide)
	}
	MOVQ(next, h)
	JMP(LabelRef("two"))
	Label("one")
	CMPQ(h, nb)
	JAE(LabelRef("blockdone"))
	g.qkNormRoPEHeads(d, c, x, stride, ahead, w, cs, sn, scratch, wide, h, 1)
	ADDQ(stride, x)
	Label("blockdone")
	SUBQ(nb, heads)
	JNZ(LabelRef("block"))
	Label("done")
	g.retWithColdPaths()
}

// qkNormRoPEHeads emits qkNormRoPEKernel's second pass on the nh heads at x, x+stride, ...
// (numbers h, h+1, ... of the block; f16's widened at wide, wide+512), each step for every head
// before the next step.
func (g *generator) qkNormRoPEHeads(d dtype, c consts, x, stride, ahead, w, cs, sn, scratch, wide, h Register, nh int) {
	base := make([]Register, nh)
	base[0] = x
	for i := 1; i < nh; i++ {
		base[i] = GP64()
		LEAQ(Mem{Base: base[i-1], Index: stride, Scale: 1}, base[i])
	}
	for i := range nh {
		for l := range 2 * d.esize {
			PREFETCHT1(Mem{Base: base[i], Index: ahead, Scale: 1, Disp: 64 * l})
		}
	}
	y := make([][8]VecVirtual, nh)
	rz := make([]VecVirtual, nh)
	for i := range nh {
		rz[i] = ZMM()
		VBROADCASTSS(Mem{Base: scratch, Index: h, Scale: 4, Disp: 4 * i}, rz[i])
	}
	for k := range 8 {
		for i := range nh {
			if d == f16 {
				y[i][k] = ZMM()
				VMOVUPS(Mem{Base: wide, Disp: 512*i + 64*k}, y[i][k])
			} else {
				y[i][k] = load(d, 16, Mem{Base: base[i], Disp: 16 * d.esize * k})
			}
		}
	}
	for k := 0; k < 8; k += 2 {
		for i := range nh {
			a, b := y[i][k], y[i][k+1]
			VMULPS(rz[i], a, a) // x·r, x first (its NaN wins, as in the reference)
			VMULPS(rz[i], b, b)
			roundPair(d, a, b)
		}
		for i := range nh {
			a, b := y[i][k], y[i][k+1]
			VMULPS(Mem{Base: w, Disp: 64 * k}, a, a)
			VMULPS(Mem{Base: w, Disp: 64 * (k + 1)}, b, b)
			roundPair(d, a, b)
		}
	}
	// Pairs (i, i+64): y[k] with y[k+4]; o1 = a·c − b·s into y[k], o2 = b·c + a·s into y[k+4].
	for k := range 4 {
		for i := range nh {
			a, b := y[i][k], y[i][k+4]
			p, q := ZMM(), ZMM()
			cm, sm := Mem{Base: cs, Disp: 64 * k}, Mem{Base: sn, Disp: 64 * k}
			VMULPS(cm, a, p)
			VMULPS(sm, b, q)
			VSUBPS(q, p, p)
			VMULPS(cm, b, b)
			VMULPS(sm, a, q)
			VADDPS(q, b, b)
			y[i][k] = p
		}
	}
	for k := range 8 {
		for i := range nh {
			g.store(d, 16, c, y[i][k], Mem{Base: base[i], Disp: 16 * d.esize * k})
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

// The layouts of qkNormRoPEBF16Kernel's second pass: l2 after w·h is rounded (the rotation's) is
// in order, lanes 0..15 of a 32-value block in e and 16..31 in o, so that the last rounding's
// words are the output as it is stored, and cos and sin are read as they are; l1 after x·r is
// rounded (the weight is multiplied in it) and l0 as loaded (qkLoadTables) are the layouts
// whose roundings give l2.
func qkL2() (l bf16Lanes) {
	for j := range 16 {
		l.e[j], l.o[j] = j, 16+j
	}
	return l
}
func qkL1() bf16Lanes { return qkL2().unrounded() }
func qkL0() bf16Lanes { return qkL1().unrounded() }

// qkLoadTables declares the zero-masked VPERMW indices that load 32 bf16 values in layout l0,
// each to the high word of its dword: word 2j+1 of e's table is element l0.e[j] (word 2j, masked
// off, is 0).
func qkLoadTables() (e, o Mem) {
	l := qkL0()
	for j := range 16 {
		l.e[j] <<= 16
		l.o[j] <<= 16
	}
	return dwordTable("qkloade", l.e), dwordTable("qkloado", l.o)
}

// permuteBlocks emits, for each of the nblocks 32-value blocks of float32 at src, its values in
// the layout whose VPERMT2PS indices ie and io are (layoutTables): the e lanes to dst, then the
// o lanes 64 bytes on.
func permuteBlocks(dst, src Register, nblocks int, ie, io VecVirtual) {
	for c := range nblocks {
		for h, idx := range []VecVirtual{ie, io} {
			v := ZMM()
			VMOVUPS(Mem{Base: src, Disp: 128 * c}, v)
			VPERMT2PS(Mem{Base: src, Disp: 128*c + 64}, idx, v)
			VMOVUPS(v, Mem{Base: dst, Disp: 128*c + 64*h})
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
	permuteBlocks(dst, w, 4, ie, io)
	VZEROUPPER()
	RET()
}

// qkNormRoPEBF16Kernel emits qkNormRoPENeoX128BF16AVX512BF16(x *byte, heads, stride int, w, cos,
// sin, scratch *float32, eps float32) int: qk_rmsnorm_rope for bf16 heads of 128 rotated full
// width NeoX style (Qwen3's shape), in place, with the reference's roundings; w is the weight as
// qkWeightBF16 lays it out.
//
// The heads go in blocks of up to 16, in two passes. The first computes every head's scale r
// (qkSums); the second normalizes, rounds, scales by the weight, rounds, rotates and stores
// each head, two heads at a time with their instructions interleaved (qkKernel.heads): one
// head's chain of dependent steps (three roundings of 7 cycles' latency among them) is longer
// than the out-of-order window reaches past, and two independent chains side by side keep the
// vector pipes busier (Zen 4, the second pass over 16 heads in L1: 66 cycles a head alone, 55
// two by two).
//
// Values stay deinterleaved from load to store (bf16Lanes): the roundings to bf16 and back are
// one VCVTNE2PS2BF16 and two one-cycle splits per 32 values. The second pass loads them (two
// zero-masked VPERMW per 32) in the layout whose two roundings leave them in order (qkL2), so
// the last rounding's words are stored as they are, and cos and sin are read as they are.
// VCVTNE2PS2BF16 flushes subnormals, so rounded words are tested (qkKernel.heads: all three
// roundings' for a zero exponent in the careful variant, the second rounding's for an exponent
// of at least 64 in the usual one), and a head with a word that fails is not stored; the kernel
// returns how many heads it wrote, and the caller finishes that head on the exact path and
// calls again for the rest.
//
// scratch holds the 16 scales.
func (g *generator) qkNormRoPEBF16Kernel() {
	const name = "qkNormRoPENeoX128BF16AVX512BF16"
	g.fastBF16 = true
	TEXT(name, NOSPLIT, "func(x *byte, heads, stride int, w, cos, sin, scratch *float32, eps float32) int")
	Pragma("noescape")
	Doc(name+" normalizes and rotates up to `heads` BF16 heads of 128 elements in place, as qk_rmsnorm_rope does for a full-width NeoX rotation,",
		"and returns how many it wrote: fewer when head number n rounds a value to zero or a subnormal, which it leaves to the caller.",
		"w is the weight as qkWeightBF16 writes it; scratch holds 16 float32.")
	loadE, loadO := qkLoadTables()
	expW := g.expMaskW()

	x := Load(Param("x"), GP64())
	heads := Load(Param("heads"), GP64())
	stride := Load(Param("stride"), GP64())
	w := Load(Param("w"), GP64())
	cs := Load(Param("cos"), GP64())
	sn := Load(Param("sin"), GP64())
	scratch := Load(Param("scratch"), GP64())
	eps := Load(Param("eps"), XMM())
	done := GP64()
	XORQ(done, done)
	TESTQ(heads, heads)
	JZ(LabelRef("ret"))

	careful := g.qkTinyTrig(cs, sn)
	hiMask, expMask, bigMask, idxE, idxO := ZMM(), ZMM(), ZMM(), ZMM(), ZMM()
	VPBROADCASTD(g.data.hiMask, hiMask)
	VPBROADCASTD(expW, expMask)
	VPBROADCASTD(g.data.bigExpW, bigMask)
	VMOVDQU32(loadE, idxE)
	VMOVDQU32(loadO, idxO)
	odd, t := K7, GP32() // K1..K6 collect qkKernel.heads' tests
	MOVL(U32(0xaaaaaaaa), t)
	KMOVD(t, odd)
	k := qkKernel{
		stride: stride, scratch: scratch, w: w, cos: cs, sin: sn,
		hiMask: hiMask, expMask: expMask, bigMask: bigMask, idxE: idxE, idxO: idxO, odd: odd,
	}
	// Each head of the second pass prefetches, to L2, the head 32 on (in the next block, or
	// past the last head, where the next token's heads usually follow); a prefetch past the end
	// of the tensor cannot fault. Spread over the second pass rather than bunched in the first,
	// the hints are not dropped for want of miss buffers (one core streaming 4096 tokens: 26.9
	// ns a head with the first pass prefetching 16 heads on to L1, 23.5 with this).
	k.ahead = qkPrefetchAhead(stride)

	nb, p, h, next := GP64(), GP64(), GP64(), GP64()
	Label("block")
	qkBlockSize(nb, heads, done)

	g.qkSums(bf16, x, stride, nb, scratch, hiMask, eps)

	// Second pass: two heads at a time, then an odd last one; the careful variant when cos or
	// sin has a tiny value.
	MOVQ(x, p)
	XORQ(h, h)
	TESTQ(careful, careful)
	JNZ(LabelRef("headsc"))
	for _, careful := range []bool{false, true} {
		suffix := map[bool]string{false: "", true: "c"}[careful]
		Label("heads" + suffix)
		LEAQ(Mem{Base: h, Disp: 2}, next)
		CMPQ(next, nb)
		JA(LabelRef("head1" + suffix))
		k.heads(careful, 2, p, h)
		LEAQ(Mem{Base: p, Index: stride, Scale: 2}, p)
		MOVQ(next, h)
		JMP(LabelRef("heads" + suffix))
		Label("head1" + suffix)
		CMPQ(h, nb)
		JAE(LabelRef("blockdone"))
		k.heads(careful, 1, p, h)
		ADDQ(stride, p)
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

	// Head h (or h+1, from the second head of a pair) of the block needs the exact rounding:
	// report the heads before it as written.
	Label(qkExact(1))
	INCQ(h)
	Label(qkExact(0))
	ADDQ(h, done)
	Store(done, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// qkPrefetchAhead returns the second passes' prefetch distance in bytes: 32 heads (see
// qkNormRoPEBF16Kernel).
func qkPrefetchAhead(stride Register) GPVirtual {
	ahead := GP64()
	MOVQ(stride, ahead)
	SHLQ(U8(5), ahead)
	return ahead
}

// qkBlockSize emits nb = min(heads − done, 16), the heads of the next block (done nil: none).
func qkBlockSize(nb, heads, done Register) {
	sixteen := GP64()
	MOVQ(U32(16), sixteen)
	MOVQ(heads, nb)
	if done != nil {
		SUBQ(done, nb)
	}
	CMPQ(nb, sixteen)
	CMOVQGT(sixteen, nb)
}

// qkExact is the label qkNormRoPEBF16Kernel jumps to when head i of a qkKernel.heads pair needs
// the exact rounding.
func qkExact(i int) string { return fmt.Sprintf("exact%d", i) }

// qkSums emits the first pass of qkNormRoPEBF16Kernel and qkNormRoPEKernel: the scales r of the
// nb (1 to 16) heads of dtype d at x, stride bytes apart, into scratch[0:16]. Each head's
// squares go to 32 lanes as in sumSquaresLoop; then native.SumSquares' tree adds the heads' lanes
// up together, each of its steps one shuffle pair and one addition for two, four, eight or
// sixteen heads at once (the lower lane of a pair always the first operand, as in the
// reference), and native.RMSNormScale's float64 square roots and divisions run eight heads to a
// vector (on Zen 4 they hold a multiplier pipe: 27 and 14 cycles a vector, five cycles a head,
// against thirteen scalar). Heads past nb repeat the last one, whose sums are then computed
// again and never read; with nb at most 8 the second eight are neither loaded nor finished.
// hiMask is bf16's (loads deinterleaved, as there); f32 and f16 load in order and take nil.
// f16 also writes each head widened to float32 to scratch[16+128i:], i its number in the block.
func (g *generator) qkSums(d dtype, x, stride, nb, scratch Register, hiMask VecVirtual, eps Register) {
	var idx VecVirtual
	if d != bf16 {
		idx = ZMM()
		VMOVDQU32(dwordTable("qksumidx"+d.name, [16]int{0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15}), idx)
	}
	p, last, t, wide := GP64(), GP64(), GP64(), GP64()
	if d == f16 {
		LEAQ(Mem{Base: scratch, Disp: 64}, wide) // the widened heads, 512 bytes each
	}
	MOVQ(nb, last)
	DECQ(last)
	IMULQ(stride, last)
	ADDQ(x, last)
	MOVQ(x, p)
	// merge adds neighbours of a and of b: lanes 2j and 2j+1 of each 128 bits, or with blocks
	// set 128-bit blocks 2j and 2j+1; a's sums go to the lower half of each 128 bits (of the
	// register with blocks).
	merge := func(a, b VecVirtual, blocks bool) VecVirtual {
		lo, hi := ZMM(), ZMM()
		if blocks {
			VSHUFF32X4(U8(0x88), b, a, lo)
			VSHUFF32X4(U8(0xdd), b, a, hi)
		} else {
			VSHUFPS(U8(0x88), b, a, lo)
			VSHUFPS(U8(0xdd), b, a, hi)
		}
		VADDPS(hi, lo, lo)
		return lo
	}
	// head returns T, the 16 sums T_m = s_2m + s_2m+1 of the head at p, and moves p on to the
	// next head unless p is the last. bf16 holds T_m in lane m; f32 and f16 in sumLanes' order,
	// T2k and T2k+1 in lanes 4k and 4k+1 and T8+2k and T9+2k in lanes 4k+2 and 4k+3.
	head := func(advance bool) VecVirtual {
		acc := [2]VecVirtual{ZMM(), ZMM()}
		square := func(v VecVirtual, i int, first bool) {
			if first {
				VMULPS(v, v, acc[i]) // FMA32(v, v, 0): the square, rounded once
			} else {
				accSquares(v, acc[i])
			}
		}
		if d == bf16 {
			for c := range 4 {
				e, o, m := ZMM(), ZMM(), ZMM()
				VMOVDQU64(Mem{Base: p, Disp: 64 * c}, m)
				VPSLLD(U8(16), m, e)
				VPANDD(m, hiMask, o)
				square(e, 0, c == 0) // s_2m in lane m
				square(o, 1, c == 0) // s_2m+1
			}
		} else {
			for c := range 8 {
				v := load(d, 16, Mem{Base: p, Disp: 16 * d.esize * c})
				if d == f16 {
					VMOVUPS(v, Mem{Base: wide, Disp: 64 * c})
				}
				square(v, c%2, c < 2) // s_16(c%2)+i in lane i
			}
			if d == f16 {
				ADDQ(U32(512), wide)
			}
		}
		if advance {
			LEAQ(Mem{Base: p, Index: stride, Scale: 1}, t)
			CMPQ(t, last)
			CMOVQLS(t, p)
		}
		if d == bf16 {
			VADDPS(acc[1], acc[0], acc[0])
			return acc[0]
		}
		return merge(acc[0], acc[1], false)
	}
	// eight returns the next eight heads' sums V0 = Σ s_0..15 and V1 = Σ s_16..31. bf16 has
	// them as [V0 of heads 0..3, V1 of 0..3, V0 of 4..7, V1 of 4..7], one 128-bit block each;
	// f32 and f16 with the 128-bit block j holding V0 and V1 of heads 2j and 2j+1.
	eight := func(lastAdvance bool) VecVirtual {
		var u [2]VecVirtual
		for q := range 2 {
			var pr [2]VecVirtual
			for k := range 2 {
				a := head(true)
				b := head(lastAdvance || q == 0 || k == 0)
				// P_j = T_2j + T_2j+1, neighbours in either order: per 128 bits i, [P_2i,
				// P_2i+1] (bf16) or [P_i, P_4+i] of a, then of b.
				pr[k] = merge(a, b, false)
			}
			// U_i = P_2i + P_2i+1. bf16: 128-bit block i holds U_i of the four heads. f32, f16:
			// P_2i and P_2i+1 sit in blocks 2i and 2i+1, and block j (of a pair of heads) gets
			// [U0, U2] of the first head and of the second for j = 0, [U1, U3] for j = 1.
			u[q] = merge(pr[0], pr[1], d != bf16)
		}
		// V0 = U0 + U1, V1 = U2 + U3.
		return merge(u[0], u[1], true)
	}
	lo, hi := eight(true), ZMM()
	VMOVAPS(lo, hi)
	CMPQ(nb, U8(8))
	sums8 := g.newLabel("sums8")
	JBE(LabelRef(sums8))
	VMOVAPS(eight(false), hi)
	Label(sums8)
	// W = V0 + V1: lane i holds head i's sum of squares; f32 and f16 have the heads in lanes
	// 0 1 8 9 2 3 10 11 4 5 12 13 6 7 14 15 and put them in order.
	sum := merge(lo, hi, d == bf16)
	if d != bf16 {
		VPERMPS(sum, idx, sum)
	}
	// r = float32(1 / sqrt(float64(sum/128 + eps))), as rmsScalar: the mean a multiplication by
	// 1/128, which rounds exactly as the division does (the same real number, rounded once).
	invN, epsZ, one := ZMM(), ZMM(), ZMM()
	MOVL(U32(0x3c000000), t.As32()) // 1/128
	VPBROADCASTD(t.As32(), invN)
	VBROADCASTSS(eps, epsZ)
	VBROADCASTSD(g.data.oneF64, one)
	VMULPS(invN, sum, sum)
	VADDPS(epsZ, sum, sum)
	sumsDone := g.newLabel("sumsdone")
	for k := range 2 {
		half, dd := YMM(), ZMM()
		if k == 0 {
			VCVTPS2PD(sum.AsY(), dd)
		} else {
			CMPQ(nb, U8(8))
			JBE(LabelRef(sumsDone))
			VEXTRACTF32X8(U8(1), sum, half)
			VCVTPS2PD(half, dd)
		}
		VSQRTPD(dd, dd)
		VDIVPD(dd, one, dd)
		VCVTPD2PS(dd, half)
		VMOVUPS(half, Mem{Base: scratch, Disp: 32 * k})
	}
	Label(sumsDone)
}

// qkTinyTrig returns careful for qkNormRoPEBF16Kernel: nonzero when one of the 64 cos or 64 sin
// values lies strictly between 0 and 2^-39 in magnitude; qkKernel.heads says why that matters.
func (g *generator) qkTinyTrig(cs, sn Register) GPVirtual {
	careful := GP64()
	abs, ones, least, thr := ZMM(), ZMM(), ZMM(), ZMM()
	VPBROADCASTD(g.data.absMask, abs)
	VPTERNLOGD(U8(0xff), ones, ones, ones)
	for i := range 8 {
		v := ZMM()
		VPANDD(Mem{Base: []Register{cs, sn}[i/4], Disp: 64 * (i % 4)}, abs, v)
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

// qkKernel is what qkNormRoPEBF16Kernel's second pass reads: the head stride and prefetch
// distance in bytes, the scratch (the scales), the weight, cos and sin, and the constants.
type qkKernel struct {
	stride, ahead, scratch, w, cos, sin  Register
	hiMask, expMask, bigMask, idxE, idxO VecVirtual
	odd                                  Op // the odd words
}

// split puts the first bf16 of each dword of m in e as float32 and the second in o.
func (k qkKernel) split(m Op, e, o VecVirtual) {
	VPSLLD(U8(16), m, e)
	VPANDD(m, k.hiMask, o)
}

// heads emits the second pass of qkNormRoPEBF16Kernel for the nh (1 or 2) heads at p, p+stride
// (numbers h, h+1 of the block), each step for every head before the next step. The careful
// variant tests every rounding's words for a zero exponent. The other tests only the second
// rounding's (after the weight), for an exponent of at least 64 (|h| ≥ 2^-63), and relies on
// two facts: no weight is infinite (the caller's qkFusedWeight declines such a weight), and
// every cos and sin value is 0 or at least 2^-39 in magnitude (the kernel checks per call and
// runs only the careful variant when one is not):
//   - a first rounding that flushed a subnormal to zero leaves a zero (the weight is finite) or
//     a NaN that a NaN weight gives anyway, and a second rounding that flushed one leaves a
//     zero: the test rejects the zeros;
//   - a word that passes is at least 2^-63 or not finite, so each rotation product is 0, not
//     finite, or at least 2^-102 and then a multiple of 2^-125; so are the differences and sums
//     of two such products, which therefore cannot be subnormal.
func (k qkKernel) heads(careful bool, nh int, p, h Register) {
	base := []Register{p}
	if nh == 2 {
		base = append(base, GP64())
		LEAQ(Mem{Base: p, Index: k.stride, Scale: 1}, base[1])
	}
	for i := range nh {
		for c := range 4 {
			PREFETCHT1(Mem{Base: base[i], Index: k.ahead, Scale: 1, Disp: 64 * c})
		}
	}
	e, o := make([][4]VecVirtual, nh), make([][4]VecVirtual, nh)
	rz := make([]VecVirtual, nh)
	for i := range nh {
		rz[i] = ZMM()
		VBROADCASTSS(Mem{Base: k.scratch, Index: h, Scale: 4, Disp: 4 * i}, rz[i])
	}
	for c := range 4 {
		for i := range nh {
			m := ZMM()
			e[i][c], o[i][c] = ZMM(), ZMM()
			VMOVDQU64(Mem{Base: base[i], Disp: 64 * c}, m)
			VPERMW_Z(m, k.idxE, k.odd, e[i][c]) // layout l0
			VPERMW_Z(m, k.idxO, k.odd, o[i][c])
			VMULPS(rz[i], e[i][c], e[i][c]) // x·r, x first (its NaN wins, as in the reference)
			VMULPS(rz[i], o[i][c], o[i][c])
		}
	}
	// Per head and tested rounding, a mask register collects whether each rounded word passes
	// (short chains rather than one long one).
	ks := [][3]Register{{K1, K2, K3}, {K4, K5, K6}}
	round := func(i, r, c int, dst VecVirtual) {
		cvtNE2PS2BF16(o[i][c], e[i][c], dst)
		mask := k.expMask
		switch {
		case !careful && r != 1:
			return
		case !careful:
			mask = k.bigMask
		}
		if c == 0 {
			VPTESTMW(mask, dst, ks[i][r])
		} else {
			VPTESTMW(mask, dst, ks[i][r], ks[i][r])
		}
	}
	for r := range 2 {
		for c := range 4 {
			for i := range nh {
				t := ZMM()
				round(i, r, c, t)
				k.split(t, e[i][c], o[i][c])
			}
		}
		if r == 0 {
			for c := range 4 { // y = w·h, h first
				for i := range nh {
					VMULPS(Mem{Base: k.w, Disp: 128 * c}, e[i][c], e[i][c])
					VMULPS(Mem{Base: k.w, Disp: 128*c + 64}, o[i][c], o[i][c])
				}
			}
		}
	}
	// The rotation: a = block c, b = block c+2; a' = a·cos − b·sin, b' = b·cos + a·sin,
	// each product rounded to float32.
	for c := range 2 {
		for half := range 2 {
			for i := range nh {
				v := &e[i]
				if half == 1 {
					v = &o[i]
				}
				cm := Mem{Base: k.cos, Disp: 128*c + 64*half}
				sm := Mem{Base: k.sin, Disp: 128*c + 64*half}
				a, b := v[c], v[c+2]
				na, q := ZMM(), ZMM()
				VMULPS(cm, a, na)
				VMULPS(sm, b, q)
				VSUBPS(q, na, na)
				VMULPS(cm, b, b)
				VMULPS(sm, a, q)
				VADDPS(q, b, b)
				v[c] = na
			}
		}
	}
	res := make([][4]VecVirtual, nh)
	for c := range 4 {
		for i := range nh {
			res[i][c] = ZMM()
			round(i, 2, c, res[i][c]) // in order: layout l2
		}
	}
	for i := range nh {
		if careful {
			KANDD(ks[i][0], ks[i][1], ks[i][1])
			KANDD(ks[i][2], ks[i][1], ks[i][1])
		}
		KORTESTD(ks[i][1], ks[i][1]) // CF: every tested word passed
		JCC(LabelRef(qkExact(i)))
		for c := range 4 {
			VMOVDQU64(res[i][c], Mem{Base: base[i], Disp: 64 * c})
		}
	}
}
