package main

import (
	"bytes"
	"fmt"
	"go/format"
	"os"
	"strings"

	"github.com/mmcloughlin/avo/printer"
)

// The arm64 kernels. avo writes amd64 only, so a64 writes Go arm64 assembly as text: one line
// per instruction, registers named by the kernels themselves (32 vector registers leave no
// need for an allocator), and the instructions Go 1.26's assembler lacks (NEON's floating-point
// arithmetic and conversions) as WORD directives carrying the mnemonic in a comment
// (arm64_encoding.go). The output depends on nothing but the code, so it is deterministic.

// neon is the Advanced SIMD kernel set. FEAT_BF16's BFCVTN would round bf16 in one instruction,
// but golang.org/x/sys/cpu (v0.49.0) reports no FEAT_BF16, so the kernels round bf16 with
// integer arithmetic everywhere rather than guess the feature from anything else.
var neon = isa{"NEON", 4, "isaNEON"}

var arm64Dispatch = dispatchArch{"arm64 && !purego", []dispatchISA{{neon, nil}}}

// vreg is a NEON register, V0 to V31.
type vreg int

func (v vreg) S4() string  { return fmt.Sprintf("V%d.S4", int(v)) }
func (v vreg) H8() string  { return fmt.Sprintf("V%d.H8", int(v)) }
func (v vreg) B16() string { return fmt.Sprintf("V%d.B16", int(v)) }

// xreg is a general register. Kernels use R0 to R17 and R19 to R25: R18 is the platform
// register, R26 to R30 belong to the toolchain and runtime (closure context, the assembler's
// temporary, g, frame pointer, link register).
type xreg int

func (r xreg) String() string { return fmt.Sprintf("R%d", int(r)) }

// a64Param is one argument of a kernel: its Go name and type, 8 bytes each.
type a64Param struct{ name, typ string }

// a64Func is a kernel's Go declaration, for the stubs file.
type a64Func struct {
	name, doc string
	params    []a64Param
}

// a64 accumulates the assembly file and what the Go side needs to know about it.
type a64 struct {
	b         bytes.Buffer
	funcs     []a64Func
	rotations []rotation
}

// ins writes one instruction (Go syntax: sources first, destination last).
func (a *a64) ins(format string, args ...any) {
	fmt.Fprintf(&a.b, "\t"+format+"\n", args...)
}

func (a *a64) label(name string) { fmt.Fprintf(&a.b, "%s:\n", name) }

func (a *a64) comment(text string) { fmt.Fprintf(&a.b, "\t// %s\n", text) }

// text starts a leaf kernel without a frame and loads its arguments into regs (one per param).
func (a *a64) text(name, doc string, params []a64Param, regs []xreg) {
	a.funcs = append(a.funcs, a64Func{name, doc, params})
	fmt.Fprintf(&a.b, "\n// func %s\nTEXT ·%s(SB), NOSPLIT|NOFRAME, $0-%d\n", goSignature(name, params), name, 8*len(params))
	for k, p := range params {
		a.ins("MOVD %s+%d(FP), %s", p.name, 8*k, regs[k])
	}
}

func goSignature(name string, params []a64Param) string {
	var s []string
	for _, p := range params {
		s = append(s, p.name+" "+p.typ)
	}
	return fmt.Sprintf("%s(%s)", name, strings.Join(s, ", "))
}

// generateARM64 writes the NEON kernels to asmPath, their Go declarations to stubsPath and
// their callKernel to dispatchPath, as package pkg.
func generateARM64(asmPath, stubsPath, dispatchPath, pkg string) error {
	a := &a64{}
	a.rotationKernels()
	a.convertKernels()
	a.mropeGatherKernel()
	header := "// " + printer.NewGoRunConfig().GeneratedWarning() + "\n\n//go:build " + arm64Dispatch.constraint + "\n\n"
	asm := header + "#include \"textflag.h\"\n" + a.b.String()
	if err := os.WriteFile(asmPath, []byte(asm), 0o644); err != nil {
		return err
	}
	var s bytes.Buffer
	s.WriteString(header + "package " + pkg + "\n")
	for _, f := range a.funcs {
		fmt.Fprintf(&s, "\n// %s\n//\n//go:noescape\nfunc %s\n", f.doc, goSignature(f.name, f.params))
	}
	src, err := format.Source(s.Bytes())
	if err != nil {
		return fmt.Errorf("arm64 stubs: %v", err)
	}
	if err := os.WriteFile(stubsPath, src, 0o644); err != nil {
		return err
	}
	return writeDispatch(dispatchPath, pkg, arm64Dispatch, a.rotations, nil)
}
