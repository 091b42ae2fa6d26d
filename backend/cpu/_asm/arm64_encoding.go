package main

import "fmt"

// The NEON instructions Go 1.26's assembler lacks, written as WORD with the instruction in ARM
// syntax (destination first) in a comment. Each is the Arm A64 encoding with Rd in bits 0–4,
// Rn in 5–9 and Rm in 16–20, 128-bit (Q=1) single-precision forms unless named otherwise.
// FMLA and FMLS are deliberately absent: a fused multiply-add rounds once where the reference
// rounds twice.

func (a *a64) word(enc uint32, mnemonic string) {
	a.ins("WORD $0x%08x // %s", enc, mnemonic)
}

func rdnm(d, n, m vreg) uint32 { return uint32(d) | uint32(n)<<5 | uint32(m)<<16 }

// fmul: d = n·m, each lane rounded to float32 (FMUL, vector).
func (a *a64) fmul(d, n, m vreg) {
	a.word(0x6e20dc00|rdnm(d, n, m), fmt.Sprintf("FMUL V%d.4S, V%d.4S, V%d.4S", d, n, m))
}

// fadd: d = n + m (FADD, vector).
func (a *a64) fadd(d, n, m vreg) {
	a.word(0x4e20d400|rdnm(d, n, m), fmt.Sprintf("FADD V%d.4S, V%d.4S, V%d.4S", d, n, m))
}

// fsub: d = n − m (FSUB, vector).
func (a *a64) fsub(d, n, m vreg) {
	a.word(0x4ea0d400|rdnm(d, n, m), fmt.Sprintf("FSUB V%d.4S, V%d.4S, V%d.4S", d, n, m))
}

// fcmeq: each lane of d all ones where n = m as floats, zero otherwise (so with n = m, zero
// exactly in the NaN lanes); a quiet comparison (FCMEQ, register).
func (a *a64) fcmeq(d, n, m vreg) {
	a.word(0x4e20e400|rdnm(d, n, m), fmt.Sprintf("FCMEQ V%d.4S, V%d.4S, V%d.4S", d, n, m))
}

// fcvtl widens the low four halves of n to float32, exactly (FCVTL); fcvtl2 the high four.
func (a *a64) fcvtl(d, n vreg) {
	a.word(0x0e217800|rdnm(d, n, 0), fmt.Sprintf("FCVTL V%d.4S, V%d.4H", d, n))
}

func (a *a64) fcvtl2(d, n vreg) {
	a.word(0x4e217800|rdnm(d, n, 0), fmt.Sprintf("FCVTL2 V%d.4S, V%d.8H", d, n))
}

// fcvtn rounds n to four halves in the low half of d, zeroing its high half (FCVTN); fcvtn2
// into the high half, keeping the low one. Both round as FPCR says, to nearest even under Go
// (which leaves FPCR at zero: no flush to zero, no default NaN), with IEEE subnormals,
// overflow to infinity and NaNs quieted with their payload's top bits, as tensor.F16FromFloat32.
func (a *a64) fcvtn(d, n vreg) {
	a.word(0x0e216800|rdnm(d, n, 0), fmt.Sprintf("FCVTN V%d.4H, V%d.4S", d, n))
}

func (a *a64) fcvtn2(d, n vreg) {
	a.word(0x4e216800|rdnm(d, n, 0), fmt.Sprintf("FCVTN2 V%d.8H, V%d.4S", d, n))
}
