package main

import "fmt"

// The NEON rotation kernels: what callKernel runs on arm64 for package cpu's rotation.go, the
// per-pair kernels (rotary_embedding, its gathered form, mrope, qk_rmsnorm_rope's rotation) and
// the full-row ones (apply_rotary_emb and its THD form, forward and backward's dx, and
// interleave_rope's Go path), and interleave_rope's own, which reads GPT-J pairs and writes
// NeoX halves (rotationForm). Each takes eight pairs a block: every element of the heads is
// loaded once and stored once with vector instructions (GPT-J's pairs split and rejoined by
// LD2/ST2), and per element there is only vector arithmetic, so the kernels are bounded by
// memory on paper; the cos/sin rows are reread per head from L1. The pairs past the last
// multiple of eight are left to the Go loop, as on amd64.
//
// Every pair is o1 = a·c1 − b·s1, o2 = b·c2 + a·s2 (c2 = c1 and s2 = s1 unless the rows are
// full width): four FMULs, each rounding its product to float32, then one FSUB and one FADD,
// the reference's order of operations, never a fused multiply-add.

func (a *a64) rotationKernels() {
	for _, full := range []bool{false, true} {
		for _, d := range []dtype{f32, bf16, f16} {
			for _, gptj := range []bool{false, true} {
				a.rotationKernel(d, rotationForm{in: gptj, out: gptj, full: full})
			}
		}
	}
	for _, d := range []dtype{f32, bf16, f16} {
		a.rotationKernel(d, rotationForm{in: true, out: false, full: true})
	}
}

// rotationForm is where a kernel finds each pair's two elements: in the input and in the
// output, side by side (GPT-J, true) or one in each half of the row (NeoX); and whether cos and
// sin are full-width rows, laid out as the output (a value per element), or a value per pair.
// interleave_rope is the one form whose input and output differ: GPT-J pairs in, NeoX out.
type rotationForm struct {
	in, out, full bool
}

// The kernels' general registers.
const (
	rX, rHeads, rStride, rCos, rSin, rHalf, rN, rSrc, rSrcStride xreg = 0, 1, 2, 3, 4, 5, 6, 7, 8

	rDst1, rDst2, rSrc1, rSrc2 xreg = 9, 10, 11, 12  // a head's pointers: first and second halves
	rC1, rS1, rC2, rS2         xreg = 13, 14, 15, 16 // the cos/sin pointers; 2: second halves
	rBlocks                    xreg = 17
	rHalfBytes, rHalfRow       xreg = 19, 20 // half in bytes of x, and of a float32 row
	rTmp                       xreg = 25
)

// rotationKernel emits one kernel with the signature of its amd64 counterpart: rotate the
// first n pairs (n a multiple of 8) of `heads` heads, `stride` bytes apart, from x; with full,
// by full-width cos/sin rows and reading from src (srcstride bytes apart; x itself in place).
// The interleave_rope form has the full form's signature and writes x from src, never in
// place (its stores would overtake its loads).
func (a *a64) rotationKernel(d dtype, f rotationForm) {
	var name, doc string
	if f.in != f.out {
		name = fmt.Sprintf("interleaveRoPE%s%s", d.name, neon.name)
		doc = fmt.Sprintf("%s rotates `heads` rows of interleave_rope at src into x (n pairs, a multiple of 8, never in place), %s, by full-width cos/sin rows.", name, d.name)
	} else {
		style := styleName(f.out)
		prefix := "rotate"
		if f.full {
			prefix = "rotateFull"
		}
		name = fmt.Sprintf("%s%s%s%s", prefix, style, d.name, neon.name)
		a.rotations = append(a.rotations, rotation{neon, d, f.out, f.full, name})
		doc = fmt.Sprintf("%s rotates the first n pairs (n a multiple of 8) of `heads` %s heads in place, %s style.", name, d.name, style)
		if f.full {
			doc = fmt.Sprintf("%s rotates the first n pairs (n a multiple of 8) of `heads` %s rows at src into x, %s style, by full-width cos/sin rows.", name, d.name, style)
		}
	}
	params := []a64Param{{"x", "*byte"}, {"heads", "int"}, {"stride", "int"}, {"cos", "*float32"}, {"sin", "*float32"}, {"half", "int"}, {"n", "int"}}
	regs := []xreg{rX, rHeads, rStride, rCos, rSin, rHalf, rN}
	src := rX
	if f.full {
		params = append(params, a64Param{"src", "*byte"}, a64Param{"srcstride", "int"})
		regs = append(regs, rSrc, rSrcStride)
		src = rSrc
	}
	a.text(name, doc, params, regs)
	a.ins("CBZ %s, done", rN)
	a.ins("CBZ %s, done", rHeads)
	a.setConsts(d, rTmp)
	if !f.in || !f.out {
		a.ins("LSL $%d, %s, %s", log2(d.esize), rHalf, rHalfBytes)
	}
	if f.full && !f.out {
		a.ins("LSL $2, %s, %s", rHalf, rHalfRow)
	}
	a.label("head")
	a.ins("MOVD %s, %s", rX, rDst1)
	a.ins("MOVD %s, %s", src, rSrc1)
	if !f.out {
		a.ins("ADD %s, %s, %s", rHalfBytes, rDst1, rDst2)
	}
	if !f.in {
		a.ins("ADD %s, %s, %s", rHalfBytes, rSrc1, rSrc2)
	}
	a.ins("MOVD %s, %s", rCos, rC1)
	a.ins("MOVD %s, %s", rSin, rS1)
	if f.full && !f.out {
		a.ins("ADD %s, %s, %s", rHalfRow, rCos, rC2)
		a.ins("ADD %s, %s, %s", rHalfRow, rSin, rS2)
	}
	a.ins("LSR $3, %s, %s", rN, rBlocks)
	a.label("block")
	a.rotationBlock(d, f)
	a.ins("SUBS $1, %s, %s", rBlocks, rBlocks)
	a.ins("BNE block")
	a.ins("ADD %s, %s, %s", rStride, rX, rX)
	if f.full {
		a.ins("ADD %s, %s, %s", rSrcStride, rSrc, rSrc)
	}
	a.ins("SUBS $1, %s, %s", rHeads, rHeads)
	a.ins("BNE head")
	a.label("done")
	a.ins("RET")
}

// rotationBlock rotates eight pairs and advances the pointers past them. Vector registers:
// V0–V3 and V16–V19 cos and sin, V4–V7 the pairs' elements as float32, V8–V15 the products,
// V20–V23 the results, V24–V27 the raw 16-bit loads and the rounding's scratch, V28–V31 the
// constants.
func (a *a64) rotationBlock(d dtype, f rotationForm) {
	var c1, s1, c2, s2, x1, x2, o1, o2 [2]vreg
	pair := func(r vreg) [2]vreg { return [2]vreg{r, r + 1} }
	ld1 := func(p xreg, v vreg) { a.ins("VLD1.P 32(%s), [%s, %s]", p, v.S4(), (v + 1).S4()) }
	switch {
	case !f.full:
		ld1(rC1, 0)
		ld1(rS1, 2)
		c1, s1 = pair(0), pair(2)
		c2, s2 = c1, s1
	case !f.out:
		ld1(rC1, 0)
		ld1(rS1, 2)
		ld1(rC2, 16)
		ld1(rS2, 18)
		c1, s1, c2, s2 = pair(0), pair(2), pair(16), pair(18)
	default:
		// A full GPT-J row holds each pair's two values side by side, as the pairs themselves.
		for k := range 2 {
			a.ins("VLD2.P 32(%s), [%s, %s]", rC1, vreg(2*k).S4(), vreg(2*k+1).S4())
			c1[k], c2[k] = vreg(2*k), vreg(2*k+1)
		}
		for k := range 2 {
			a.ins("VLD2.P 32(%s), [%s, %s]", rS1, vreg(16+2*k).S4(), vreg(17+2*k).S4())
			s1[k], s2[k] = vreg(16+2*k), vreg(17+2*k)
		}
	}
	x1, x2 = pair(4), pair(6)
	switch {
	case d == f32 && !f.in:
		ld1(rSrc1, 4)
		ld1(rSrc2, 6)
	case d == f32:
		for k := range 2 {
			a.ins("VLD2.P 32(%s), [%s, %s]", rSrc1, vreg(4+2*k).S4(), vreg(5+2*k).S4())
			x1[k], x2[k] = vreg(4+2*k), vreg(5+2*k)
		}
	case !f.in:
		a.ins("VLD1.P 16(%s), [%s]", rSrc1, vreg(24).H8())
		a.ins("VLD1.P 16(%s), [%s]", rSrc2, vreg(25).H8())
		a.widen8(d, 24, x1[0], x1[1])
		a.widen8(d, 25, x2[0], x2[1])
	default:
		a.ins("VLD2.P 32(%s), [%s, %s]", rSrc1, vreg(24).H8(), vreg(25).H8())
		a.widen8(d, 24, x1[0], x1[1])
		a.widen8(d, 25, x2[0], x2[1])
	}
	o1, o2 = pair(20), pair(22)
	if d == f32 && f.out {
		o1, o2 = [2]vreg{20, 22}, [2]vreg{21, 23} // ST2 takes each result pair from adjacent registers
	}
	for k := range 2 {
		ac, bs, bc, as := vreg(8+k), vreg(10+k), vreg(12+k), vreg(14+k)
		a.fmul(ac, x1[k], c1[k])
		a.fmul(bs, x2[k], s1[k])
		a.fmul(bc, x2[k], c2[k])
		a.fmul(as, x1[k], s2[k])
		a.fsub(o1[k], ac, bs) // o1 = a·c − b·s
		a.fadd(o2[k], bc, as) // o2 = b·c + a·s
	}
	tmp := [4]vreg{24, 25, 26, 27}
	switch {
	case d == f32 && !f.out:
		a.ins("VST1.P [%s, %s], 32(%s)", o1[0].S4(), o1[1].S4(), rDst1)
		a.ins("VST1.P [%s, %s], 32(%s)", o2[0].S4(), o2[1].S4(), rDst2)
	case d == f32:
		for k := range 2 {
			a.ins("VST2.P [%s, %s], 32(%s)", o1[k].S4(), o2[k].S4(), rDst1)
		}
	case !f.out:
		a.narrow8(d, o1[0], o1[1], 20, tmp)
		a.ins("VST1.P [%s], 16(%s)", vreg(20).H8(), rDst1)
		a.narrow8(d, o2[0], o2[1], 21, tmp)
		a.ins("VST1.P [%s], 16(%s)", vreg(21).H8(), rDst2)
	default:
		a.narrow8(d, o1[0], o1[1], 20, tmp)
		a.narrow8(d, o2[0], o2[1], 21, tmp)
		a.ins("VST2.P [%s, %s], 32(%s)", vreg(20).H8(), vreg(21).H8(), rDst1)
	}
}
