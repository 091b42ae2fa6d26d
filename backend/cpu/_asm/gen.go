// Command _asm generates the AVX-512 and AVX2 rotation kernels of package cpu:
//
//	cd backend/cpu/_asm && go run . -out ../rotate_amd64.s -stubs ../rotate_amd64_stubs.go
//
// Every kernel keeps the reference's order of operations (in the rotations each product rounded
// to float32, then one add or subtract, never an FMA; the norms' sums of squares are fused
// multiply-adds because ops.SumSquares defines them so), so it matches backend/native bit for bit.
package main

import (
	"flag"
	"fmt"
	"os"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

type dtype struct {
	name  string
	esize int // bytes per element in memory
}

var (
	f32  = dtype{"F32", 4}
	bf16 = dtype{"BF16", 2}
	f16  = dtype{"F16", 2}
)

type isa struct {
	name  string
	lanes int // float32 lanes of the widest vector
}

var (
	avx512     = isa{"AVX512", 16}
	avx512BF16 = isa{"AVX512BF16", 16} // AVX-512 plus VCVTNEPS2BF16 for the bf16 stores
	avx2       = isa{"AVX2", 8}
)

// fastBF16 is set while emitting an AVX512BF16 kernel.
var fastBF16 bool

// coldPaths are emitted after the function's RET: rarely taken code kept out of the loops'
// straight line, each ending in a jump back.
var coldPaths []func()

// retWithColdPaths ends a kernel: VZEROUPPER and RET, then its cold paths.
func retWithColdPaths() {
	VZEROUPPER()
	RET()
	for _, f := range coldPaths {
		f()
	}
	coldPaths = nil
}

// labels makes block-local label names unique within a function.
var labels int

func newLabel(prefix string) string {
	labels++
	return fmt.Sprintf("%s%d", prefix, labels)
}

// consts are broadcast constants, loaded once per kernel.
type consts struct {
	one, bias, absMask, inf, quiet VecVirtual // bf16 rounding
	expMask                        VecVirtual // exponent bits: zero exponent means zero or subnormal
	sign                           VecVirtual // sign bit on even lanes (GPT-J)
	dupIdx                         VecVirtual // [0,0,1,1,...] (GPT-J)
}

var (
	cOne, cBias, cAbs, cInf, cQuiet, cSign Mem
	cExp                                   Mem
	cDup16                                 Mem
	cHiMask, cQuiet32, cOneF64             Mem
	cMinNormalW, cTinyTrig, cBigExpW       Mem
	cEvenIdx, cOddIdx                      Mem
)

func declareConsts() {
	cOne = ConstData("one", U32(1))
	cBias = ConstData("bias", U32(0x7fff))
	cAbs = ConstData("absmask", U32(0x7fffffff))
	cInf = ConstData("inf", U32(0x7f800000))
	cQuiet = ConstData("quiet", U32(0x40))
	cExp = ConstData("expmask", U32(0x7f800000))
	cHiMask = ConstData("himask", U32(0xffff0000))
	cMinNormalW = ConstData("minnormalw", U32(0x01000100)) // bf16 words doubled: below it, zero or subnormal
	cTinyTrig = ConstData("tinytrig", U32(0x2bffffff))     // float32 bits of 2^-39, less one
	cBigExpW = ConstData("bigexpw", U32(0x60006000))       // bf16 exponent bits 6 and 7: set means ≥ 2^-63
	cQuiet32 = ConstData("quiet32", U32(0x00400000))
	cOneF64 = ConstData("onef64", U64(0x3ff0000000000000)) // 1.0 (avo writes F64(1) as the integer 1)
	var sign, dup [16]int
	for i := range 16 {
		if i%2 == 0 {
			sign[i] = 0x80000000
		}
		dup[i] = i / 2
	}
	cSign = dwordTable("evensign", sign)
	cDup16 = dwordTable("dupidx", dup)
	// A pair of registers' worth of elements deinterleaved: the even ones, then the odd ones.
	cEvenIdx, cOddIdx = dwordTable("evenidx", qkL0.e), dwordTable("oddidx", qkL0.o)
}

// vec returns a new vector register of the given width in lanes.
func vec(lanes int) VecVirtual {
	if lanes == 16 {
		return ZMM()
	}
	return YMM()
}

func half(v VecVirtual, lanes int) Op {
	if lanes == 16 {
		return v.AsY()
	}
	return v.AsX()
}

func loadConsts(d dtype, gptj bool, lanes int) consts {
	var c consts
	bcast := func(m Mem) VecVirtual {
		v := vec(lanes)
		VPBROADCASTD(m, v)
		return v
	}
	if d == bf16 {
		c.one, c.bias, c.absMask, c.inf, c.quiet = bcast(cOne), bcast(cBias), bcast(cAbs), bcast(cInf), bcast(cQuiet)
		if fastBF16 {
			c.expMask = bcast(cExp)
		}
	}
	if gptj {
		c.sign = vec(lanes)
		c.dupIdx = vec(lanes)
		if lanes == 16 {
			VMOVDQU32(cSign, c.sign)
			VMOVDQU32(cDup16, c.dupIdx)
		} else {
			VMOVDQU(cSign, c.sign)
			VMOVDQU(cDup16, c.dupIdx)
		}
	}
	return c
}

// load widens `lanes` elements at m to float32.
func load(d dtype, lanes int, m Mem) VecVirtual {
	v := vec(lanes)
	switch d {
	case f32:
		VMOVUPS(m, v)
	case bf16:
		VPMOVZXWD(m, v)
		VPSLLD(U8(16), v, v)
	case f16:
		VCVTPH2PS(m, v)
	}
	return v
}

// fit views a broadcast constant at the block's width (an AVX-512 kernel's 8-lane blocks use the
// low halves of its 16-lane constants).
func fit(v VecVirtual, lanes int) Register {
	if lanes == 8 {
		return v.AsY()
	}
	return v.AsZ()
}

// store rounds v to d (nearest even) and writes it to m.
func store(d dtype, lanes int, c consts, v VecVirtual, m Mem) {
	switch d {
	case f32:
		VMOVUPS(v, m)
	case f16:
		VCVTPS2PH(U8(0), v, m)
	case bf16:
		if fastBF16 && lanes == 16 {
			// VCVTNEPS2BF16 rounds to nearest even and quiets NaNs exactly as the reference,
			// but flushes subnormal inputs to zero: a vector with any zero-exponent lane takes
			// the integer path below instead.
			r := YMM()
			cvtNEPS2BF16(v, r)
			k := K()
			VPTESTNMD(fit(c.expMask, lanes), v, k)
			KORTESTW(k, k)
			slow, done := newLabel("bf16slow"), newLabel("bf16done")
			JNZ(LabelRef(slow))
			VMOVDQU32(r, m)
			JMP(LabelRef(done))
			Label(slow)
			storeBF16Int(lanes, c, v, m)
			Label(done)
			return
		}
		storeBF16Int(lanes, c, v, m)
	}
}

// storeBF16Int rounds with integer arithmetic:
// r = (v + 0x7fff + ((v >> 16) & 1)) >> 16; NaN → (v >> 16) | 0x40.
func storeBF16Int(lanes int, c consts, v Register, m Mem) {
	{
		t, nan := vec(lanes), vec(lanes)
		VPSRLD(U8(16), v, t)
		VPSRLD(U8(16), v, nan)
		if lanes == 16 {
			VPANDD(fit(c.one, lanes), t, t)
			VPADDD(v, t, t)
			VPADDD(fit(c.bias, lanes), t, t)
			VPSRLD(U8(16), t, t)
			VPORD(fit(c.quiet, lanes), nan, nan)
			abs := vec(lanes)
			VPANDD(fit(c.absMask, lanes), v, abs)
			k := K()
			VPCMPGTD(fit(c.inf, lanes), abs, k)
			VPBLENDMD(nan, t, k, t)
			VPMOVDW(t, m)
		} else {
			VPAND(fit(c.one, lanes), t, t)
			VPADDD(v, t, t)
			VPADDD(fit(c.bias, lanes), t, t)
			VPSRLD(U8(16), t, t)
			VPOR(fit(c.quiet, lanes), nan, nan)
			abs := vec(lanes)
			VPAND(fit(c.absMask, lanes), v, abs)
			VPCMPGTD(fit(c.inf, lanes), abs, abs)
			VPBLENDVB(abs, nan, t, t)
			VPACKUSDW(t, t, t)
			VPERMQ(U8(0x08), t, t)
			VMOVDQU(t.AsX(), m)
		}
	}
}

// neoxBlock rotates `lanes` pairs at pair index i: x1 at x+i, x2 at x+half+i.
// With full rows (cs2, sn2 non-nil: apply_rotary_emb's per-element cos/sin) the second element
// of each pair uses the second halves: o2 = b·c2 + a·s2.
func neoxBlock(d dtype, lanes int, c consts, x, x2, cs, sn, cs2, sn2, i Register) {
	cv, sv := vec(lanes), vec(lanes)
	VMOVUPS(Mem{Base: cs, Index: i, Scale: 4}, cv)
	VMOVUPS(Mem{Base: sn, Index: i, Scale: 4}, sv)
	cv2, sv2 := cv, sv
	if cs2 != nil {
		cv2, sv2 = vec(lanes), vec(lanes)
		VMOVUPS(Mem{Base: cs2, Index: i, Scale: 4}, cv2)
		VMOVUPS(Mem{Base: sn2, Index: i, Scale: 4}, sv2)
	}
	m1, m2 := Mem{Base: x, Index: i, Scale: uint8(d.esize)}, Mem{Base: x2, Index: i, Scale: uint8(d.esize)}
	neoxRotate(d, lanes, c, cv, sv, cv2, sv2, m1, m2)
}

// neoxRotate rotates the pairs (m1[k], m2[k]) by cos/sin vectors already in registers.
func neoxRotate(d dtype, lanes int, c consts, cv, sv, cv2, sv2 VecVirtual, m1, m2 Mem) {
	a := load(d, lanes, m1)
	b := load(d, lanes, m2)
	ac, bs, bc, as := vec(lanes), vec(lanes), vec(lanes), vec(lanes)
	VMULPS(cv, a, ac)
	VMULPS(sv, b, bs)
	VMULPS(cv2, b, bc)
	VMULPS(sv2, a, as)
	VSUBPS(bs, ac, ac) // o1 = a·c − b·s
	VADDPS(as, bc, bc) // o2 = b·c + a·s
	if d == bf16 && fastBF16 && lanes == 16 {
		storeBF16Pair(c, ac, bc, m1, m2) // one test covers both for the subnormal fallback
		return
	}
	store(d, lanes, c, ac, m1)
	store(d, lanes, c, bc, m2)
}

// neoxRotateBF16x2 rotates 32 consecutive pairs (two blocks, each with its cos/sin registers):
// first halves at m1, second halves at m2, bf16.
func neoxRotateBF16x2(c consts, c0, s0, c1, s1 VecVirtual, m1, m2 Mem) {
	next := func(m Mem) Mem { m.Disp += 32; return m }
	a0, a1 := load(bf16, 16, m1), load(bf16, 16, next(m1))
	b0, b1 := load(bf16, 16, m2), load(bf16, 16, next(m2))
	p, q := vec(16), vec(16)
	// First halves: o1 = a·c − b·s.
	f0, f1 := vec(16), vec(16)
	VMULPS(c0, a0, p)
	VMULPS(s0, b0, q)
	VSUBPS(q, p, f0)
	VMULPS(c1, a1, p)
	VMULPS(s1, b1, q)
	VSUBPS(q, p, f1)
	// Second halves: o2 = b·c + a·s, kept until the first halves are stored.
	o0, o1 := vec(16), vec(16)
	VMULPS(c0, b0, o0)
	VMULPS(s0, a0, q)
	VADDPS(q, o0, o0)
	VMULPS(c1, b1, o1)
	VMULPS(s1, a1, q)
	VADDPS(q, o1, o1)
	storeBF16Wide(c, f0, f1, m1)
	storeBF16Wide(c, o0, o1, m2)
}

// storeBF16Wide stores lo (16 values) then hi (the next 16) as 32 bf16 at m: one
// VCVTNE2PS2BF16 and one store, unless a lane has a zero exponent (the instruction flushes
// subnormals), then the integer path.
func storeBF16Wide(c consts, lo, hi VecVirtual, m Mem) {
	k1, k2 := K(), K()
	VPTESTNMD(c.expMask, lo, k1)
	VPTESTNMD(c.expMask, hi, k2)
	KORTESTW(k1, k2)
	slow, done := newLabel("bf16wslow"), newLabel("bf16wdone")
	JNZ(LabelRef(slow))
	w := ZMM()
	cvtNE2PS2BF16(hi, lo, w)
	VMOVDQU16(w, m)
	Label(done)
	mhi := m
	mhi.Disp += 32
	coldPaths = append(coldPaths, func() {
		Label(slow)
		c := coldConsts(c)
		storeBF16Int(16, c, lo, m)
		storeBF16Int(16, c, hi, mhi)
		JMP(LabelRef(done))
	})
}

// coldConsts returns c, with the integer rounding's constants broadcast here when c does not
// hold them (kernels that keep their registers for data load them only on the cold path).
func coldConsts(c consts) consts {
	if c.one == nil {
		e := c.expMask
		c = loadConsts(bf16, false, 16)
		c.expMask = e
	}
	return c
}

// storeBF16Pair stores a at m1 and b at m2 as bf16: VCVTNEPS2BF16 unless a lane of either
// has a zero exponent (zero or subnormal, which the instruction flushes), then the integer path.
func storeBF16Pair(c consts, a, b VecVirtual, m1, m2 Mem) {
	k1, k2 := K(), K()
	VPTESTNMD(c.expMask, a, k1)
	VPTESTNMD(c.expMask, b, k2)
	KORTESTW(k1, k2)
	slow, done := newLabel("bf16slow"), newLabel("bf16done")
	JNZ(LabelRef(slow))
	for _, p := range []struct {
		v VecVirtual
		m Mem
	}{{a, m1}, {b, m2}} {
		r := YMM()
		cvtNEPS2BF16(p.v, r)
		VMOVDQU32(r, p.m)
	}
	Label(done)
	coldPaths = append(coldPaths, func() {
		Label(slow)
		storeBF16Int(16, c, a, m1)
		storeBF16Int(16, c, b, m2)
		JMP(LabelRef(done))
	})
}

// gptjBlock rotates lanes/2 pairs starting at pair index i (elements 2i ...).
// With full rows (per-element cos/sin) the rows are read at the element index instead of being
// duplicated per pair.
func gptjBlock(d dtype, lanes int, c consts, x, cs, sn, i, e Register, full bool) {
	cv, sv := vec(lanes), vec(lanes)
	if full {
		VMOVUPS(Mem{Base: cs, Index: e, Scale: 4}, cv)
		VMOVUPS(Mem{Base: sn, Index: e, Scale: 4}, sv)
	} else {
		VMOVUPS(Mem{Base: cs, Index: i, Scale: 4}, half(cv, lanes))
		VMOVUPS(Mem{Base: sn, Index: i, Scale: 4}, half(sv, lanes))
		VPERMPS(cv, fit(c.dupIdx, lanes), cv) // [c0 c0 c1 c1 ...]
		VPERMPS(sv, fit(c.dupIdx, lanes), sv)
	}
	VXORPS(fit(c.sign, lanes), sv, sv) // [−s0 s0 −s1 s1 ...]
	// e = 2i is the element index of the block.
	a := load(d, lanes, Mem{Base: x, Index: e, Scale: uint8(d.esize)})
	sw := vec(lanes)
	VPERMILPS(U8(0xB1), a, sw) // [x1 x0 x3 x2 ...]
	ac, ss := vec(lanes), vec(lanes)
	VMULPS(cv, a, ac)
	VMULPS(sv, sw, ss)
	VADDPS(ss, ac, ac) // even: x0·c − x1·s; odd: x1·c + x0·s
	store(d, lanes, c, ac, Mem{Base: x, Index: e, Scale: uint8(d.esize)})
}

// kernel emits one function: rotate the first n pairs (n a multiple of 8) of each of `heads`
// heads, `stride` bytes apart, starting at x; cos and sin hold the token's float32 rows.
// With full set, cos and sin are full-width rows (2·half values: apply_rotary_emb's per-element
// factors) instead of one value per pair.
func kernel(s isa, d dtype, gptj, full bool) {
	style := "NeoX"
	if gptj {
		style = "GPTJ"
	}
	prefix := "rotate"
	if full {
		prefix = "rotateFull"
	}
	name := fmt.Sprintf("%s%s%s%s", prefix, style, d.name, s.name)
	fastBF16 = s == avx512BF16
	TEXT(name, NOSPLIT, "func(x *byte, heads, stride int, cos, sin *float32, half, n int)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s rotates the first n pairs (n a multiple of 8) of `heads` %s heads in place, %s style.", name, d.name, style))
	x := Load(Param("x"), GP64())
	heads := Load(Param("heads"), GP64())
	stride := Load(Param("stride"), GP64())
	cs := Load(Param("cos"), GP64())
	sn := Load(Param("sin"), GP64())
	hf := Load(Param("half"), GP64())
	n := Load(Param("n"), GP64())
	TESTQ(n, n)
	JZ(LabelRef("done"))
	TESTQ(heads, heads)
	JZ(LabelRef("done"))
	c := loadConsts(d, gptj, s.lanes)
	var cs2, sn2 Register
	if full && !gptj {
		// The second halves of the rows.
		cs2, sn2 = GP64(), GP64()
		LEAQ(Mem{Base: cs, Index: hf, Scale: 4}, cs2)
		LEAQ(Mem{Base: sn, Index: hf, Scale: 4}, sn2)
	}
	x2 := GP64()
	i := GP64()
	e := GP64()
	if s.lanes == 16 && !gptj && !full {
		// Decode fast path for 64 pairs (rotary dim 128, the common case): the token's cos and
		// sin stay in registers across all heads instead of being reloaded per head.
		CMPQ(n, U32(64))
		JNE(LabelRef("head"))
		var cr, sr [4]VecVirtual
		for k := range cr {
			cr[k], sr[k] = ZMM(), ZMM()
			VMOVUPS(Mem{Base: cs, Disp: 64 * k}, cr[k])
			VMOVUPS(Mem{Base: sn, Disp: 64 * k}, sr[k])
		}
		Label("regsHead")
		MOVQ(hf, x2)
		SHLQ(U8(log2(d.esize)), x2)
		ADDQ(x, x2)
		if d == bf16 && fastBF16 {
			// Two 16-pair blocks at a time: their outputs are adjacent in memory, so one
			// VCVTNE2PS2BF16 and one 64-byte store serve both.
			for k := 0; k < len(cr); k += 2 {
				off := 16 * k * d.esize
				neoxRotateBF16x2(c, cr[k], sr[k], cr[k+1], sr[k+1], Mem{Base: x, Disp: off}, Mem{Base: x2, Disp: off})
			}
		} else {
			for k := range cr {
				off := 16 * k * d.esize
				neoxRotate(d, 16, c, cr[k], sr[k], cr[k], sr[k], Mem{Base: x, Disp: off}, Mem{Base: x2, Disp: off})
			}
		}
		ADDQ(stride, x)
		DECQ(heads)
		JNZ(LabelRef("regsHead"))
		JMP(LabelRef("done"))
	}
	Label("head")
	XORQ(i, i)
	if !gptj {
		// x2 = x + half·esize: the second element of each pair.
		MOVQ(hf, x2)
		SHLQ(U8(log2(d.esize)), x2)
		ADDQ(x, x2)
		if s.lanes == 16 {
			Label("wide")
			MOVQ(i, e)
			ADDQ(U32(16), e)
			CMPQ(e, n)
			JA(LabelRef("narrow"))
			neoxBlock(d, 16, c, x, x2, cs, sn, cs2, sn2, i)
			ADDQ(U32(16), i)
			JMP(LabelRef("wide"))
			Label("narrow")
			CMPQ(i, n)
			JAE(LabelRef("next"))
		} else {
			Label("narrow")
		}
		neoxBlock(d, 8, c, x, x2, cs, sn, cs2, sn2, i)
		ADDQ(U32(8), i)
		CMPQ(i, n)
		JB(LabelRef("narrow"))
	} else {
		step := s.lanes / 2
		Label("pairs")
		MOVQ(i, e)
		SHLQ(U8(1), e)
		gptjBlock(d, s.lanes, c, x, cs, sn, i, e, full)
		ADDQ(U32(step), i)
		CMPQ(i, n)
		JB(LabelRef("pairs"))
	}
	Label("next")
	ADDQ(stride, x)
	DECQ(heads)
	JNZ(LabelRef("head"))
	Label("done")
	retWithColdPaths()
}

func log2(v int) int {
	n := 0
	for v > 1 {
		v >>= 1
		n++
	}
	return n
}

func main() {
	// No Package(): loading the package with avo's old x/tools panics under Go 1.26; the
	// stubs' package clause is fixed up by the go:generate line instead.
	ConstraintExpr("amd64,!purego")
	declareConsts()
	for _, full := range []bool{false, true} {
		for _, s := range []isa{avx512, avx2} {
			for _, d := range []dtype{f32, bf16, f16} {
				for _, gptj := range []bool{false, true} {
					kernel(s, d, gptj, full)
				}
			}
		}
		for _, gptj := range []bool{false, true} {
			kernel(avx512BF16, bf16, gptj, full)
		}
	}
	// kv_rmsnorm_rope_cache's building blocks.
	for _, s := range []isa{avx512, avx2} {
		for _, d := range []dtype{bf16, f16} {
			widenKernel(s, d)
			narrowKernel(s, d)
		}
	}
	narrowKernel(avx512BF16, bf16)
	kvcNormKernel()
	kvcTokenKernel(avx512, f32)
	kvcTokenKernel(avx512, f16)
	kvcTokenKernel(avx512BF16, bf16)
	interleaveRoPEKernel(avx512, f32)
	interleaveRoPEKernel(avx512, f16)
	interleaveRoPEKernel(avx512BF16, bf16)
	fastBF16 = true
	kvcGroupBF16Kernel()
	kvcGammaSplitKernel()
	for _, s := range []isa{avx512, avx512BF16} {
		for _, d := range []dtype{f32, bf16, f16} {
			if s == avx512BF16 && d != bf16 {
				continue
			}
			qkNormKernel(s, d)
		}
	}
	// (Plain AVX-512's bf16 integer rounding needs seven constant registers: with two heads'
	// sixteen there are not enough, and bf16 there takes the norm kernel and the rotation.)
	qkNormRoPEKernel(avx512, f32)
	qkNormRoPEKernel(avx512, f16)
	qkWeightBF16Kernel()
	qkNormRoPEBF16Kernel()
	Generate()
	if out := flag.Lookup("out").Value.String(); out != "" && out != "-" {
		if err := encodeBF16(out); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

// bulkKernel emits func(dst, src, n int): a loop over n elements (a multiple of 16), 16 per
// round; prepare runs once before the loop, body emits one round at element index i.
func bulkKernel(name, doc, signature string, prepare func(), body func(dst, src, i Register)) {
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
	retWithColdPaths()
}

// widenKernel emits widen<D><ISA>(dst *float32, src *uint16, n int): dst[i] = float32(src[i])
// exactly, n a multiple of 16.
func widenKernel(s isa, d dtype) {
	name := fmt.Sprintf("widen%s%s", d.name, s.name)
	fastBF16 = false
	bulkKernel(name, fmt.Sprintf("%s widens n (a multiple of 16) %s values to float32.", name, d.name),
		"func(dst *float32, src *uint16, n int)", func() {}, func(dst, src, i Register) {
			for k := 0; k < 16; k += s.lanes {
				v := load(d, s.lanes, Mem{Base: src, Index: i, Scale: 2, Disp: 2 * k})
				VMOVUPS(v, Mem{Base: dst, Index: i, Scale: 4, Disp: 4 * k})
			}
		})
}

// narrowKernel emits narrow<D><ISA>(dst *uint16, src *float32, n int): dst[i] = src[i] rounded
// to nearest even exactly as tensor.BF16FromFloat32 / F16FromFloat32, n a multiple of 16.
func narrowKernel(s isa, d dtype) {
	name := fmt.Sprintf("narrow%s%s", d.name, s.name)
	fastBF16 = s == avx512BF16
	var c consts
	bulkKernel(name, fmt.Sprintf("%s rounds n (a multiple of 16) float32 values to %s.", name, d.name),
		"func(dst *uint16, src *float32, n int)", func() { c = loadConsts(d, false, s.lanes) }, func(dst, src, i Register) {
			for k := 0; k < 16; k += s.lanes {
				v := vec(s.lanes)
				VMOVUPS(Mem{Base: src, Index: i, Scale: 4, Disp: 4 * k}, v)
				store(d, s.lanes, c, v, Mem{Base: dst, Index: i, Scale: 2, Disp: 2 * k})
			}
		})
}

// sumSquaresLoop emits ops.SumSquares of the n (a multiple of 16) elements of dtype d at x and
// returns it in the low lane of an xmm: elements j..j+31 go to the lanes 0..31, 32 at a time,
// then a last 16. bf16 loads deinterleaved, a 32-element block's even elements in one register
// and its odd ones in the other (one instruction each instead of two widenings); the lanes are
// the same, only held in another order, which sumTree's interleaved form adds up.
func sumSquaresLoop(d dtype, x, n Register) VecVirtual {
	i, end := GP64(), GP64()
	MOVQ(n, end)
	ANDQ(I8(-32), end)
	acc := [2]VecVirtual{ZMM(), ZMM()}
	VXORPS(acc[0], acc[0], acc[0])
	VXORPS(acc[1], acc[1], acc[1])
	var hiMask VecVirtual
	if d == bf16 {
		hiMask = ZMM()
		VPBROADCASTD(cHiMask, hiMask)
	}
	XORQ(i, i)
	sum, tail, done := newLabel("sum"), newLabel("sumtail"), newLabel("sumdone")
	block := func(tail bool) {
		m := Mem{Base: x, Index: i, Scale: uint8(d.esize)}
		if d != bf16 {
			accSquares(load(d, 16, m), acc[0])
			if !tail {
				m.Disp = 16 * d.esize
				accSquares(load(d, 16, m), acc[1])
			}
			return
		}
		ev, od := ZMM(), ZMM()
		if tail {
			// 16 elements: a ymm load leaves the upper lanes zero, which add nothing.
			VMOVDQU16(m, od.AsY())
			VPSLLD(U8(16), od, ev)
			VPANDD(hiMask, od, od)
		} else {
			VPSLLD(U8(16), m, ev)
			VPANDD(m, hiMask, od)
		}
		accSquares(ev, acc[0])
		accSquares(od, acc[1])
	}
	TESTQ(end, end)
	JZ(LabelRef(tail))
	Label(sum)
	block(false)
	ADDQ(U32(32), i)
	CMPQ(i, end)
	JB(LabelRef(sum))
	Label(tail)
	CMPQ(i, n)
	JAE(LabelRef(done))
	block(true)
	Label(done)
	if d == bf16 {
		// Lane 2l in acc[0], 2l+1 in acc[1]: the first step adds the neighbours.
		VADDPS(acc[1], acc[0], acc[0])
		return sumTree(acc[0], true)
	}
	return sumLanes(acc[0], acc[1])
}

// kvcNormKernel emits kvcNormAVX512(y, x, gamma *float32, n int, eps float32): kv_rmsnorm_rope_cache's
// RMSNorm of one widened row, r = ops.RMSNormScale(ops.SumSquares(x), n, eps), then
// y_j = float32(float32(x_j·r)·g_j); n a multiple of 16.
func kvcNormKernel() {
	TEXT("kvcNormAVX512", NOSPLIT, "func(y, x, gamma *float32, n int, eps float32)")
	Pragma("noescape")
	Doc("kvcNormAVX512 writes the RMSNorm of the n (a multiple of 16) float32 values at x, times gamma, to y, as kv_rmsnorm_rope_cache does.")
	y := Load(Param("y"), GP64())
	x := Load(Param("x"), GP64())
	g := Load(Param("gamma"), GP64())
	n := Load(Param("n"), GP64())
	eps := Load(Param("eps"), XMM())
	TESTQ(n, n)
	JZ(LabelRef("done"))
	nF, oneD := rmsConsts(n)
	rz := rmsScale(sumSquaresLoop(f32, x, n), nF, oneD, eps)
	i := GP64()
	XORQ(i, i)
	Label("scale")
	v := ZMM()
	VMOVUPS(Mem{Base: x, Index: i, Scale: 4}, v)
	VMULPS(rz, v, v) // x·r, x the first operand (its NaN wins, as in the reference)
	VMULPS(Mem{Base: g, Index: i, Scale: 4}, v, v)
	VMOVUPS(v, Mem{Base: y, Index: i, Scale: 4})
	ADDQ(U32(16), i)
	CMPQ(i, n)
	JB(LabelRef("scale"))
	Label("done")
	VZEROUPPER()
	RET()
}

// kvcTokenKernel emits kvcToken<D><ISA>(ckv, krope, kv, cos, sin *byte, gamma *float32, dv, dk int,
// eps float32): kv_rmsnorm_rope_cache for one token whose results go to contiguous rows, in the
// reference's arithmetic (backend/native): ckv[0:dv] = the RMSNorm of kv[0:dv] times gamma
// (kvcNormKernel's), krope[0:dk] = the rotation of kv's interleaved pairs from dv on,
// de-interleaved: y_i = x_2i·c_i − x_2i+1·s_i, y_h+i = x_2i+1·c_h+i + x_2i·s_h+i (h = dk/2),
// each product rounded, then one rounding to d. dv a multiple of 32, dk of 64; bf16 on
// AVX512BF16 (its rounding stores), f32 and f16 on AVX-512.
func kvcTokenKernel(s isa, d dtype) {
	name := fmt.Sprintf("kvcToken%s%s", d.name, s.name)
	fastBF16 = s == avx512BF16
	TEXT(name, NOSPLIT, "func(ckv, krope, kv, cos, sin *byte, gamma *float32, dv, dk int, eps float32)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s normalizes, rotates and stores one %s token of kv_rmsnorm_rope_cache (dv a multiple of 32, dk of 64).", name, d.name))
	ckv := Load(Param("ckv"), GP64())
	krope := Load(Param("krope"), GP64())
	kv := Load(Param("kv"), GP64())
	cs := Load(Param("cos"), GP64())
	sn := Load(Param("sin"), GP64())
	g := Load(Param("gamma"), GP64())
	dv := Load(Param("dv"), GP64())
	dk := Load(Param("dk"), GP64())
	eps := Load(Param("eps"), XMM())
	var c consts
	if d == bf16 {
		c.expMask = ZMM()
		VPBROADCASTD(cExp, c.expMask)
	}
	es := uint8(d.esize)

	// The sum of squares first, then the rotation, which does not depend on it and so runs while
	// the sum's chains and the square root complete, then the norm's scaling and stores.
	// RMSNorm of kv[0:dv] into ckv, 32 values a round (a bf16 rounding store's width).
	nF, oneD := rmsConsts(dv)
	sum := sumSquaresLoop(d, kv, dv)
	// The rotation, from kv's rope part r = kv + dv.
	r := GP64()
	LEAQ(Mem{Base: kv, Index: dv, Scale: es}, r)
	kvcRopeLoop(d, c, r, cs, sn, krope, dk)
	rz := rmsScale(sum, nF, oneD, eps)
	j := GP64()
	XORQ(j, j)
	Label("norm")
	{
		v := [2]VecVirtual{}
		for h := range v {
			v[h] = load(d, 16, Mem{Base: kv, Index: j, Scale: es, Disp: 16 * h * d.esize})
			VMULPS(rz, v[h], v[h]) // x·r, x first (its NaN wins, as in the reference)
			VMULPS(Mem{Base: g, Index: j, Scale: 4, Disp: 64 * h}, v[h], v[h])
		}
		kvcStore32(d, c, v, Mem{Base: ckv, Index: j, Scale: es})
	}
	ADDQ(U32(32), j)
	CMPQ(j, dv)
	JB(LabelRef("norm"))

	retWithColdPaths()
}

// kvcRopeLoop emits kv_rmsnorm_rope_cache's rotation of one token: the dk/2 interleaved pairs
// at r (dtype d) rotated by the dk values at cs and sn into de-interleaved krope,
// y_i = x_2i·c_i − x_2i+1·s_i, y_h+i = x_2i+1·c_h+i + x_2i·s_h+i (h = dk/2, a multiple of 32),
// each product rounded, then one rounding to d. 32 pairs a round.
func kvcRopeLoop(d dtype, c consts, r, cs, sn, krope, dk Register) {
	es := uint8(d.esize)
	rope := newLabel("rope")
	h := GP64()
	MOVQ(dk, h)
	SHRQ(U8(1), h)
	var hiMask, evenIdx, oddIdx VecVirtual
	if d == bf16 {
		hiMask = ZMM()
		VPBROADCASTD(cHiMask, hiMask)
	} else {
		evenIdx, oddIdx = ZMM(), ZMM()
		VMOVDQU32(cEvenIdx, evenIdx)
		VMOVDQU32(cOddIdx, oddIdx)
	}
	i, e := GP64(), GP64()
	XORQ(i, i)
	Label(rope)
	var y1, y2 [2]VecVirtual
	for blk := range 2 {
		// x1 = the pairs' first elements, x2 the second, of pairs i+16·blk ...: elements
		// 2i+32·blk ... of r.
		LEAQ(Mem{Base: i, Index: i, Scale: 1, Disp: 32 * blk}, e)
		x1, x2 := ZMM(), ZMM()
		if d == bf16 {
			// A bf16 pair is one dword: its first element the low half, the second the high.
			p := ZMM()
			VMOVDQU32(Mem{Base: r, Index: e, Scale: es}, p)
			VPSLLD(U8(16), p, x1)
			VPANDD(hiMask, p, x2)
		} else {
			a := load(d, 16, Mem{Base: r, Index: e, Scale: es})
			b := load(d, 16, Mem{Base: r, Index: e, Scale: es, Disp: 16 * d.esize})
			VMOVAPS(a, x1)
			VPERMT2PS(b, evenIdx, x1)
			VPERMT2PS(b, oddIdx, a)
			x2 = a
		}
		at := func(base Register, off Register, k int) Mem {
			return Mem{Base: base, Index: off, Scale: es, Disp: (16*blk + k) * d.esize}
		}
		c1, s1 := load(d, 16, at(cs, i, 0)), load(d, 16, at(sn, i, 0))
		p, q := ZMM(), ZMM()
		y1[blk], y2[blk] = ZMM(), ZMM()
		VMULPS(c1, x1, p)
		VMULPS(s1, x2, q)
		VSUBPS(q, p, y1[blk]) // x1·c − x2·s
		LEAQ(Mem{Base: i, Index: h, Scale: 1}, e)
		c2, s2 := load(d, 16, at(cs, e, 0)), load(d, 16, at(sn, e, 0))
		VMULPS(c2, x2, p)
		VMULPS(s2, x1, q)
		VADDPS(q, p, y2[blk]) // x2·c + x1·s
	}
	kvcStore32(d, c, y1, Mem{Base: krope, Index: i, Scale: es})
	LEAQ(Mem{Base: i, Index: h, Scale: 1}, e)
	kvcStore32(d, c, y2, Mem{Base: krope, Index: e, Scale: es})
	ADDQ(U32(32), i)
	CMPQ(i, h)
	JB(LabelRef(rope))
}

// interleaveRoPEKernel emits interleaveRoPE<D><ISA>(x, out *byte, rows, xstride, ostride int,
// cos, sin *byte, n int): interleave_rope (npu_interleave_rope) for `rows` rows of n elements
// (n a multiple of 64), xstride and ostride bytes apart, all rotated by the one cos/sin row of n
// values of d: the formula of kv_rmsnorm_rope_cache's rope part, so kvcRopeLoop's rotation.
// out may be x only when n is 64: a longer row is read a round at a time while earlier rounds'
// results are stored. bf16 on AVX512BF16 (its rounding stores), f32 and f16 on AVX-512.
func interleaveRoPEKernel(s isa, d dtype) {
	name := fmt.Sprintf("interleaveRoPE%s%s", d.name, s.name)
	fastBF16 = s == avx512BF16
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
	if d == bf16 {
		c.expMask = ZMM()
		VPBROADCASTD(cExp, c.expMask)
	}
	TESTQ(rows, rows)
	JZ(LabelRef("done"))
	Label("row")
	kvcRopeLoop(d, c, x, cs, sn, out, n)
	ADDQ(xs, x)
	ADDQ(os, out)
	DECQ(rows)
	JNZ(LabelRef("row"))
	Label("done")
	retWithColdPaths()
}

// kvcStore32 rounds v[0] and v[1] (32 consecutive values) to d and stores them at m.
func kvcStore32(d dtype, c consts, v [2]VecVirtual, m Mem) {
	if d == bf16 {
		storeBF16Wide(c, v[0], v[1], m)
		return
	}
	store(d, 16, c, v[0], m)
	m.Disp += 16 * d.esize
	store(d, 16, c, v[1], m)
}

// qkNormKernel emits qkNorm<D><ISA>(x *byte, heads, stride int, w *float32, n int, eps float32):
// qk_rmsnorm_rope's norm, in place, for `heads` heads of n elements (n a multiple of 16), stride
// bytes apart, with the reference's arithmetic (ops.QKRMSNormRoPEArgs):
//
//	sum = ops.SumSquares(x)  (float32, 32 lanes: sumSquaresLoop)
//	r   = ops.RMSNormScale(sum, n, eps)
//	x_j = dtype(w_j · dtype(x_j · r))
func qkNormKernel(s isa, d dtype) {
	name := fmt.Sprintf("qkNorm%s%s", d.name, s.name)
	fastBF16 = s == avx512BF16
	TEXT(name, NOSPLIT, "func(x *byte, heads, stride int, w *float32, n int, eps float32)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s RMS-normalizes `heads` %s heads of n (a multiple of 16) elements in place, as qk_rmsnorm_rope does.", name, d.name))
	x := Load(Param("x"), GP64())
	heads := Load(Param("heads"), GP64())
	stride := Load(Param("stride"), GP64())
	w := Load(Param("w"), GP64())
	n := Load(Param("n"), GP64())
	eps := Load(Param("eps"), XMM())
	TESTQ(n, n)
	JZ(LabelRef("done"))
	TESTQ(heads, heads)
	JZ(LabelRef("done"))
	c := loadConsts(d, false, 16)
	var hiMask, quiet32 VecVirtual
	if d == bf16 {
		hiMask, quiet32 = ZMM(), ZMM()
		VPBROADCASTD(cHiMask, hiMask)
		VPBROADCASTD(cQuiet32, quiet32)
	}
	nF, oneD := rmsConsts(n)
	Label("head")
	sum := sumSquaresLoop(d, x, n)
	rz := rmsScale(sum, nF, oneD, eps)
	i := GP64()
	XORQ(i, i)
	Label("scale")
	{
		m := Mem{Base: x, Index: i, Scale: uint8(d.esize)}
		v := load(d, 16, m)
		VMULPS(rz, v, v) // h = x·r
		switch d {
		case bf16:
			v = roundBF16(c, hiMask, quiet32, v)
		case f16:
			h := YMM()
			VCVTPS2PH(U8(0), v, h)
			VCVTPH2PS(h, v)
		}
		VMULPS(Mem{Base: w, Index: i, Scale: 4}, v, v) // y = w·h
		store(d, 16, c, v, m)
	}
	ADDQ(U32(16), i)
	CMPQ(i, n)
	JB(LabelRef("scale"))
	ADDQ(stride, x)
	DECQ(heads)
	JNZ(LabelRef("head"))
	Label("done")
	retWithColdPaths()
}

// roundBF16 returns v rounded to bf16 (nearest even) as float32, exactly as
// tensor.ToFloat32(BF16, tensor.BF16FromFloat32(v)): integer rounding of the low half, and NaN
// lanes become their quieted truncation.
func roundBF16(c consts, hiMask, quiet32, v VecVirtual) VecVirtual {
	t, out := ZMM(), ZMM()
	VPSRLD(U8(16), v, t)
	VPANDD(c.one, t, t)
	VPADDD(v, t, t)
	VPADDD(c.bias, t, t)
	VPANDD(hiMask, t, out)
	k := K()
	VCMPPS(U8(3), v, v, k) // unordered: NaN
	u := ZMM()
	VPANDD(hiMask, v, u)
	VPORD(quiet32, u, k, out)
	return out
}

// qkNormRoPEKernel emits qkNormRoPENeoX128<D><ISA>(x *byte, heads, stride int, w, cos,
// sin *float32, eps float32): qk_rmsnorm_rope whole, for heads of 128 elements rotated full
// width NeoX style (Qwen3's shape), f32 and f16 (bf16 has its own, qkNormRoPEBF16Kernel). Each
// head stays in registers from its load to its store: the sum of squares as in qkNormKernel,
// the two intermediate roundings (f16: VCVTPS2PH and back), then the rotation by the token's
// cos/sin and one rounding store.
func qkNormRoPEKernel(s isa, d dtype) {
	name := fmt.Sprintf("qkNormRoPENeoX128%s%s", d.name, s.name)
	fastBF16 = s == avx512BF16
	TEXT(name, NOSPLIT, "func(x *byte, heads, stride int, w, cos, sin *float32, eps float32)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s normalizes and rotates `heads` %s heads of 128 elements in place, as qk_rmsnorm_rope does for a full-width NeoX rotation.", name, d.name))
	x := Load(Param("x"), GP64())
	heads := Load(Param("heads"), GP64())
	stride := Load(Param("stride"), GP64())
	w := Load(Param("w"), GP64())
	cs := Load(Param("cos"), GP64())
	sn := Load(Param("sin"), GP64())
	eps := Load(Param("eps"), XMM())
	TESTQ(heads, heads)
	JZ(LabelRef("done"))
	var c consts // f32 and f16 stores need no constants
	tmp := GP64()
	MOVQ(U32(128), tmp)
	nF, oneD := rmsConsts(tmp)
	// Two heads at a time: one head's work is a single dependency chain (sum, scale, the
	// roundings, the rotation) longer than the out-of-order window reaches past, so two
	// interleaved chains run at twice the rate. An odd last head goes alone.
	CMPQ(heads, U8(2))
	JB(LabelRef("one"))
	Label("two")
	qkNormRoPEHeads(d, c, x, stride, w, cs, sn, nF, oneD, eps, 2)
	LEAQ(Mem{Base: x, Index: stride, Scale: 2}, x)
	SUBQ(U8(2), heads)
	CMPQ(heads, U8(2))
	JAE(LabelRef("two"))
	Label("one")
	TESTQ(heads, heads)
	JZ(LabelRef("done"))
	qkNormRoPEHeads(d, c, x, stride, w, cs, sn, nF, oneD, eps, 1)
	Label("done")
	retWithColdPaths()
}

// qkNormRoPEHeads emits the fused kernel's work on nh heads at x, x+stride, ...
func qkNormRoPEHeads(d dtype, c consts, x, stride, w, cs, sn, nF, oneD, eps Register, nh int) {
	base := make([]Register, nh)
	base[0] = x
	for h := 1; h < nh; h++ {
		base[h] = GP64()
		LEAQ(Mem{Base: base[h-1], Index: stride, Scale: 1}, base[h])
	}
	y := make([][8]VecVirtual, nh)
	acc := make([][2]VecVirtual, nh)
	for h := range nh {
		for a := range acc[h] {
			acc[h][a] = ZMM()
			VXORPS(acc[h][a], acc[h][a], acc[h][a])
		}
	}
	for k := range 8 {
		for h := range nh {
			y[h][k] = load(d, 16, Mem{Base: base[h], Disp: 16 * d.esize * k})
			accSquares(y[h][k], acc[h][k%2])
		}
	}
	rz := make([]VecVirtual, nh)
	for h := range nh {
		rz[h] = rmsScale(sumLanes(acc[h][0], acc[h][1]), nF, oneD, eps)
	}
	for k := 0; k < 8; k += 2 {
		for h := range nh {
			a, b := y[h][k], y[h][k+1]
			VMULPS(rz[h], a, a)
			VMULPS(rz[h], b, b)
			roundPair(d, a, b)
		}
		for h := range nh {
			a, b := y[h][k], y[h][k+1]
			VMULPS(Mem{Base: w, Disp: 64 * k}, a, a)
			VMULPS(Mem{Base: w, Disp: 64 * (k + 1)}, b, b)
			roundPair(d, a, b)
		}
	}
	// Pairs (i, i+64): y[k] with y[k+4]; o1 = a·c − b·s into y[k], o2 = b·c + a·s into y[k+4].
	for h := range nh {
		p, q := ZMM(), ZMM()
		for k := range 4 {
			a, b := y[h][k], y[h][k+4]
			cm, sm := Mem{Base: cs, Disp: 64 * k}, Mem{Base: sn, Disp: 64 * k}
			VMULPS(cm, a, p)
			VMULPS(sm, b, q)
			VSUBPS(q, p, p)
			VMULPS(cm, b, b)
			VMULPS(sm, a, q)
			VADDPS(q, b, b)
			VMOVAPS(p, a)
		}
		for k := range 8 {
			store(d, 16, c, y[h][k], Mem{Base: base[h], Disp: 16 * d.esize * k})
		}
	}
}

// roundPair rounds a and b (16 float32 each) to d and back in place (f32: nothing to do).
func roundPair(d dtype, a, b VecVirtual) {
	if d != f16 {
		return
	}
	for _, v := range []VecVirtual{a, b} {
		h := YMM()
		VCVTPS2PH(U8(0), v, h)
		VCVTPH2PS(h, v)
	}
}

// accSquares adds the squares of v's 16 lanes into acc's, one fused multiply-add each
// (ops.FMA32's rounding; a NaN in acc stays ahead of one in v, as FMA32(v, v, acc) has it).
func accSquares(v, acc VecVirtual) {
	VFMADD231PS(v, v, acc)
}

// sumLanes adds up ops.SumSquares' 32 lanes, lo holding lanes 0..15 and hi 16..31, in its
// neighbour-first order, and returns the sum in the low lane of an xmm. At each step the lower
// lane of a pair is the first operand, so a NaN there wins, as in the reference's s_i += s_{i+w}.
func sumLanes(lo, hi VecVirtual) VecVirtual {
	// Neighbours (2m, 2m+1): per 128-bit lane k, even = [lo4k, lo4k+2, hi4k, hi4k+2] and odd the
	// lanes after them; the sums T are [T2k, T2k+1, T8+2k, T8+2k+1].
	ev, od := ZMM(), ZMM()
	VSHUFPS(U8(0x88), hi, lo, ev)
	VSHUFPS(U8(0xdd), hi, lo, od)
	VADDPS(od, ev, ev)
	return sumTree(ev, false)
}

// sumTree finishes sumLanes from 16 pair sums T in v: with interleaved set, T_m in lane m;
// otherwise in sumLanes' order, T2k and T2k+1 in lanes 4k and 4k+1 and T8+2k, T8+2k+1 in
// lanes 4k+2 and 4k+3.
func sumTree(v VecVirtual, interleaved bool) VecVirtual {
	t := ZMM()
	VPERMILPS(U8(0xb1), v, t) // swap neighbouring lanes: T2m + T2m+1
	VADDPS(t, v, v)
	if interleaved {
		// U_m in lane 2m: U2m + U2m+1 sit 2 lanes apart.
		VPERMILPS(U8(0x4e), v, t)
		VADDPS(t, v, v)
		// V_m in lane 4m: V2m + V2m+1 sit in neighbouring 128-bit lanes.
	} else {
		// U_k in lane 4k, U4+k in lane 4k+2: U2m + U2m+1 sit in neighbouring 128-bit lanes.
		VSHUFF32X4(U8(0xb1), v, v, t)
		VADDPS(t, v, v)
		// V0, V1 in lanes 0, 8 and V2, V3 in lanes 2, 10: the pairs sit 256 bits apart.
	}
	hi := YMM()
	if interleaved {
		VSHUFF32X4(U8(0xb1), v, v, t)
		VADDPS(t, v, v)
		// W0 in lane 0, W1 in lane 8.
		VEXTRACTF32X8(U8(1), v, hi)
		VADDSS(hi.AsX(), v.AsX(), v.AsX())
		return v
	}
	VEXTRACTF32X8(U8(1), v, hi)
	VADDPS(hi, v.AsY(), v.AsY()) // W0 in lane 0, W1 in lane 2
	w1 := XMM()
	VMOVHLPS(v.AsX(), v.AsX(), w1)
	VADDSS(w1, v.AsX(), v.AsX())
	return v
}

// rmsConsts loads rmsScale's constants for rows of n elements: float32(n) and float64 1.
func rmsConsts(n Register) (nF, oneD VecVirtual) {
	nF, oneD = XMM(), XMM()
	VCVTSI2SSQ(n, nF, nF)
	VMOVSD(cOneF64, oneD)
	return nF, oneD
}

// rmsScale returns ops.RMSNormScale(sum, n, eps) broadcast to a zmm, sum in the low lane of an
// xmm (nF = float32(n), oneD = 1.0): the mean and ε in float32, the reciprocal square root in
// float64 rounded once.
func rmsScale(sum VecVirtual, nF, oneD, eps Register) VecVirtual {
	rz := ZMM()
	VBROADCASTSS(rmsScalar(sum, nF, oneD, eps), rz)
	return rz
}

// rmsScalar is rmsScale's value in the low lane of an xmm.
func rmsScalar(sum VecVirtual, nF, oneD, eps Register) VecVirtual {
	r := XMM()
	VDIVSS(nF, sum.AsX(), r)
	return rmsFinish(r, oneD, eps)
}

// rmsScalarPow2 is rmsScalar for n a power of two, given invN = 1/n: the mean is then a
// multiplication, which rounds exactly as the division does (the same real number, rounded
// once), without the divider.
func rmsScalarPow2(sum VecVirtual, invN, oneD, eps Register) VecVirtual {
	r := XMM()
	VMULSS(invN, sum.AsX(), r)
	return rmsFinish(r, oneD, eps)
}

// rmsFinish is rmsScalar after the mean, which r holds: r + ε, then the reciprocal square root.
func rmsFinish(r VecVirtual, oneD, eps Register) VecVirtual {
	u, q := XMM(), XMM()
	VADDSS(eps, r, r)
	VCVTSS2SD(r, r, u) // upper lane from r: no dependency on an earlier chain
	VSQRTSD(u, u, u)
	VDIVSD(u, oneD, q)
	VCVTSD2SS(q, r, r)
	return r
}
