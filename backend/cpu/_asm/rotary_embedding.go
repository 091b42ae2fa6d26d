package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The per-pair kernels' bf16 path on AVX512BF16 (rotary_embedding, its gathered form and mrope
// at rotary dim 128): the rotation by cos/sin held in registers, rounded with VCVTNE2PS2BF16.

// expMaskWords is the bf16 exponent field in both words of a dword, declared on first use.
var expMaskWords *Mem

func (g *generator) expMaskW() Mem {
	if expMaskWords == nil {
		m := ConstData("expmaskw", U32(0x7f807f80))
		expMaskWords = &m
	}
	return *expMaskWords
}

// neoxRotateBF16x2Words rotates 32 consecutive pairs in place (two 16-pair blocks, each with
// its cos/sin registers: first halves at m, second halves at m2) and tests the rounded words
// instead of the float32 results: VCVTNE2PS2BF16 flushes a zero-exponent input to ±0 and never
// rounds a normal one (at least 2^-126, itself a bf16) to a zero exponent, so a word with a zero
// exponent field marks exactly the lanes whose input had one. One VPTESTNMW covers 32 lanes where
// the float32 test takes two VPTESTNMDs; such a block (a zero or subnormal result) takes the
// integer rounding on the cold path, as storeBF16Wide's.
func (g *generator) neoxRotateBF16x2Words(c consts, wmask, c0, s0, c1, s1 VecVirtual, m1, m2 Mem) {
	next := func(m Mem) Mem { m.Disp += 32; return m }
	a0, a1 := load(bf16, 16, m1), load(bf16, 16, next(m1))
	b0, b1 := load(bf16, 16, m2), load(bf16, 16, next(m2))
	p, q := ZMM(), ZMM()
	// First halves: o1 = a·c − b·s; second halves: o2 = b·c + a·s.
	f0, f1, o0, o1 := ZMM(), ZMM(), ZMM(), ZMM()
	VMULPS(c0, a0, p)
	VMULPS(s0, b0, q)
	VSUBPS(q, p, f0)
	VMULPS(c1, a1, p)
	VMULPS(s1, b1, q)
	VSUBPS(q, p, f1)
	VMULPS(c0, b0, o0)
	VMULPS(s0, a0, q)
	VADDPS(q, o0, o0)
	VMULPS(c1, b1, o1)
	VMULPS(s1, a1, q)
	VADDPS(q, o1, o1)
	w1, w2 := ZMM(), ZMM()
	cvtNE2PS2BF16(f1, f0, w1)
	cvtNE2PS2BF16(o1, o0, w2)
	k1, k2 := K(), K()
	VPTESTNMW(wmask, w1, k1)
	VPTESTNMW(wmask, w2, k2)
	KORTESTD(k1, k2)
	slow, done := g.newLabel("bf16xslow"), g.newLabel("bf16xdone")
	JNZ(LabelRef(slow))
	VMOVDQU16(w1, m1)
	VMOVDQU16(w2, m2)
	Label(done)
	g.coldPaths = append(g.coldPaths, func() {
		Label(slow)
		c := g.coldConsts(c)
		storeBF16Int(16, c, f0, m1)
		storeBF16Int(16, c, f1, next(m1))
		storeBF16Int(16, c, o0, m2)
		storeBF16Int(16, c, o1, next(m2))
		JMP(LabelRef(done))
	})
}
