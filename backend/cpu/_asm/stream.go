package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The streaming passes serve package cpu's stream.go: `rotary bench`'s limit, the memory traffic
// of an op without its arithmetic. Go's scalar loops reach about 40% of memmove's rate on data
// in L2, which would make the limit slower than the machine and flatter every op measured
// against it; full-width vector loads and stores run at the copy's rate.

// streamBlock is the bytes each loop round moves: four AVX-512 or eight AVX2 registers.
const streamBlock = 256

func (g *generator) streamKernels() {
	for _, s := range []isa{avx512, avx2} {
		g.streamXorKernel(s)
		g.streamFoldKernel(s)
	}
}

// streamRegs is how many registers of s make up one streamBlock, and their byte width.
func streamRegs(s isa) (n, width int) {
	width = 4 * s.lanes
	return streamBlock / width, width
}

// vmovdqu stores v (a ZMM or YMM) to m without a mask.
func vmovdqu(s isa, v VecVirtual, m Mem) {
	if s.lanes == 16 {
		VMOVDQU64(v, m)
	} else {
		VMOVDQU(v, m)
	}
}

// streamXorKernel emits streamXor<ISA>(p *byte, n int, k uint64): every 8-byte word of p[:n]
// (n a multiple of 256) loaded, xored with k and stored back. k is a parameter, not a constant,
// so that nothing can tell the stores are of the values loaded.
func (g *generator) streamXorKernel(s isa) {
	name := "streamXor" + s.name
	TEXT(name, NOSPLIT, "func(p *byte, n int, k uint64)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s xors each 8-byte word of p[:n] (n a multiple of %d) with k in place.", name, streamBlock))
	p := Load(Param("p"), GP64())
	n := Load(Param("n"), GP64())
	k := Load(Param("k"), GP64())
	kx := XMM()
	VMOVQ(k, kx)
	kv := vec(s.lanes)
	VPBROADCASTQ(kx, kv)
	TESTQ(n, n)
	JZ(LabelRef("done"))
	regs, width := streamRegs(s)
	v := make([]VecVirtual, regs)
	Label("loop")
	for i := range v {
		v[i] = vec(s.lanes)
		if s.lanes == 16 {
			VPXORQ(Mem{Base: p, Disp: i * width}, kv, v[i])
		} else {
			VPXOR(Mem{Base: p, Disp: i * width}, kv, v[i])
		}
	}
	for i := range v {
		vmovdqu(s, v[i], Mem{Base: p, Disp: i * width})
	}
	ADDQ(U32(streamBlock), p)
	SUBQ(U32(streamBlock), n)
	JNZ(LabelRef("loop"))
	Label("done")
	g.retWithColdPaths()
}

// streamFoldKernel emits streamFold<ISA>(p *byte, n int) uint64: the xor of every 8-byte word
// of p[:n] (n a multiple of 256), so that every byte is loaded and the loads have a use.
func (g *generator) streamFoldKernel(s isa) {
	name := "streamFold" + s.name
	TEXT(name, NOSPLIT, "func(p *byte, n int) uint64")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s returns the xor of the 8-byte words of p[:n] (n a multiple of %d).", name, streamBlock))
	p := Load(Param("p"), GP64())
	n := Load(Param("n"), GP64())
	regs, width := streamRegs(s)
	// One accumulator per register of a round: independent chains, as many loads in flight as
	// the copy has.
	acc := make([]VecVirtual, regs)
	for i := range acc {
		acc[i] = vec(s.lanes)
		if s.lanes == 16 {
			VPXORQ(acc[i], acc[i], acc[i])
		} else {
			VPXOR(acc[i], acc[i], acc[i])
		}
	}
	TESTQ(n, n)
	JZ(LabelRef("fold"))
	Label("loop")
	for i := range acc {
		if s.lanes == 16 {
			VPXORQ(Mem{Base: p, Disp: i * width}, acc[i], acc[i])
		} else {
			VPXOR(Mem{Base: p, Disp: i * width}, acc[i], acc[i])
		}
	}
	ADDQ(U32(streamBlock), p)
	SUBQ(U32(streamBlock), n)
	JNZ(LabelRef("loop"))
	Label("fold")
	for w := len(acc); w > 1; w /= 2 {
		for i := range w / 2 {
			if s.lanes == 16 {
				VPXORQ(acc[i+w/2], acc[i], acc[i])
			} else {
				VPXOR(acc[i+w/2], acc[i], acc[i])
			}
		}
	}
	y := acc[0].AsY()
	if s.lanes == 16 {
		hi := YMM()
		VEXTRACTI64X4(U8(1), acc[0], hi)
		VPXOR(hi, y, y)
	}
	x, hi := acc[0].AsX(), XMM()
	VEXTRACTI128(U8(1), y, hi)
	VPXOR(hi, x, x)
	VPSRLDQ(U8(8), x, hi)
	VPXOR(hi, x, x)
	r := GP64()
	VMOVQ(x, r)
	Store(r, ReturnIndex(0))
	g.retWithColdPaths()
}
