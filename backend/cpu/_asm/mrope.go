package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// mropeGatherKernel emits mropeGatherAVX512, which serves package cpu's mrope.go: a token's
// cos/sin row assembled from the cache rows of its axes' positions, sixteen floats per load and
// masked load where a loop in Go takes one at a time, and stored in the 64-byte pieces the
// rotation kernel then loads.
//
// mropeGatherAVX512(dst, r0, r1, r2, r3 *float32, masks *uint64, chunks int): for each chunk c of
// 16 floats, dst[16c+l] = r_a[16c+l] where a is 0 unless bit l of masks[c]'s 16-bit field a−1
// (bits 16(a−1) ... 16a−1) is set, the later axis winning; a row is read only where its mask is
// set.
func (g *generator) mropeGatherKernel() {
	TEXT("mropeGatherAVX512", NOSPLIT, "func(dst, r0, r1, r2, r3 *float32, masks *uint64, chunks int)")
	Pragma("noescape")
	Doc("mropeGatherAVX512 assembles chunks×16 floats of dst from r0 ... r3 by masks: each chunk's uint64 holds three 16-lane masks, for r1, r2 and r3, over r0.")
	dst := Load(Param("dst"), GP64())
	var r [4]Register
	for i, name := range []string{"r0", "r1", "r2", "r3"} {
		r[i] = Load(Param(name), GP64())
	}
	masks := Load(Param("masks"), GP64())
	n := Load(Param("chunks"), GP64())
	TESTQ(n, n)
	JZ(LabelRef("done"))
	off := GP64()
	XORQ(off, off)
	Label("chunk")
	v := ZMM()
	VMOVUPS(Mem{Base: r[0], Index: off, Scale: 1}, v)
	m := GP64()
	MOVQ(Mem{Base: masks}, m)
	for a := 1; a < 4; a++ {
		k := K()
		KMOVW(m.As32(), k)
		VMOVUPS(Mem{Base: r[a], Index: off, Scale: 1}, k, v) // merge: other lanes keep their axis
		if a < 3 {
			SHRQ(U8(16), m)
		}
	}
	VMOVUPS(v, Mem{Base: dst, Index: off, Scale: 1})
	ADDQ(U8(64), off)
	ADDQ(U8(8), masks)
	DECQ(n)
	JNZ(LabelRef("chunk"))
	Label("done")
	RET()
}
