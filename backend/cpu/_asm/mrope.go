package main

import (
	"fmt"

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
	VZEROUPPER() // the Go code after it runs SSE: dirty upper halves slow it on Intel cores
	RET()
}

// mropePairs is the pair count of mropeTokensKernel: rotary dim 128, every Qwen-VL model's.
const mropePairs = 64

// mropeTokensKernel emits rotateMRoPE64<dtype><ISA>, which serves package cpu's mrope.go: the
// token kernel (tokensKernel) at 64 NeoX pairs for a run of tokens whose axes have their own
// positions, each token's cos/sin assembled in the registers that hold it across the heads,
// by mropeGatherKernel's masks, instead of gathered into memory first and loaded back.
//
// rows holds four row pointers per token, its axes' cache rows ([cos | sin], 128 floats; the
// fourth is read only where axes is 4); masks are the layout's eight chunk masks.
func (g *generator) mropeTokensKernel(s isa, d dtype) {
	name := fmt.Sprintf("rotateMRoPE%d%s%s", mropePairs, d.name, s.name)
	g.fastBF16 = s == avx512BF16
	TEXT(name, NOSPLIT, "func(x *byte, heads, stride, step int, x2 *byte, heads2, stride2, step2 int, rows **float32, tokens int, masks *uint64, axes int)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s rotates the first %d pairs of every %s head of `tokens` tokens of two tensors in place, NeoX style, token t by the cos/sin its axes' rows rows[4t:4t+4] give by masks.", name, mropePairs, d.name))
	tokens := Load(Param("tokens"), GP64())
	TESTQ(tokens, tokens)
	JZ(LabelRef("done"))
	c := g.loadConsts(d, false, s.lanes)
	var cr, sr []VecVirtual
	g.tokenLoop(func(tok Mem) {
		// Once for both tensors: the rotation only reads them.
		cr, sr = g.mropeRowRegs(tok)
	}, func(x, heads, stride Register) {
		x2, hf := GP64(), GP64()
		MOVQ(U32(mropePairs), hf)
		g.neoxRegsHeads(d, c, x, x2, heads, stride, hf, mropePairs, cr, sr)
	})
	Label("done")
	g.retWithColdPaths()
}

// mropeRowRegs loads token tok's cos and sin (four and four 16-pair registers) from its axes'
// rows: chunk j of the [cos | sin] row from axis 0's row, merged with each later axis's row
// where mask j selects it, the later axis winning, as mropeGatherAVX512 stores it.
func (g *generator) mropeRowRegs(tok Mem) (cr, sr []VecVirtual) {
	p := GP64()
	MOVQ(tok, p)
	SHLQ(U8(5), p) // four pointers a token
	ADDQ(Load(Param("rows"), GP64()), p)
	var r [4]Register
	for a := range r {
		r[a] = GP64()
		MOVQ(Mem{Base: p, Disp: 8 * a}, r[a])
	}
	masks := Load(Param("masks"), GP64())
	v := make([]VecVirtual, 2*mropePairs/16)
	for j := range v {
		v[j] = ZMM()
		VMOVUPS(Mem{Base: r[0], Disp: 64 * j}, v[j])
		m := GP64()
		MOVQ(Mem{Base: masks, Disp: 8 * j}, m)
		for a := 1; a < 3; a++ {
			k := K()
			KMOVW(m.As32(), k)
			VMOVUPS(Mem{Base: r[a], Disp: 64 * j}, k, v[j])
			if a == 1 {
				SHRQ(U8(16), m)
			}
		}
	}
	// The fourth axis (GGUF's MRoPE) in a separate pass: a three-axis layout's masks select none.
	skip := g.newLabel("threeAxes")
	CMPQ(Load(Param("axes"), GP64()), U8(4))
	JNE(LabelRef(skip))
	for j := range v {
		m := GP64()
		MOVQ(Mem{Base: masks, Disp: 8 * j}, m)
		SHRQ(U8(32), m)
		k := K()
		KMOVW(m.As32(), k)
		VMOVUPS(Mem{Base: r[3], Disp: 64 * j}, k, v[j])
	}
	Label(skip)
	return v[:len(v)/2], v[len(v)/2:]
}
