package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The rotation kernels serve package cpu's rotation.go: rotateHeads (rotary_embedding, its
// gathered form and mrope) and, in their full-row form, the row-wise ops (apply_rotary_emb,
// apply_rotary_emb_thd, interleave_rope's Go path).

// rotation is one rotation kernel as callKernel selects it.
type rotation struct {
	isa        isa
	dtype      dtype
	gptj, full bool
	name       string
}

// rotateKernels emits every rotation kernel. AVX512BF16 only improves the bf16 stores, so it
// has bf16 kernels alone and runs AVX-512's for the other dtypes (its fallback in amd64Dispatch).
func (g *generator) rotateKernels() {
	for _, full := range []bool{false, true} {
		for _, s := range []isa{avx512, avx2} {
			for _, d := range []dtype{f32, bf16, f16} {
				for _, gptj := range []bool{false, true} {
					g.kernel(s, d, gptj, full)
				}
			}
		}
		for _, gptj := range []bool{false, true} {
			g.kernel(avx512BF16, bf16, gptj, full)
		}
	}
	for _, s := range []isa{avx512, avx2} {
		for _, d := range []dtype{f32, bf16, f16} {
			for _, gptj := range []bool{false, true} {
				if s == avx512 && d == bf16 && gptj {
					// avo cannot allocate its registers inside the token loop (the integer
					// rounding's constants beside 64 pairs' duplicated cos and sin): it goes a
					// call per token.
					continue
				}
				g.tokensKernel(s, d, gptj)
			}
		}
	}
	for _, gptj := range []bool{false, true} {
		g.tokensKernel(avx512BF16, bf16, gptj)
	}
}

// neoxBlock rotates `lanes` pairs at pair index i: x1 at x+i, x2 at x+half+i, read from the
// same places of src and src2 (x and x2 themselves in place).
// With full rows (cs2, sn2 non-nil: apply_rotary_emb's per-element cos/sin) the second element
// of each pair uses the second halves: o2 = b·c2 + a·s2.
func (g *generator) neoxBlock(d dtype, lanes int, c consts, x, x2, src, src2, cs, sn, cs2, sn2, i Register) {
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
	l1, l2 := Mem{Base: src, Index: i, Scale: uint8(d.esize)}, Mem{Base: src2, Index: i, Scale: uint8(d.esize)}
	g.neoxRotate(d, lanes, c, cv, sv, cv2, sv2, l1, l2, m1, m2)
}

// neoxRotate rotates the pairs (l1[k], l2[k]) by cos/sin vectors already in registers into
// (m1[k], m2[k]).
func (g *generator) neoxRotate(d dtype, lanes int, c consts, cv, sv, cv2, sv2 VecVirtual, l1, l2, m1, m2 Mem) {
	a := load(d, lanes, l1)
	b := load(d, lanes, l2)
	ac, bs, bc, as := vec(lanes), vec(lanes), vec(lanes), vec(lanes)
	VMULPS(cv, a, ac)
	VMULPS(sv, b, bs)
	VMULPS(cv2, b, bc)
	VMULPS(sv2, a, as)
	VSUBPS(bs, ac, ac) // o1 = a·c − b·s
	VADDPS(as, bc, bc) // o2 = b·c + a·s
	if d == bf16 && g.fastBF16 && lanes == 16 {
		g.storeBF16Pair(c, ac, bc, m1, m2) // one test covers both for the subnormal fallback
		return
	}
	g.store(d, lanes, c, ac, m1)
	g.store(d, lanes, c, bc, m2)
}

// neoxRotateBF16x2Full rotates 32 consecutive pairs (two blocks, each with its cos/sin
// registers, and the second halves' own: c20, s20, c21, s21, full-width rows), read from l1 and
// l2 and stored to m1 and m2, bf16.
func (g *generator) neoxRotateBF16x2Full(c consts, c0, s0, c1, s1, c20, s20, c21, s21 VecVirtual, l1, l2, m1, m2 Mem) {
	next := func(m Mem) Mem { m.Disp += 32; return m }
	a0, a1 := load(bf16, 16, l1), load(bf16, 16, next(l1))
	b0, b1 := load(bf16, 16, l2), load(bf16, 16, next(l2))
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
	VMULPS(c20, b0, o0)
	VMULPS(s20, a0, q)
	VADDPS(q, o0, o0)
	VMULPS(c21, b1, o1)
	VMULPS(s21, a1, q)
	VADDPS(q, o1, o1)
	g.storeBF16Wide(c, f0, f1, m1)
	g.storeBF16Wide(c, o0, o1, m2)
}

// gptjBlock rotates lanes/2 pairs starting at pair index i (elements 2i ...), read from src
// (x itself in place) and stored to x.
// With full rows (per-element cos/sin) the rows are read at the element index instead of being
// duplicated per pair.
func (g *generator) gptjBlock(d dtype, lanes int, c consts, x, src, cs, sn, i, e Register, full bool) {
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
	a := load(d, lanes, Mem{Base: src, Index: e, Scale: uint8(d.esize)})
	sw := vec(lanes)
	VPERMILPS(U8(0xB1), a, sw) // [x1 x0 x3 x2 ...]
	ac, ss := vec(lanes), vec(lanes)
	VMULPS(cv, a, ac)
	VMULPS(sv, sw, ss)
	VADDPS(ss, ac, ac) // even: x0·c − x1·s; odd: x1·c + x0·s
	g.store(d, lanes, c, ac, Mem{Base: x, Index: e, Scale: uint8(d.esize)})
}

// kernel emits one function: rotate the first n pairs (n a multiple of 8) of each of `heads`
// heads, `stride` bytes apart, starting at x; cos and sin hold the token's float32 rows.
// With full set, cos and sin are full-width rows (2·half values: apply_rotary_emb's per-element
// factors) instead of one value per pair, and the heads are read from src (srcstride bytes
// apart), which may be x itself: the row-wise ops rotate into their output in one pass.
func (g *generator) kernel(s isa, d dtype, gptj, full bool) {
	style := styleName(gptj)
	prefix := "rotate"
	if full {
		prefix = "rotateFull"
	}
	name := fmt.Sprintf("%s%s%s%s", prefix, style, d.name, s.name)
	g.rotations = append(g.rotations, rotation{s, d, gptj, full, name})
	g.fastBF16 = s == avx512BF16
	if full {
		TEXT(name, NOSPLIT, "func(x *byte, heads, stride int, cos, sin *float32, half, n int, src *byte, srcstride int)")
		Pragma("noescape")
		Doc(fmt.Sprintf("%s rotates the first n pairs (n a multiple of 8) of `heads` %s rows at src into x, %s style, by full-width cos/sin rows.", name, d.name, style))
	} else {
		TEXT(name, NOSPLIT, "func(x *byte, heads, stride int, cos, sin *float32, half, n int)")
		Pragma("noescape")
		Doc(fmt.Sprintf("%s rotates the first n pairs (n a multiple of 8) of `heads` %s heads in place, %s style.", name, d.name, style))
	}
	x := Load(Param("x"), GP64())
	heads := Load(Param("heads"), GP64())
	stride := Load(Param("stride"), GP64())
	cs := Load(Param("cos"), GP64())
	sn := Load(Param("sin"), GP64())
	hf := Load(Param("half"), GP64())
	n := Load(Param("n"), GP64())
	src, ss := x, stride // in place
	if full {
		src = Load(Param("src"), GP64())
		ss = Load(Param("srcstride"), GP64())
	}
	TESTQ(n, n)
	JZ(LabelRef("done"))
	TESTQ(heads, heads)
	JZ(LabelRef("done"))
	c := g.loadConsts(d, gptj, s.lanes)
	g.exit = "done"
	g.rotateHeads(s, d, gptj, full, c, x, heads, stride, cs, sn, hf, n, src, ss)
	Label("done")
	g.retWithColdPaths()
}

// tokensKernel emits one function that rotates a run of tokens of q and k (the per-pair
// kernel's work for every token of the run, for both tensors, in one call): rows[t] is token
// t's float32 cos row, its sin row half floats after it; token t's heads start t·step bytes
// after x (q) and t·step2 after x2 (k), which has heads2 heads (0: no k). Calling a kernel per
// token and tensor from Go (the loop, the kernel's selection, the pointer arithmetic) costs about
// a tenth of a 16-token mrope call in a CPU profile.
func (g *generator) tokensKernel(s isa, d dtype, gptj bool) {
	style := styleName(gptj)
	name := fmt.Sprintf("rotateTokens%s%s%s", style, d.name, s.name)
	g.tokenRotations = append(g.tokenRotations, rotation{s, d, gptj, false, name})
	g.fastBF16 = s == avx512BF16
	TEXT(name, NOSPLIT, "func(x *byte, heads, stride, step int, x2 *byte, heads2, stride2, step2 int, rows **float32, tokens, half, n int)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s rotates the first n pairs (n a multiple of 8) of every %s head of `tokens` tokens of two tensors in place, %s style, token t by the cos row rows[t] (its sin row half floats on).", name, d.name, style))
	n := Load(Param("n"), GP64())
	hf := Load(Param("half"), GP64())
	tokens := Load(Param("tokens"), GP64())
	TESTQ(n, n)
	JZ(LabelRef("done"))
	TESTQ(tokens, tokens)
	JZ(LabelRef("done"))
	c := g.loadConsts(d, gptj, s.lanes)
	cs, sn := GP64(), GP64()
	g.tokenLoop(func(tok Mem) {
		t := GP64()
		MOVQ(tok, t)
		rows := Load(Param("rows"), GP64())
		MOVQ(Mem{Base: rows, Index: t, Scale: 8}, cs)
		LEAQ(Mem{Base: cs, Index: hf, Scale: 4}, sn)
	}, func(x, heads, stride Register) {
		g.rotateHeads(s, d, gptj, false, c, x, heads, stride, cs, sn, hf, n, x, stride)
	})
	Label("done")
	g.retWithColdPaths()
}

// tokenLoop emits a token kernel's loop over `tokens` tokens of the tensors at x and x2 (its
// arguments x, heads, stride, step and x2, heads2, stride2, step2): at each token perToken
// (tok, a frame slot, holds the token's index), then for each tensor with heads, rotate with x
// at the token's first head and heads and stride loaded, ending at g.exit. The index and which
// tensor is rotating live in the frame: the rotations need every register they had.
func (g *generator) tokenLoop(perToken func(tok Mem), rotate func(x, heads, stride Register)) {
	x, heads, stride := GP64(), GP64(), GP64()
	tok, second := AllocLocal(8), AllocLocal(8)
	MOVQ(U32(0), tok)
	Label("token")
	perToken(tok)
	tensor := func(xp, hp, sp, stepp string) {
		t := GP64()
		MOVQ(tok, t)
		Load(Param(xp), x)
		step := Load(Param(stepp), GP64())
		IMULQ(t, step)
		ADDQ(step, x)
		Load(Param(hp), heads)
		Load(Param(sp), stride)
	}
	tensor("x", "heads", "stride", "step")
	MOVQ(U32(0), second)
	JMP(LabelRef("rotate"))
	Label("second")
	tensor("x2", "heads2", "stride2", "step2")
	MOVQ(U32(1), second)
	Label("rotate")
	TESTQ(heads, heads)
	JZ(LabelRef("tensorDone"))
	g.exit = "tensorDone"
	rotate(x, heads, stride)
	Label("tensorDone")
	CMPQ(second, U8(0))
	JE(LabelRef("second"))
	t := GP64()
	MOVQ(tok, t)
	INCQ(t)
	MOVQ(t, tok)
	CMPQ(t, Load(Param("tokens"), GP64()))
	JB(LabelRef("token"))
}

// rotateHeads emits a kernel's rotation of the first n pairs of `heads` heads (at least one),
// `stride` bytes apart from x, by the rows at cs and sn (with full, full-width rows and the heads
// read from src, ss bytes apart); it ends at g.exit (falling through to it or jumping there).
// x and heads are consumed.
func (g *generator) rotateHeads(s isa, d dtype, gptj, full bool, c consts, x, heads, stride, cs, sn, hf, n, src, ss Register) {
	var cs2, sn2 Register
	if full && !gptj {
		// The second halves of the rows.
		cs2, sn2 = GP64(), GP64()
		LEAQ(Mem{Base: cs, Index: hf, Scale: 4}, cs2)
		LEAQ(Mem{Base: sn, Index: hf, Scale: 4}, sn2)
	}
	x2 := GP64()
	src2 := x2
	if full {
		src2 = GP64()
	}
	i := GP64()
	e := GP64()
	if s.lanes == 16 && !gptj && !full {
		g.neoxDecodePath(d, c, x, x2, heads, stride, cs, sn, hf, n)
	}
	if s.lanes == 16 && gptj && !full {
		g.gptjDecodePath(d, c, x, heads, stride, cs, sn, n)
	}
	if s.lanes == 16 && !gptj && full {
		g.neoxFullRegsPath(d, c, x, x2, src, src2, heads, stride, ss, cs, sn, cs2, sn2, hf, n)
	}
	Label("head")
	XORQ(i, i)
	if !gptj {
		// x2 = x + half·esize: the second element of each pair.
		MOVQ(hf, x2)
		SHLQ(U8(log2(d.esize)), x2)
		if full {
			LEAQ(Mem{Base: src, Index: x2, Scale: 1}, src2)
		}
		ADDQ(x, x2)
		if s.lanes == 16 {
			Label("wide")
			MOVQ(i, e)
			ADDQ(U32(16), e)
			CMPQ(e, n)
			JA(LabelRef("narrow"))
			g.neoxBlock(d, 16, c, x, x2, src, src2, cs, sn, cs2, sn2, i)
			ADDQ(U32(16), i)
			JMP(LabelRef("wide"))
			Label("narrow")
			CMPQ(i, n)
			JAE(LabelRef("next"))
		} else {
			Label("narrow")
		}
		g.neoxBlock(d, 8, c, x, x2, src, src2, cs, sn, cs2, sn2, i)
		ADDQ(U32(8), i)
		CMPQ(i, n)
		JB(LabelRef("narrow"))
	} else {
		step := s.lanes / 2
		Label("pairs")
		MOVQ(i, e)
		SHLQ(U8(1), e)
		g.gptjBlock(d, s.lanes, c, x, src, cs, sn, i, e, full)
		ADDQ(U32(step), i)
		CMPQ(i, n)
		JB(LabelRef("pairs"))
	}
	Label("next")
	ADDQ(stride, x)
	if full {
		ADDQ(ss, src)
	}
	DECQ(heads)
	JNZ(LabelRef("head"))
}

// neoxFullRegsPath emits a full-row NeoX kernel's path for 64 pairs (rotary dim 128, the
// bench's and most models' shape), as neoxDecodePath does for the per-pair kernels: the rows'
// four quarters of cos and sin stay in registers across all heads, and in bf16 on AVX512BF16
// two blocks share one rounding and one store. Other lengths go on at the label "head".
func (g *generator) neoxFullRegsPath(d dtype, c consts, x, x2, src, src2, heads, stride, ss, cs, sn, cs2, sn2, hf, n Register) {
	CMPQ(n, U32(64))
	JNE(LabelRef("head"))
	var c1, s1, c2, s2 [4]VecVirtual
	for k := range c1 {
		c1[k], s1[k], c2[k], s2[k] = ZMM(), ZMM(), ZMM(), ZMM()
		VMOVUPS(Mem{Base: cs, Disp: 64 * k}, c1[k])
		VMOVUPS(Mem{Base: sn, Disp: 64 * k}, s1[k])
		VMOVUPS(Mem{Base: cs2, Disp: 64 * k}, c2[k])
		VMOVUPS(Mem{Base: sn2, Disp: 64 * k}, s2[k])
	}
	if d == bf16 && g.fastBF16 {
		// No constant stays in a register: the integer rounding's are loaded on the cold path
		// (coldConsts).
		c = consts{}
	}
	Label("fullHead")
	MOVQ(hf, x2)
	SHLQ(U8(log2(d.esize)), x2)
	LEAQ(Mem{Base: src, Index: x2, Scale: 1}, src2)
	ADDQ(x, x2)
	if d == bf16 && g.fastBF16 {
		for k := 0; k < len(c1); k += 2 {
			off := 16 * k * d.esize
			g.neoxRotateBF16x2Full(c, c1[k], s1[k], c1[k+1], s1[k+1], c2[k], s2[k], c2[k+1], s2[k+1],
				Mem{Base: src, Disp: off}, Mem{Base: src2, Disp: off}, Mem{Base: x, Disp: off}, Mem{Base: x2, Disp: off})
		}
	} else {
		for k := range c1 {
			off := 16 * k * d.esize
			g.neoxRotate(d, 16, c, c1[k], s1[k], c2[k], s2[k], Mem{Base: src, Disp: off}, Mem{Base: src2, Disp: off}, Mem{Base: x, Disp: off}, Mem{Base: x2, Disp: off})
		}
	}
	ADDQ(stride, x)
	ADDQ(ss, src)
	DECQ(heads)
	JNZ(LabelRef("fullHead"))
	JMP(LabelRef(g.exit))
}

// decodePairs are the pair counts that get a NeoX kernel path with the token's cos and sin in
// registers: rotary dim 128 (most models, and decoding) and 80 (the heads of Qwen2-VL's and
// Qwen2.5-VL's vision towers, vision_rope_2d).
var decodePairs = []int{64, 40}

// neoxDecodePath emits a NeoX kernel's paths for the pair counts of decodePairs: the token's
// cos and sin stay in registers across all heads instead of being reloaded per head, each
// head's blocks unrolled. Other lengths go on at the label "head".
func (g *generator) neoxDecodePath(d dtype, c consts, x, x2, heads, stride, cs, sn, hf, n Register) {
	for _, p := range decodePairs {
		skip := fmt.Sprintf("not%d", p)
		CMPQ(n, U32(p))
		JNE(LabelRef(skip))
		g.neoxRegsPath(d, c, x, x2, heads, stride, cs, sn, hf, p)
		Label(skip)
	}
}

// neoxRegsPath emits the path for exactly p pairs (a multiple of 8): cos and sin loaded in
// blocks of 16 pairs, the last of 8 where p is an odd multiple of 8. On AVX512BF16 in bf16 the
// leading multiple of 32 pairs goes through the deinterleaved layout (neoxDecodeBF16Split).
func (g *generator) neoxRegsPath(d dtype, c consts, x, x2, heads, stride, cs, sn, hf Register, p int) {
	var cr, sr []VecVirtual
	for k := 0; k < p; k += 16 {
		lanes := min(16, p-k)
		cv, sv := vec(lanes), vec(lanes)
		VMOVUPS(Mem{Base: cs, Disp: 4 * k}, cv)
		VMOVUPS(Mem{Base: sn, Disp: 4 * k}, sv)
		cr, sr = append(cr, cv), append(sr, sv)
	}
	g.neoxRegsHeads(d, c, x, x2, heads, stride, hf, p, cr, sr)
}

// neoxRegsHeads is neoxRegsPath past its loads: the rotation of every head by cos and sin held
// in cr and sr (16 pairs a register, the last 8 where p is an odd multiple of 8).
func (g *generator) neoxRegsHeads(d dtype, c consts, x, x2, heads, stride, hf Register, p int, cr, sr []VecVirtual) {
	// rest rotates blocks [from, len(cr)) of the head at x (second halves at x2).
	rest := func(from int) {
		for k := from; k < len(cr); k++ {
			lanes := min(16, p-16*k)
			off := 16 * k * d.esize
			m1, m2 := Mem{Base: x, Disp: off}, Mem{Base: x2, Disp: off}
			g.neoxRotate(d, lanes, c, cr[k], sr[k], cr[k], sr[k], m1, m2, m1, m2)
		}
	}
	if d == bf16 && g.fastBF16 && p >= 32 {
		split := p / 32 * 2 // 16-pair blocks in the deinterleaved layout
		g.neoxDecodeBF16Split(c, x, x2, heads, stride, hf, cr[:split], sr[:split], p, func() { rest(split) })
		return
	}
	head := fmt.Sprintf("regsHead%d", p)
	Label(head)
	MOVQ(hf, x2)
	SHLQ(U8(log2(d.esize)), x2)
	ADDQ(x, x2)
	rest(0)
	ADDQ(stride, x)
	DECQ(heads)
	JNZ(LabelRef(head))
	JMP(LabelRef(g.exit))
}

// gptjPairs are the pair counts that get a GPT-J kernel path with the token's cos and sin in
// registers across all heads, as neoxDecodePath does for NeoX: rotary dim 128 (GLM-4, Llama 4's
// text heads) and 64 (DeepSeek's MLA rope, q_pe and k_pe). The general loop reloads and
// duplicates each block's cos and sin per head, twice the work of the rotation itself.
var gptjPairs = []int{64, 32}

// gptjDecodePath emits a GPT-J kernel's paths for the pair counts of gptjPairs. Other lengths go
// on at the label "head".
func (g *generator) gptjDecodePath(d dtype, c consts, x, heads, stride, cs, sn, n Register) {
	for _, p := range gptjPairs {
		skip := fmt.Sprintf("gptjNot%d", p)
		CMPQ(n, U32(p))
		JNE(LabelRef(skip))
		if d == bf16 && g.fastBF16 {
			g.gptjRegsBF16Split(c, x, heads, stride, cs, sn, p)
		} else {
			g.gptjRegsPath(d, c, x, heads, stride, cs, sn, p)
		}
		Label(skip)
	}
}

// gptjRegsPath emits the path for exactly p pairs: per block of 8 pairs (16 elements) the
// duplicated cos [c0 c0 c1 c1 ...] and signed sin [−s0 s0 −s1 s1 ...] in a register each, so a
// head's block is its load, one swap of neighbours, two products, a sum and the store, as in
// gptjBlock.
func (g *generator) gptjRegsPath(d dtype, c consts, x, heads, stride, cs, sn Register, p int) {
	var cr, sr []VecVirtual
	for k := 0; k < p; k += 8 {
		cv, sv := ZMM(), ZMM()
		VMOVUPS(Mem{Base: cs, Disp: 4 * k}, cv.AsY())
		VMOVUPS(Mem{Base: sn, Disp: 4 * k}, sv.AsY())
		VPERMPS(cv, c.dupIdx, cv)
		VPERMPS(sv, c.dupIdx, sv)
		VXORPS(c.sign, sv, sv)
		cr, sr = append(cr, cv), append(sr, sv)
	}
	head := fmt.Sprintf("gptjHead%d", p)
	Label(head)
	for k := range cr {
		m := Mem{Base: x, Disp: 16 * k * d.esize}
		a := load(d, 16, m)
		sw, ac, ss := ZMM(), ZMM(), ZMM()
		VPERMILPS(U8(0xB1), a, sw) // [x1 x0 x3 x2 ...]
		VMULPS(cr[k], a, ac)
		VMULPS(sr[k], sw, ss)
		VADDPS(ss, ac, ac) // even: x0·c − x1·s; odd: x1·c + x0·s
		g.store(d, 16, c, ac, m)
	}
	ADDQ(stride, x)
	DECQ(heads)
	JNZ(LabelRef(head))
	JMP(LabelRef(g.exit))
}
