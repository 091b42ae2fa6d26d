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

// The Go assembler does not know AVX512_BF16's VCVTNE2PS2BF16, VCVTNEPS2BF16 and VDPBF16PS
// (nor does avo v0.6.0). cvtNE2PS2BF16, cvtNEPS2BF16 and dpBF16PS emit them under their own
// names anyway, so that avo allocates their registers like any other instruction's, and
// encodeBF16 rewrites each such line of the generated file into the instruction's bytes.

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

// dpBF16PS emits VDPBF16PS: each float32 lane of acc plus the products of the lane's two bf16
// words in a and b, the high words' first: two fused multiply-adds, each rounded to nearest
// even, but with bf16 subnormal inputs, a subnormal acc and subnormal results taken as zero,
// and, of several NaNs, the low words' first (FMA32 would keep acc's, then the high words').
func dpBF16PS(a, b, acc VecVirtual) {
	Instruction(&ir.Instruction{
		Opcode:   "VDPBF16PS",
		Operands: []Op{b, a, acc}, // Go order: the second source, the first, the accumulator
		Inputs:   []Op{b, a, acc},
		Outputs:  []Op{acc},
	})
}

var (
	cvtNE2Line = regexp.MustCompile(`^(\s*)VCVTNE2PS2BF16\s+Z(\d+), Z(\d+), Z(\d+)\s*$`)
	dpLine     = regexp.MustCompile(`^(\s*)VDPBF16PS\s+Z(\d+), Z(\d+), Z(\d+)\s*$`)
	cvtNELine  = regexp.MustCompile(`^(\s*)VCVTNEPS2BF16\s+Z(\d+), Y(\d+)\s*$`)
)

// encodeBF16 rewrites the VCVTNE2PS2BF16, VCVTNEPS2BF16 and VDPBF16PS lines of the assembly
// file at path into BYTE directives: EVEX.512.F2.0F38.W0 72 /r, EVEX.512.F3.0F38.W0 72 /r and
// EVEX.512.F3.0F38.W0 52 /r, ModRM.reg the destination, ModRM.rm (with B and X) the (second)
// source, EVEX.vvvv (with V') the first source of the two-source forms, unused (1111) in the
// other.
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
		op := byte(0x72)
		if m := cvtNE2Line.FindStringSubmatch(line); m != nil {
			indent, name = m[1], fmt.Sprintf("VCVTNE2PS2BF16 Z%s, Z%s, Z%s", m[2], m[3], m[4])
			rm, v, dst, pp = reg(m[2]), reg(m[3]), reg(m[4]), 0x3
		} else if m := dpLine.FindStringSubmatch(line); m != nil {
			indent, name = m[1], fmt.Sprintf("VDPBF16PS Z%s, Z%s, Z%s", m[2], m[3], m[4])
			rm, v, dst, pp, op = reg(m[2]), reg(m[3]), reg(m[4]), 0x2, 0x52
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
		for k, x := range []byte{0x62, p1, p2, p3, op, modrm} {
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
