package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The per-pair kernels' bf16 paths on AVX512BF16 (rotary_embedding, its gathered form and mrope
// at rotary dims 128 NeoX and GPT-J and 64 GPT-J, vision_rope_2d at 80): the rotation by cos/sin
// held in registers, rounded with VCVTNE2PS2BF16.

// expMaskWords is the bf16 exponent field in both words of a dword, declared on first use.
var expMaskWords *Mem

func (g *generator) expMaskW() Mem {
	if expMaskWords == nil {
		m := ConstData("expmaskw", U32(0x7f807f80))
		expMaskWords = &m
	}
	return *expMaskWords
}

// bf16Split holds the registers of the deinterleaved layout: a block of 32 bf16 loads as 16
// dwords, VPSLLD $16 gives its even elements as float32 and masking the high halves its odd ones
// (bf16Lanes), so the widening takes no shuffle; cos and sin are deinterleaved the same way once
// per call, and VPERMW (by perm) puts the rounded words back in order.
type bf16Split struct {
	hiMask, wmask, perm VecVirtual
}

// newBF16Split loads the deinterleaved layout's masks and word order into registers.
func (g *generator) newBF16Split() bf16Split {
	sp := bf16Split{hiMask: ZMM(), wmask: ZMM(), perm: ZMM()}
	VPBROADCASTD(g.data.hiMask, sp.hiMask)
	VPBROADCASTD(g.expMaskW(), sp.wmask)
	VMOVDQU16(g.wordOrderSplit(), sp.perm)
	return sp
}

// neoxDecodeBF16Split is neoxRegsPath's bf16 loop on AVX512BF16: the token's cos and sin of
// each head's leading multiple of 32 pairs (cr, sr: 16 pairs a register) held deinterleaved in
// registers across the heads, each 32-pair block one load, two logic ops and one
// VCVTNE2PS2BF16, VPERMW and store per half; rest emits the rotation of the pairs after them
// (the 8 of a head of 80), x and x2 pointing at the head's halves.
func (g *generator) neoxDecodeBF16Split(c consts, x, x2, heads, stride, hf Register, cr, sr []VecVirtual, pairs int, rest func()) {
	sp := g.newBF16Split()
	// ce[b], co[b]: the even and odd pairs' cos of block b (pairs 32b ... 32b+31); so for sin.
	blocks := len(cr) / 2
	ce, co, se, so := make([]VecVirtual, blocks), make([]VecVirtual, blocks), make([]VecVirtual, blocks), make([]VecVirtual, blocks)
	evenIdx, oddIdx := ZMM(), ZMM()
	VMOVDQU32(g.data.evenIdx, evenIdx)
	VMOVDQU32(g.data.oddIdx, oddIdx)
	split := func(lo, hi VecVirtual) (e, o VecVirtual) {
		e, o = ZMM(), ZMM()
		VMOVAPS(lo, e)
		VPERMT2PS(hi, evenIdx, e)
		VMOVAPS(lo, o)
		VPERMT2PS(hi, oddIdx, o)
		return e, o
	}
	for b := range blocks {
		ce[b], co[b] = split(cr[2*b], cr[2*b+1])
		se[b], so[b] = split(sr[2*b], sr[2*b+1])
	}
	head := fmt.Sprintf("splitHead%d", pairs)
	Label(head)
	MOVQ(hf, x2)
	SHLQ(U8(1), x2)
	ADDQ(x, x2)
	for b := range blocks {
		off := 64 * b
		g.neoxRotateBF16Split(c, sp, ce[b], co[b], se[b], so[b], Mem{Base: x, Disp: off}, Mem{Base: x2, Disp: off})
	}
	rest()
	ADDQ(stride, x)
	DECQ(heads)
	JNZ(LabelRef(head))
	JMP(LabelRef(g.exit))
}

// wordOrderSplit declares, once, VPERMW's indices from VCVTNE2PS2BF16(odd, even) to element order.
func (g *generator) wordOrderSplit() Mem {
	if splitOrder == nil {
		m := wordOrder("reoutidx", loadedLanes())
		splitOrder = &m
	}
	return *splitOrder
}

var splitOrder *Mem

// neoxRotateBF16Split rotates 32 consecutive pairs in place, first halves at m1 and second
// halves at m2, by cos/sin in the deinterleaved layout (ce, co, se, so).
func (g *generator) neoxRotateBF16Split(c consts, sp bf16Split, ce, co, se, so VecVirtual, m1, m2 Mem) {
	p1, p2 := ZMM(), ZMM()
	VMOVDQU32(m1, p1)
	VMOVDQU32(m2, p2)
	ae, ao, be, bo := ZMM(), ZMM(), ZMM(), ZMM()
	VPSLLD(U8(16), p1, ae)
	VPANDD(sp.hiMask, p1, ao)
	VPSLLD(U8(16), p2, be)
	VPANDD(sp.hiMask, p2, bo)
	p, q := ZMM(), ZMM()
	// First halves: o1 = a·c − b·s; second halves: o2 = b·c + a·s.
	fe, fo, oe, oo := ZMM(), ZMM(), ZMM(), ZMM()
	VMULPS(ce, ae, p)
	VMULPS(se, be, q)
	VSUBPS(q, p, fe)
	VMULPS(co, ao, p)
	VMULPS(so, bo, q)
	VSUBPS(q, p, fo)
	VMULPS(ce, be, oe)
	VMULPS(se, ae, q)
	VADDPS(q, oe, oe)
	VMULPS(co, bo, oo)
	VMULPS(so, ao, q)
	VADDPS(q, oo, oo)
	g.storeSplit(c, sp, splitBlock{fe, fo, m1}, splitBlock{oe, oo, m2})
}

// splitBlock is 32 float32 results in the deinterleaved layout (e: the even elements, o: the
// odd ones) and where their 32 bf16 go.
type splitBlock struct {
	e, o VecVirtual
	m    Mem
}

// storeSplit rounds each block to bf16 with one VCVTNE2PS2BF16 and stores it in element order
// (VPERMW by sp.perm). It tests the rounded words rather than the float32 results:
// VCVTNE2PS2BF16 flushes a zero-exponent input to ±0 and never rounds a normal one (at least
// 2^-126, itself a bf16) to a zero exponent, so a word with a zero exponent field marks exactly
// the lanes whose result had one, and one VPTESTNMW covers 32 lanes where the float32 test takes
// two VPTESTNMDs. Blocks with such a word (a zero or subnormal result) go to the cold path,
// which takes the integer rounding only if one of their float32 results is subnormal.
func (g *generator) storeSplit(c consts, sp bf16Split, blocks ...splitBlock) {
	w, k := make([]VecVirtual, len(blocks)), make([]Op, len(blocks))
	for i, b := range blocks {
		w[i] = ZMM()
		cvtNE2PS2BF16(b.o, b.e, w[i])
	}
	for i := range blocks {
		k[i] = K()
		VPTESTNMW(sp.wmask, w[i], k[i])
	}
	// One test for every block: KORTESTD takes two masks, so any others fold into the first.
	for _, ki := range k[1:max(1, len(k)-1)] {
		KORD(ki, k[0], k[0])
	}
	KORTESTD(k[0], k[len(k)-1])
	slow, fast, done := g.newLabel("bf16sslow"), g.newLabel("bf16sfast"), g.newLabel("bf16sdone")
	JNZ(LabelRef(slow))
	Label(fast)
	for i := range blocks {
		VPERMW(w[i], sp.perm, w[i])
	}
	for i, b := range blocks {
		VMOVDQU16(w[i], b.m)
	}
	Label(done)
	g.coldPaths = append(g.coldPaths, func() {
		Label(slow)
		var results []VecVirtual
		for _, b := range blocks {
			results = append(results, b.e, b.o)
		}
		g.backUnlessSubnormal(fast, results...)
		c := g.coldConsts(c)
		quiet32 := ZMM()
		VPBROADCASTD(g.data.quiet32, quiet32)
		// Each dword: the even element's rounding in the low half, the odd one's in the high.
		for _, b := range blocks {
			re := roundBF16(c, sp.hiMask, quiet32, b.e)
			ro := roundBF16(c, sp.hiMask, quiet32, b.o)
			VPSRLD(U8(16), re, re)
			VPORD(ro, re, re)
			VMOVDQU32(re, b.m)
		}
		JMP(LabelRef(done))
	})
}

// gptjRegsBF16Split emits the bf16 path on AVX512BF16 for exactly p pairs (a multiple of 16).
// A block of 16 pairs is 32 bf16 that load as 16 dwords, pair j in dword j: VPSLLD $16 gives its
// first elements as float32 and masking the high halves its second ones (bf16Split), so the
// token's cos and sin are used as they are, 16 pairs a register, with no duplication; the two
// results round in one VCVTNE2PS2BF16 and VPERMW puts the words back in pair order.
func (g *generator) gptjRegsBF16Split(c consts, x, heads, stride, cs, sn Register, p int) {
	sp := g.newBF16Split()
	var cr, sr []VecVirtual
	for k := 0; k < p; k += 16 {
		cv, sv := ZMM(), ZMM()
		VMOVUPS(Mem{Base: cs, Disp: 4 * k}, cv)
		VMOVUPS(Mem{Base: sn, Disp: 4 * k}, sv)
		cr, sr = append(cr, cv), append(sr, sv)
	}
	head := fmt.Sprintf("gptjSplitHead%d", p)
	Label(head)
	for k := range cr {
		g.gptjRotateBF16Split(c, sp, cr[k], sr[k], Mem{Base: x, Disp: 64 * k})
	}
	ADDQ(stride, x)
	DECQ(heads)
	JNZ(LabelRef(head))
	JMP(LabelRef(g.exit))
}

// gptjRotateBF16Split rotates the 16 pairs at m in place by cv and sv (16 pairs' cos and sin).
func (g *generator) gptjRotateBF16Split(c consts, sp bf16Split, cv, sv VecVirtual, m Mem) {
	w := ZMM()
	VMOVDQU32(m, w)
	a, b := ZMM(), ZMM()
	VPSLLD(U8(16), w, a)    // the pairs' first elements
	VPANDD(sp.hiMask, w, b) // their second
	p, q, o1, o2 := ZMM(), ZMM(), ZMM(), ZMM()
	VMULPS(cv, a, p) // o1 = a·c − b·s, o2 = b·c + a·s
	VMULPS(sv, b, q)
	VSUBPS(q, p, o1)
	VMULPS(cv, b, o2)
	VMULPS(sv, a, q)
	VADDPS(q, o2, o2)
	g.storeSplit(c, sp, splitBlock{o1, o2, m})
}
