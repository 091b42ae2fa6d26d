package main

import (
	"bytes"
	"fmt"
	"go/format"
	"os"

	"github.com/mmcloughlin/avo/printer"
)

// dispatchArch is one architecture's callKernel: the build constraint of its file and its ISAs
// in the order of the numbering. An ISA with a fallback runs the fallback's kernels for the
// dtypes it has none of its own for.
type dispatchArch struct {
	constraint string
	isas       []dispatchISA
}

type dispatchISA struct {
	isa      isa
	fallback *isa
}

var amd64Dispatch = dispatchArch{"amd64 && !purego", []dispatchISA{
	{avx2, nil},
	{avx512, nil},
	{avx512BF16, &avx512},
}}

// rotateDTypes are callKernel's dtypes in the order of its numbering; the first is also what
// it takes any other dtype for, as the hand-written switch it replaced did.
var rotateDTypes = []dtype{f32, bf16, f16}

// rotateStyles is how many kernels one ISA has per dtype: NeoX or GPT-J, by pair or full row.
const rotateStyles = 4

// rotateID numbers a rotation kernel as callKernel computes it: ISA, then dtype, then style,
// then full; -1 for an ISA or dtype outside the numbering.
func (a dispatchArch) rotateID(s isa, d dtype, gptj, full bool) int {
	si, di := -1, -1
	for k, r := range a.isas {
		if r.isa == s {
			si = k
		}
	}
	for k, t := range rotateDTypes {
		if t == d {
			di = k
		}
	}
	if si < 0 || di < 0 {
		return -1
	}
	id := (si*len(rotateDTypes) + di) * rotateStyles
	if gptj {
		id += 2
	}
	if full {
		id++
	}
	return id
}

// writeDispatch writes callKernel, the switch that picks a rotation kernel, as a Go file of
// package pkg. The kernels are numbered here from the ones emitted, so that a kernel added or
// removed cannot leave the Go side calling another one by a stale number. The switch calls
// each kernel directly, not through a table of function values, so that the compiler sees the
// kernels' noescape and callers' cos/sin rows can stay on the stack.
//
// callTokensKernel likewise picks a token-run kernel (tokensKernel) by the same numbering,
// reporting false where the architecture has none for the ISA, dtype and style.
func writeDispatch(path, pkg string, arch dispatchArch, rotations, tokens []rotation) error {
	names := map[int]string{}
	full := map[int]bool{} // the ids of kernels that read from src
	has := map[isa]map[dtype]bool{}
	maxID := -1
	for _, r := range rotations {
		id := arch.rotateID(r.isa, r.dtype, r.gptj, r.full)
		if id < 0 {
			return fmt.Errorf("dispatch: %s is outside callKernel's numbering", r.name)
		}
		if old, dup := names[id]; dup {
			return fmt.Errorf("dispatch: %s and %s both have id %d", old, r.name, id)
		}
		names[id] = r.name
		full[id] = r.full
		maxID = max(maxID, id)
		if has[r.isa] == nil {
			has[r.isa] = map[dtype]bool{}
		}
		has[r.isa][r.dtype] = true
	}
	// complete reports an ISA's dtype that lacks one of the styles: callKernel would panic on it.
	complete := func(s isa, d dtype) error {
		for _, gptj := range []bool{false, true} {
			for _, full := range []bool{false, true} {
				if _, ok := names[arch.rotateID(s, d, gptj, full)]; !ok {
					return fmt.Errorf("dispatch: %s has %s rotation kernels but not all of their styles", s.name, d.name)
				}
			}
		}
		return nil
	}
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	p("// %s", printer.NewGoRunConfig().GeneratedWarning())
	p("")
	p("//go:build %s", arch.constraint)
	p("")
	p("package %s", pkg)
	p("")
	p(`import "github.com/rotary-go/rotary/tensor"`)
	p("")
	p("// callKernel runs the assembly kernel of an ISA for a dtype and style; full selects the kernels")
	p("// that take full-width (per-element) cos/sin rows, which read the heads from src (srcStride")
	p("// bytes apart; x itself in place); the others ignore src. The integer switch compiles to a")
	p("// jump table; _asm numbers the kernels as it emits them.")
	p("func callKernel(i isa, d tensor.DType, gptj, full bool, x *byte, heads, stride int, cos, sin *float32, half, n int, src *byte, srcStride int) {")
	p("switch kernelID(i, d, gptj, full) {")
	for id := 0; id <= maxID; id++ {
		if name, ok := names[id]; ok {
			p("case %d:", id)
			if full[id] {
				p("%s(x, heads, stride, cos, sin, half, n, src, srcStride)", name)
			} else {
				p("%s(x, heads, stride, cos, sin, half, n)", name)
			}
		}
	}
	p("default:")
	p(`panic("cpu: no kernel for this ISA and dtype")`)
	p("}")
	p("}")
	p("")
	p("// callTokensKernel runs the token-run kernel of an ISA for a dtype and style (rotateTokens) and")
	p("// reports true, or reports false where there is none.")
	p("func callTokensKernel(i isa, d tensor.DType, gptj bool, x *byte, heads, stride, step int, x2 *byte, heads2, stride2, step2 int, rows **float32, tokens, half, n int) bool {")
	tokenNames := map[int]string{}
	for _, r := range tokens {
		id := arch.rotateID(r.isa, r.dtype, r.gptj, false)
		if id < 0 || names[id] == "" {
			return fmt.Errorf("dispatch: %s has no per-call kernel of its ISA, dtype and style", r.name)
		}
		if old, dup := tokenNames[id]; dup {
			return fmt.Errorf("dispatch: %s and %s both have id %d", old, r.name, id)
		}
		tokenNames[id] = r.name
	}
	if len(tokenNames) == 0 {
		p("return false")
	} else {
		p("switch kernelID(i, d, gptj, false) {")
		for id := 0; id <= maxID; id++ {
			if name, ok := tokenNames[id]; ok {
				p("case %d:", id)
				p("%s(x, heads, stride, step, x2, heads2, stride2, step2, rows, tokens, half, n)", name)
			}
		}
		p("default:")
		p("return false")
		p("}")
		p("return true")
	}
	p("}")
	p("")
	p("// kernelID is the number _asm gave the kernel of an ISA for a dtype and style.")
	p("func kernelID(i isa, d tensor.DType, gptj, full bool) int {")
	p("id := 0")
	p("switch d {")
	for k, d := range rotateDTypes[1:] {
		p("case %s:", d.goName)
		p("id = %d", (k+1)*rotateStyles)
	}
	p("}")
	p("if gptj {")
	p("id += 2")
	p("}")
	p("if full {")
	p("id++")
	p("}")
	// The ISAs' offsets, a switch on i unless every kernel is at offset 0 (one ISA alone).
	var isaCases bytes.Buffer
	q := func(format string, args ...any) { fmt.Fprintf(&isaCases, format+"\n", args...) }
	for _, r := range arch.isas {
		base := arch.rotateID(r.isa, rotateDTypes[0], false, false)
		var own, other []dtype
		for _, d := range rotateDTypes {
			if has[r.isa][d] {
				if err := complete(r.isa, d); err != nil {
					return err
				}
				own = append(own, d)
			} else {
				other = append(other, d)
			}
		}
		fallback := 0
		if len(other) > 0 {
			if r.fallback == nil {
				return fmt.Errorf("dispatch: %s has no %s rotation kernels and no fallback", r.isa.name, other[0].name)
			}
			for _, d := range other {
				if !has[*r.fallback][d] {
					return fmt.Errorf("dispatch: neither %s nor its fallback %s has %s rotation kernels", r.isa.name, r.fallback.name, d.name)
				}
				if err := complete(*r.fallback, d); err != nil {
					return err
				}
			}
			fallback = arch.rotateID(*r.fallback, rotateDTypes[0], false, false)
		}
		switch {
		case len(other) == 0 && base == 0:
			// The ids without an ISA offset are this ISA's.
		case len(other) == 0:
			q("case %s:", r.isa.goName)
			q("id += %d", base)
		case len(own) == 0:
			q("case %s: // %s's kernels", r.isa.goName, r.fallback.goName)
			q("id += %d", fallback)
		default:
			q("case %s:", r.isa.goName)
			q("switch d {")
			q("case %s:", goNames(own))
			q("id += %d", base)
			q("default: // %s's kernels", r.fallback.goName)
			q("id += %d", fallback)
			q("}")
		}
	}
	if isaCases.Len() > 0 {
		p("switch i {")
		b.Write(isaCases.Bytes())
		p("}")
	}
	p("return id")
	p("}")
	src, err := format.Source(b.Bytes())
	if err != nil {
		return fmt.Errorf("dispatch: %v", err)
	}
	return os.WriteFile(path, src, 0o644)
}

func goNames(ds []dtype) string {
	var b bytes.Buffer
	for k, d := range ds {
		if k > 0 {
			b.WriteString(", ")
		}
		b.WriteString(d.goName)
	}
	return b.String()
}
