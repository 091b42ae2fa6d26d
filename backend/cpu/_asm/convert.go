package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// widen and narrow serve package cpu's convert.go (widenBits, narrowBits): the bulk dtype
// conversions of kv_rmsnorm_rope_cache's and qk_rmsnorm_rope's exact paths.

// bulkKernel emits func(dst, src, n int): a loop over n elements (a multiple of 16), 16 per
// round; prepare runs once before the loop, body emits one round at element index i.
func (g *generator) bulkKernel(name, doc, signature string, prepare func(), body func(dst, src, i Register)) {
	TEXT(name, NOSPLIT, signature)
	Pragma("noescape")
	Doc(doc)
	dst := Load(Param("dst"), GP64())
	src := Load(Param("src"), GP64())
	n := Load(Param("n"), GP64())
	i := GP64()
	XORQ(i, i)
	TESTQ(n, n)
	JZ(LabelRef("done"))
	prepare()
	Label("loop")
	body(dst, src, i)
	ADDQ(U32(16), i)
	CMPQ(i, n)
	JB(LabelRef("loop"))
	Label("done")
	g.retWithColdPaths()
}

// widenKernel emits widen<D><ISA>(dst *float32, src *uint16, n int): dst[i] = float32(src[i])
// exactly, n a multiple of 16.
func (g *generator) widenKernel(s isa, d dtype) {
	name := fmt.Sprintf("widen%s%s", d.name, s.name)
	g.fastBF16 = false
	g.bulkKernel(name, fmt.Sprintf("%s widens n (a multiple of 16) %s values to float32.", name, d.name),
		"func(dst *float32, src *uint16, n int)", func() {}, func(dst, src, i Register) {
			for k := 0; k < 16; k += s.lanes {
				v := load(d, s.lanes, Mem{Base: src, Index: i, Scale: 2, Disp: 2 * k})
				VMOVUPS(v, Mem{Base: dst, Index: i, Scale: 4, Disp: 4 * k})
			}
		})
}

// narrowKernel emits narrow<D><ISA>(dst *uint16, src *float32, n int): dst[i] = src[i] rounded
// to nearest even exactly as tensor.BF16FromFloat32 / F16FromFloat32, n a multiple of 16.
func (g *generator) narrowKernel(s isa, d dtype) {
	name := fmt.Sprintf("narrow%s%s", d.name, s.name)
	g.fastBF16 = s == avx512BF16
	var c consts
	g.bulkKernel(name, fmt.Sprintf("%s rounds n (a multiple of 16) float32 values to %s.", name, d.name),
		"func(dst *uint16, src *float32, n int)", func() { c = g.loadConsts(d, false, s.lanes) }, func(dst, src, i Register) {
			for k := 0; k < 16; k += s.lanes {
				v := vec(s.lanes)
				VMOVUPS(Mem{Base: src, Index: i, Scale: 4, Disp: 4 * k}, v)
				g.store(d, s.lanes, c, v, Mem{Base: dst, Index: i, Scale: 2, Disp: 2 * k})
			}
		})
}
