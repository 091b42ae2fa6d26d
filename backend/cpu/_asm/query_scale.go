package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// query_scale's kernels serve package cpu's query_scale.go: a token's elements times its
// multiplier, in place, in one pass. Each element is widened exactly, multiplied by m in
// float32 (the element the first source, so that a NaN element keeps its payload quieted, as
// the reference's x·m does) and rounded once to the dtype.

// queryScaleUnit is the elements one step of the kernels' loops takes, and queryScaleBlock the
// elements of one round of the unrolled loop: 256 bytes of f32, enough loads in flight to
// stream.
const (
	queryScaleUnit  = 16
	queryScaleBlock = 64
)

func (g *generator) queryScaleKernels() {
	for _, s := range []isa{avx512, avx2} {
		for _, d := range []dtype{f32, bf16, f16} {
			g.queryScaleKernel(s, d)
		}
	}
	g.queryScaleKernel(avx512BF16, bf16)
}

// queryScaleKernel emits queryScale<D><ISA>(x *T, n int, m float32): x[i] = d(float32(x[i]·m))
// for n elements, n a multiple of 16.
func (g *generator) queryScaleKernel(s isa, d dtype) {
	name := fmt.Sprintf("queryScale%s%s", d.name, s.name)
	elem := "uint16"
	if d == f32 {
		elem = "float32"
	}
	g.fastBF16 = s == avx512BF16
	TEXT(name, NOSPLIT, fmt.Sprintf("func(x *%s, n int, m float32)", elem))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s multiplies n (a multiple of %d) %s values by m in place, each product rounded once to %s.", name, queryScaleUnit, d.name, d.name))
	x := Load(Param("x"), GP64())
	n := Load(Param("n"), GP64())
	mv := vec(s.lanes)
	VBROADCASTSS(Load(Param("m"), XMM()), mv)
	c := g.loadConsts(d, false, s.lanes)
	i := GP64()
	XORQ(i, i)
	// Whole blocks first, then the units that remain.
	blocks := GP64()
	MOVQ(n, blocks)
	ANDQ(I32(-queryScaleBlock), blocks)
	JZ(LabelRef("units"))
	Label("block")
	g.queryScaleRound(s, d, c, mv, x, i, queryScaleBlock)
	ADDQ(U32(queryScaleBlock), i)
	CMPQ(i, blocks)
	JB(LabelRef("block"))
	Label("units")
	CMPQ(i, n)
	JAE(LabelRef("done"))
	g.queryScaleRound(s, d, c, mv, x, i, queryScaleUnit)
	ADDQ(U32(queryScaleUnit), i)
	JMP(LabelRef("units"))
	Label("done")
	g.retWithColdPaths()
}

// queryScaleRound scales the `count` elements from index i of x.
func (g *generator) queryScaleRound(s isa, d dtype, c consts, mv VecVirtual, x, i Register, count int) {
	at := func(k int) Mem { return Mem{Base: x, Index: i, Scale: uint8(d.esize), Disp: d.esize * k} }
	product := func(k int) VecVirtual {
		v := load(d, s.lanes, at(k))
		VMULPS(mv, v, v)
		return v
	}
	if g.fastBF16 && d == bf16 {
		// 32 products at a time, one VCVTNE2PS2BF16 and one store (16 on the last unit).
		for k := 0; k < count; k += 32 {
			if count-k < 32 {
				r := product(k)
				g.store(d, s.lanes, c, r, at(k))
				continue
			}
			lo, hi := product(k), product(k+16)
			g.storeBF16Wide(c, lo, hi, at(k))
		}
		return
	}
	for k := 0; k < count; k += s.lanes {
		g.store(d, s.lanes, c, product(k), at(k))
	}
}
