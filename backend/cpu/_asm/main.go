// Command _asm generates the AVX-512 and AVX2 kernels of package cpu, its arm64 NEON kernels,
// and for each architecture the table that dispatches the rotation kernels (the go:generate
// lines in backend/cpu/kernels.go run it):
//
//	cd backend/cpu/_asm && go run . -pkg cpu -out ../rotate_amd64.s -stubs ../rotate_amd64_stubs.go -dispatch ../dispatch_amd64.go
//	cd backend/cpu/_asm && go run . -arch arm64 -pkg cpu -out ../rotate_arm64.s -stubs ../rotate_arm64_stubs.go -dispatch ../dispatch_arm64.go
//
// Every kernel keeps the reference's order of operations (in the rotations each product rounded
// to float32, then one add or subtract, never an FMA; the norms' sums of squares are fused
// multiply-adds because native.SumSquares defines them so), so it matches backend/native bit for bit.
//
// The files follow package cpu's, one per op; ARCHITECTURE.md lists what the shared ones hold.
// The arm64 kernels are text templates rather than avo, which writes amd64 only.
package main

import (
	"flag"
	"fmt"
	"os"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
)

var (
	dispatchOut = flag.String("dispatch", "", "Go file to write callKernel, the rotation kernels' dispatch, to")
	arch        = flag.String("arch", "amd64", "the architecture to write the kernels of: amd64 (with avo) or arm64")
)

func main() {
	flag.Parse() // before Generate, so that -dispatch is known; Generate skips a second parse
	switch *arch {
	case "amd64":
	case "arm64":
		// avo's -out, -stubs and -pkg name the arm64 files too.
		if err := generateARM64(flag.Lookup("out").Value.String(), flag.Lookup("stubs").Value.String(), *dispatchOut, flag.Lookup("pkg").Value.String()); err != nil {
			fail(err)
		}
		return
	default:
		fail(fmt.Errorf("-arch %q: want amd64 or arm64", *arch))
	}
	g := &generator{}
	// No Package(): the stubs take their package name from -pkg, so that the generator never
	// loads package cpu (another module) through x/tools.
	ConstraintExpr("amd64,!purego")
	g.declareData()
	g.rotateKernels()
	// The bulk conversions of cpu's convert.go (widenBits, narrowBits).
	for _, s := range []isa{avx512, avx2} {
		for _, d := range []dtype{bf16, f16} {
			g.widenKernel(s, d)
			g.narrowKernel(s, d)
		}
	}
	g.narrowKernel(avx512BF16, bf16)
	g.kvcNormKernel()
	g.interleaveRoPEKernel(avx512, f32)
	g.interleaveRoPEKernel(avx512, f16)
	g.interleaveRoPEKernel(avx512BF16, bf16)
	g.kvcGroupKernel(avx512BF16, bf16)
	g.kvcGroupKernel(avx512, f32)
	g.kvcGroupKernel(avx512, f16)
	g.kvcGammaSplitKernel()
	for _, s := range []isa{avx512, avx512BF16} {
		for _, d := range []dtype{f32, bf16, f16} {
			if s == avx512BF16 && d != bf16 {
				continue
			}
			g.qkNormKernel(s, d)
		}
	}
	// (Plain AVX-512's bf16 integer rounding needs seven constant registers: with two heads'
	// sixteen there are not enough, and bf16 there takes the norm kernel and the rotation.)
	g.qkNormRoPEKernel(avx512, f32)
	g.qkNormRoPEKernel(avx512, f16)
	g.qkWeightBF16Kernel()
	g.qkNormRoPEBF16Kernel()
	g.streamKernels()
	g.backwardSumsKernels()
	g.mropeGatherKernel()
	g.mropeTokensKernel(avx512, f32)
	g.mropeTokensKernel(avx512, f16)
	g.mropeTokensKernel(avx512, bf16)
	g.mropeTokensKernel(avx512BF16, bf16)
	g.queryScaleKernels()
	Generate()
	if out := flag.Lookup("out").Value.String(); out != "" && out != "-" {
		if err := encodeBF16(out); err != nil {
			fail(err)
		}
	}
	if *dispatchOut != "" {
		if err := writeDispatch(*dispatchOut, flag.Lookup("pkg").Value.String(), amd64Dispatch, g.rotations, g.tokenRotations); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

// generator carries what outlives one avo call: the shared constants' symbols, label numbering,
// and per kernel its flavour and cold paths; avo's own state stays in its global context.
type generator struct {
	data constData

	// fastBF16 is set while emitting an AVX512BF16 kernel: its bf16 stores use VCVTNEPS2BF16.
	fastBF16 bool

	// labels numbers block-local labels, which a kernel may emit several of.
	labels int

	// coldPaths are emitted after the current kernel's RET: rarely taken code kept out of the
	// loops' straight line, each ending in a jump back.
	coldPaths []func()

	// rotations records the rotation kernels in the order emitted, for the dispatch table;
	// tokenRotations likewise the kernels that rotate a run of tokens (tokensKernel).
	rotations, tokenRotations []rotation

	// exit is the label a rotation body (rotateHeads) ends at.
	exit string
}

func (g *generator) newLabel(prefix string) string {
	g.labels++
	return fmt.Sprintf("%s%d", prefix, g.labels)
}

// retWithColdPaths ends a kernel: VZEROUPPER and RET, then its cold paths.
func (g *generator) retWithColdPaths() {
	VZEROUPPER()
	RET()
	for _, f := range g.coldPaths {
		f()
	}
	g.coldPaths = nil
}

type dtype struct {
	name   string
	esize  int    // bytes per element in memory
	goName string // package cpu's name for it
}

var (
	f32  = dtype{"F32", 4, "tensor.F32"}
	bf16 = dtype{"BF16", 2, "tensor.BF16"}
	f16  = dtype{"F16", 2, "tensor.F16"}
)

type isa struct {
	name   string
	lanes  int    // float32 lanes of the widest vector
	goName string // package cpu's constant for it
}

var (
	avx512     = isa{"AVX512", 16, "isaAVX512"}
	avx512BF16 = isa{"AVX512BF16", 16, "isaAVX512BF16"} // AVX-512 plus VCVTNEPS2BF16 for the bf16 stores
	avx2       = isa{"AVX2", 8, "isaAVX2"}
)

// constData holds the read-only data symbols the kernels share, declared once per file.
type constData struct {
	one, bias, absMask, absMaskW, inf Mem
	quiet, sign, allOnes              Mem
	expMask                           Mem
	dup16                             Mem
	hiMask, quiet32, oneF64           Mem
	minNormalW, tinyTrig, bigExpW     Mem
	evenIdx, oddIdx                   Mem
	evenSign64                        *Mem        // declared by the kernel that uses it
	sums                              *sumsTables // likewise
}

func (g *generator) declareData() {
	c := &g.data
	c.one = ConstData("one", U32(1))
	c.bias = ConstData("bias", U32(0x7fff))
	c.absMask = ConstData("absmask", U32(0x7fffffff))
	c.absMaskW = ConstData("absmaskw", U32(0x7fff7fff))
	c.allOnes = ConstData("allones", U32(0xffffffff)) // a broadcast, unlike VPTERNLOGD, reads no register
	c.inf = ConstData("inf", U32(0x7f800000))
	c.quiet = ConstData("quiet", U32(0x40))
	c.expMask = ConstData("expmask", U32(0x7f800000))
	c.hiMask = ConstData("himask", U32(0xffff0000))
	c.minNormalW = ConstData("minnormalw", U32(0x01000100)) // bf16 words doubled: below it, zero or subnormal
	c.tinyTrig = ConstData("tinytrig", U32(0x2bffffff))     // float32 bits of 2^-39, less one
	c.bigExpW = ConstData("bigexpw", U32(0x60006000))       // bf16 exponent bits 6 and 7: set means ≥ 2^-63
	c.quiet32 = ConstData("quiet32", U32(0x00400000))
	c.oneF64 = ConstData("onef64", U64(0x3ff0000000000000)) // 1.0 (avo writes F64(1) as the integer 1)
	var sign, dup [16]int
	for i := range 16 {
		if i%2 == 0 {
			sign[i] = 0x80000000
		}
		dup[i] = i / 2
	}
	c.sign = dwordTable("evensign", sign)
	c.dup16 = dwordTable("dupidx", dup)
	// A pair of registers' worth of elements deinterleaved: the even ones, then the odd ones.
	l := loadedLanes()
	c.evenIdx, c.oddIdx = dwordTable("evenidx", l.e), dwordTable("oddidx", l.o)
}

// styleName is a rotation style as kernel names spell it.
func styleName(gptj bool) string {
	if gptj {
		return "GPTJ"
	}
	return "NeoX"
}

func log2(v int) int {
	n := 0
	for v > 1 {
		v >>= 1
		n++
	}
	return n
}
