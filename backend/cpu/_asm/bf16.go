package main

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	. "github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/ir"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The Go assembler does not know AVX512_BF16's VCVTNE2PS2BF16 and VCVTNEPS2BF16 (nor does avo
// v0.5.0). cvtNE2PS2BF16 and cvtNEPS2BF16 emit them under their own names anyway, so that avo
// allocates their registers like any other instruction's, and encodeBF16 rewrites each such
// line of the generated file into the instruction's bytes.

// cvtNE2PS2BF16 emits VCVTNE2PS2BF16: dst's low 16 words are lo rounded to bf16 (nearest even,
// NaNs quieted, subnormal inputs and results flushed to zero), its high 16 words hi's.
func cvtNE2PS2BF16(hi, lo, dst VecVirtual) {
	Instruction(&ir.Instruction{
		Opcode:   "VCVTNE2PS2BF16",
		Operands: []Op{lo, hi, dst}, // Go order: the second source, the first, the destination
		Inputs:   []Op{lo, hi},
		Outputs:  []Op{dst},
	})
}

// cvtNEPS2BF16 emits VCVTNEPS2BF16: dst's 16 words are src rounded to bf16, as cvtNE2PS2BF16.
func cvtNEPS2BF16(src, dst VecVirtual) {
	Instruction(&ir.Instruction{
		Opcode:   "VCVTNEPS2BF16",
		Operands: []Op{src, dst},
		Inputs:   []Op{src},
		Outputs:  []Op{dst},
	})
}

var (
	cvtNE2Line = regexp.MustCompile(`^(\s*)VCVTNE2PS2BF16\s+Z(\d+), Z(\d+), Z(\d+)\s*$`)
	cvtNELine  = regexp.MustCompile(`^(\s*)VCVTNEPS2BF16\s+Z(\d+), Y(\d+)\s*$`)
)

// encodeBF16 rewrites the VCVTNE2PS2BF16 and VCVTNEPS2BF16 lines of the assembly file at path
// into BYTE directives: EVEX.512.F2.0F38.W0 72 /r and EVEX.512.F3.0F38.W0 72 /r, ModRM.reg the
// destination, ModRM.rm (with B and X) the (second) source, EVEX.vvvv (with V') the first
// source of the two-source form, unused (1111) in the other.
func encodeBF16(path string) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	lines := strings.Split(string(src), "\n")
	reg := func(s string) byte {
		n, _ := strconv.Atoi(s)
		return byte(n)
	}
	for i, line := range lines {
		var indent, name string
		var rm, v, dst, pp byte // v = 0 encodes "no register"
		if m := cvtNE2Line.FindStringSubmatch(line); m != nil {
			indent, name = m[1], fmt.Sprintf("VCVTNE2PS2BF16 Z%s, Z%s, Z%s", m[2], m[3], m[4])
			rm, v, dst, pp = reg(m[2]), reg(m[3]), reg(m[4]), 0x3
		} else if m := cvtNELine.FindStringSubmatch(line); m != nil {
			indent, name = m[1], fmt.Sprintf("VCVTNEPS2BF16 Z%s, Y%s", m[2], m[3])
			rm, dst, pp = reg(m[2]), reg(m[3]), 0x2
		} else {
			continue
		}
		inv := func(b byte) byte { return ^b & 1 }
		p1 := inv(dst>>3)<<7 | inv(rm>>4)<<6 | inv(rm>>3)<<5 | inv(dst>>4)<<4 | 0x2
		p2 := (^v&0xf)<<3 | 0x4 | pp
		p3 := byte(0x40) | inv(v>>4)<<3
		modrm := 0xc0 | (dst&7)<<3 | rm&7
		var b strings.Builder
		b.WriteString(indent)
		for k, x := range []byte{0x62, p1, p2, p3, 0x72, modrm} {
			if k > 0 {
				b.WriteString("; ")
			}
			fmt.Fprintf(&b, "BYTE $0x%02x", x)
		}
		b.WriteString(" // " + name)
		lines[i] = b.String()
	}
	return os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644)
}

// bf16Lanes records which element of a 32-element block each lane of a deinterleaved register
// pair holds. A block of bf16 loads as 16 dwords, each a pair of neighbours; VPSLLD $16 gives
// the first of each pair as float32 (e) and masking the high halves the second (o).
type bf16Lanes struct{ e, o [16]int }

func loadedLanes() (l bf16Lanes) {
	for j := range 16 {
		l.e[j], l.o[j] = 2*j, 2*j+1
	}
	return l
}

// words gives the element in each word of VCVTNE2PS2BF16(o, e): e's lanes, then o's.
func (l bf16Lanes) words() (w [32]int) {
	for j := range 16 {
		w[j], w[16+j] = l.e[j], l.o[j]
	}
	return w
}

// rounded is the layout after a rounding to bf16 and back: the words split again into
// dwords, word 2j to lane j of e and word 2j+1 to lane j of o.
func (l bf16Lanes) rounded() (n bf16Lanes) {
	w := l.words()
	for j := range 16 {
		n.e[j], n.o[j] = w[2*j], w[2*j+1]
	}
	return n
}

// dwordTable declares 16 dwords of read-only data.
func dwordTable(name string, v [16]int) Mem {
	m := GLOBL(name, RODATA|NOPTR)
	for i, x := range v {
		DATA(4*i, U32(uint32(x)))
	}
	return m
}

// The layouts of qkNormRoPEBF16Kernel: l0 as loaded, l1 after x·r is rounded (the weight is
// multiplied in it), l2 after w·h is rounded (the rotation's).
var qkL0 = loadedLanes()
var qkL1 = qkL0.rounded()
var qkL2 = qkL1.rounded()

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

// wordOrder declares the VPERMW indices that put the words of VCVTNE2PS2BF16(o, e), e and o in
// layout l, back in element order.
func wordOrder(name string, l bf16Lanes) Mem {
	m := GLOBL(name, RODATA|NOPTR)
	for p := range 32 {
		for i, e := range l.words() {
			if e == p {
				DATA(2*p, U16(uint16(i)))
			}
		}
	}
	return m
}

// layoutTables declares the VPERMT2PS indices of layout l: lane j of e is element l.e[j].
func layoutTables(name string, l bf16Lanes) (e, o Mem) {
	return dwordTable(name+"e", l.e), dwordTable(name+"o", l.o)
}

// qkWeightBF16Kernel emits qkWeightBF16(dst, w *float32): the 128 float32 of a norm weight in
// the layout qkNormRoPEBF16Kernel multiplies them in, once per call of the op.
func qkWeightBF16Kernel() {
	w1E, w1O := layoutTables("qkw1", qkL1)
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
// (Measured on Zen 5: two heads interleaved in the second pass were half again slower; the
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
func qkNormRoPEBF16Kernel() {
	const name = "qkNormRoPENeoX128BF16AVX512BF16"
	TEXT(name, NOSPLIT, "func(x *byte, heads, stride int, w, cos, sin, scratch *float32, eps float32) int")
	Pragma("noescape")
	Doc(name+" normalizes and rotates up to `heads` BF16 heads of 128 elements in place, as qk_rmsnorm_rope does for a full-width NeoX rotation,",
		"and returns how many it wrote: fewer when head number n rounds a value to zero or a subnormal, which it leaves to the caller.",
		"w is the weight as qkWeightBF16 writes it; scratch holds 144 float32.")
	r2E, r2O := layoutTables("qkr2", qkL2)
	outIdx := wordOrder("qkoutidx", qkL2)
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
	// careful: whether a cos or sin value lies strictly between 0 and 2^-39 in magnitude
	// (qkNormRoPEBF16Kernel's comment says why that matters).
	careful := GP64()
	{
		abs, ones, least, thr := ZMM(), ZMM(), ZMM(), ZMM()
		VPBROADCASTD(cAbs, abs)
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
		VPBROADCASTD(cTinyTrig, thr)
		k := K()
		VPCMPUD(U8(1), thr, least, k) // less than
		KMOVW(k, careful.As32())
	}
	hiMask, expMask, bigMask, perm := ZMM(), ZMM(), ZMM(), ZMM()
	VPBROADCASTD(cHiMask, hiMask)
	VPBROADCASTD(expW, expMask)
	VPBROADCASTD(cBigExpW, bigMask)
	VMOVDQU16(outIdx, perm)
	oneD, invN, tmp := XMM(), XMM(), GP32()
	VMOVSD(cOneF64, oneD)
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

// kvcGroupBF16Kernel emits kvcGroupBF16AVX512BF16(grp *byte, n int, gamma, scratch *float32, dv,
// dk int, eps float32): kv_rmsnorm_rope_cache for n (1..16) bf16 tokens whose results go to
// contiguous rows, in the reference's arithmetic (kvcTokenKernel's). grp holds five arrays of 16
// row addresses: kv, cos, sin, ckv (the normalized row's destination) and krope (the rotated
// one's), at byte offsets 0, 128, 256, 384 and 512. gamma is the widened gamma with each block
// of 32 deinterleaved: its 16 even elements, then its 16 odd ones. scratch holds 16 float32.
//
// Two passes, as qkNormRoPEBF16Kernel's. The first computes each token's scale r (the long
// chains: the sum of squares, its lanes' sum, a square root and a division, independent from
// token to token) and rotates the token's rope part, which does not depend on r. The second
// normalizes and stores each token's dv values: a dword of bf16 splits into its even element
// and its odd one, each multiplied by r and by gamma in that layout, and one VCVTNE2PS2BF16
// plus one VPERMW puts 32 rounded values back in order. The instruction flushes subnormals, so
// 32 values with a zero or subnormal among them take the integer rounding instead.
func kvcGroupBF16Kernel() {
	const name = "kvcGroupBF16AVX512BF16"
	TEXT(name, NOSPLIT, "func(grp *byte, n int, gamma, scratch *float32, dv, dk int, eps float32)")
	Pragma("noescape")
	Doc(name+" normalizes, rotates and stores n (1..16) BF16 tokens of kv_rmsnorm_rope_cache (dv a multiple of 32, dk of 64):",
		"grp holds their kv, cos, sin, ckv and krope row addresses, 16 of each; gamma is deinterleaved per 32; scratch holds 16 float32.")
	outIdx := wordOrder("kvcoutidx", qkL0)
	var lo, hi [16]int // VPERMT2PS indices: e and o back in element order, elements 0..15, 16..31
	for j := range 8 {
		lo[2*j], lo[2*j+1] = j, 16+j
		hi[2*j], hi[2*j+1] = 8+j, 24+j
	}
	loIdx, hiIdx := dwordTable("kvcloidx", lo), dwordTable("kvchiidx", hi)

	grp := Load(Param("grp"), GP64())
	n := Load(Param("n"), GP64())
	g := Load(Param("gamma"), GP64())
	scratch := Load(Param("scratch"), GP64())
	dv := Load(Param("dv"), GP64())
	dk := Load(Param("dk"), GP64())
	eps := Load(Param("eps"), XMM())
	var c consts
	c.expMask = ZMM()
	VPBROADCASTD(cExp, c.expMask)
	nF, oneD := rmsConsts(dv)
	row := func(array int, t Register) Mem { return Mem{Base: grp, Index: t, Scale: 8, Disp: 128 * array} }

	// First pass: r into scratch, four tokens at a time (eight independent FMA chains, where one
	// token's two would wait on the FMA latency), then the rest one by one.
	t, n4 := GP64(), GP64()
	XORQ(t, t)
	MOVQ(n, n4)
	ANDQ(I8(-4), n4)
	JZ(LabelRef("sums1"))
	Label("sums4")
	{
		var kv [4]GPVirtual
		var acc [4][2]VecVirtual
		hiMask := ZMM()
		VPBROADCASTD(cHiMask, hiMask)
		for i := range kv {
			kv[i] = GP64()
			m := row(0, t)
			m.Disp += 8 * i
			MOVQ(m, kv[i])
			for h := range acc[i] {
				acc[i][h] = ZMM()
				VXORPS(acc[i][h], acc[i][h], acc[i][h])
			}
		}
		j := GP64()
		XORQ(j, j)
		Label("sum4")
		for i := range kv {
			ev, od := ZMM(), ZMM()
			m := Mem{Base: kv[i], Index: j, Scale: 2}
			VPSLLD(U8(16), m, ev)
			VPANDD(m, hiMask, od)
			accSquares(ev, acc[i][0])
			accSquares(od, acc[i][1])
		}
		ADDQ(U32(32), j)
		CMPQ(j, dv)
		JB(LabelRef("sum4"))
		for i := range kv {
			// Lane 2l in acc[0], 2l+1 in acc[1]: the first step adds the neighbours.
			VADDPS(acc[i][1], acc[i][0], acc[i][0])
			sum := sumTree(acc[i][0], true)
			VMOVSS(rmsScalar(sum, nF, oneD, eps), Mem{Base: scratch, Index: t, Scale: 4, Disp: 4 * i})
		}
	}
	ADDQ(U8(4), t)
	CMPQ(t, n4)
	JB(LabelRef("sums4"))
	Label("sums1")
	CMPQ(t, n)
	JAE(LabelRef("ropes"))
	{
		kv := GP64()
		MOVQ(row(0, t), kv)
		sum := sumSquaresLoop(bf16, kv, dv)
		VMOVSS(rmsScalar(sum, nF, oneD, eps), Mem{Base: scratch, Index: t, Scale: 4})
	}
	INCQ(t)
	JMP(LabelRef("sums1"))

	// The rotation.
	Label("ropes")
	XORQ(t, t)
	Label("rope1")
	{
		r, cs, sn, krope := GP64(), GP64(), GP64(), GP64()
		MOVQ(row(0, t), r)
		LEAQ(Mem{Base: r, Index: dv, Scale: 2}, r)
		MOVQ(row(1, t), cs)
		MOVQ(row(2, t), sn)
		MOVQ(row(4, t), krope)
		kvcRopeLoop(bf16, c, r, cs, sn, krope, dk)
	}
	INCQ(t)
	CMPQ(t, n)
	JB(LabelRef("rope1"))

	// Second pass: the norm's scaling and stores. A result that converts to a zero or subnormal
	// word may be one VCVTNE2PS2BF16 flushed: the row's smallest doubled word (sign shifted out)
	// says whether any did, and such a row is redone with the integer rounding.
	hiMask, perm, minNormal := ZMM(), ZMM(), ZMM()
	VPBROADCASTD(cHiMask, hiMask)
	VMOVDQU16(outIdx, perm)
	VPBROADCASTD(cMinNormalW, minNormal)
	XORQ(t, t)
	Label("norms")
	{
		kv, ckv, j := GP64(), GP64(), GP64()
		MOVQ(row(0, t), kv)
		MOVQ(row(3, t), ckv)
		rz, least := ZMM(), ZMM()
		VBROADCASTSS(Mem{Base: scratch, Index: t, Scale: 4}, rz)
		VPTERNLOGD(U8(0xff), least, least, least)
		XORQ(j, j)
		scaled := func() (e, o VecVirtual) {
			e, o = ZMM(), ZMM()
			m := Mem{Base: kv, Index: j, Scale: 2}
			VPSLLD(U8(16), m, e)
			VPANDD(m, hiMask, o)
			VMULPS(rz, e, e) // x·r, x first (its NaN wins, as in the reference)
			VMULPS(rz, o, o)
			VMULPS(Mem{Base: g, Index: j, Scale: 4}, e, e)
			VMULPS(Mem{Base: g, Index: j, Scale: 4, Disp: 64}, o, o)
			return e, o
		}
		out := Mem{Base: ckv, Index: j, Scale: 2}
		Label("norm")
		{
			e, o := scaled()
			w, d := ZMM(), ZMM()
			cvtNE2PS2BF16(o, e, w)
			VPADDW(w, w, d)
			VPMINUW(d, least, least)
			VPERMW(w, perm, w)
			VMOVDQU16(w, out)
		}
		ADDQ(U32(32), j)
		CMPQ(j, dv)
		JB(LabelRef("norm"))
		k := K()
		VPCMPUW(U8(1), minNormal, least, k) // less than
		KORTESTD(k, k)
		JNZ(LabelRef("normslow"))
		Label("normnext")

		coldPaths = append(coldPaths, func() {
			// A zero or subnormal in the row: all of it again, back in element order, with the
			// integer rounding.
			Label("normslow")
			cc := coldConsts(c)
			XORQ(j, j)
			Label("normslow1")
			e, o := scaled()
			for h, idx := range []Mem{loIdx, hiIdx} {
				ix, v := ZMM(), ZMM()
				VMOVDQU32(idx, ix)
				VMOVAPS(e, v)
				VPERMT2PS(o, ix, v)
				m := out
				m.Disp += 32 * h
				storeBF16Int(16, cc, v, m)
			}
			ADDQ(U32(32), j)
			CMPQ(j, dv)
			JB(LabelRef("normslow1"))
			JMP(LabelRef("normnext"))
		})
	}
	INCQ(t)
	CMPQ(t, n)
	JB(LabelRef("norms"))
	retWithColdPaths()
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

// kvcGammaSplitKernel emits kvcGammaSplitBF16(dst *float32, src *uint16, n int): n bf16 values
// (n a multiple of 32) widened to float32 in kvcGroupBF16Kernel's gamma layout, each block of 32
// as its 16 even elements, then its 16 odd ones: the layout its loads split rows into.
func kvcGammaSplitKernel() {
	const name = "kvcGammaSplitBF16"
	TEXT(name, NOSPLIT, "func(dst *float32, src *uint16, n int)")
	Pragma("noescape")
	Doc(name + " widens n bf16 values (a multiple of 32) to float32, each block of 32 as its 16 even elements, then its 16 odd ones.")
	dst := Load(Param("dst"), GP64())
	src := Load(Param("src"), GP64())
	n := Load(Param("n"), GP64())
	hiMask := ZMM()
	VPBROADCASTD(cHiMask, hiMask)
	j := GP64()
	XORQ(j, j)
	TESTQ(n, n)
	JZ(LabelRef("done"))
	Label("split")
	e, o := ZMM(), ZMM()
	m := Mem{Base: src, Index: j, Scale: 2}
	VPSLLD(U8(16), m, e)
	VPANDD(m, hiMask, o)
	VMOVUPS(e, Mem{Base: dst, Index: j, Scale: 4})
	VMOVUPS(o, Mem{Base: dst, Index: j, Scale: 4, Disp: 64})
	ADDQ(U32(32), j)
	CMPQ(j, n)
	JB(LabelRef("split"))
	Label("done")
	retWithColdPaths()
}
