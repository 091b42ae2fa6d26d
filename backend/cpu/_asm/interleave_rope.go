package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
)

// interleaveRoPEKernel emits interleaveRoPE<D><ISA>(x, out *byte, rows, xstride, ostride int,
// cos, sin *byte, n int): interleave_rope (npu_interleave_rope) for `rows` rows of n elements
// (n a multiple of 64), xstride and ostride bytes apart, all rotated by the one cos/sin row of n
// values of d: the formula of kv_rmsnorm_rope_cache's rope part, so kvcRopeLoop's rotation.
// out may be x only when n is 64: a longer row is read a round at a time while earlier rounds'
// results are stored. bf16 on AVX512BF16 (its rounding stores), f32 and f16 on AVX-512.
func (g *generator) interleaveRoPEKernel(s isa, d dtype) {
	name := fmt.Sprintf("interleaveRoPE%s%s", d.name, s.name)
	g.fastBF16 = s == avx512BF16
	TEXT(name, NOSPLIT, "func(x, out *byte, rows, xstride, ostride int, cos, sin *byte, n int)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s rotates `rows` %s rows of interleave_rope (n a multiple of 64) by one cos/sin row.", name, d.name))
	x := Load(Param("x"), GP64())
	out := Load(Param("out"), GP64())
	rows := Load(Param("rows"), GP64())
	xs := Load(Param("xstride"), GP64())
	os := Load(Param("ostride"), GP64())
	cs := Load(Param("cos"), GP64())
	sn := Load(Param("sin"), GP64())
	n := Load(Param("n"), GP64())
	var c consts
	TESTQ(rows, rows)
	JZ(LabelRef("done"))
	Label("row")
	g.kvcRopeLoop(d, c, x, cs, sn, out, n)
	ADDQ(xs, x)
	ADDQ(os, out)
	DECQ(rows)
	JNZ(LabelRef("row"))
	Label("done")
	g.retWithColdPaths()
}
