//go:build amd64 && !purego

package cpu

import (
	"golang.org/x/sys/cpu"

	"github.com/rotary-go/rotary/tensor"
)

//go:generate sh -c "cd _asm && go run . -out ../rotate_amd64.s -stubs ../rotate_amd64_stubs.go && sed -i 's/^package _asm$/package cpu/' ../rotate_amd64_stubs.go"

var (
	avx512bf16 = &kernels{name: "avx512bf16", isa: isaAVX512BF16}
	avx512     = &kernels{name: "avx512", isa: isaAVX512}
	avx2       = &kernels{name: "avx2", isa: isaAVX2}
)

// callKernel runs the assembly kernel of an ISA for a dtype and style.
func callKernel(i isa, d tensor.DType, gptj bool, x *byte, heads, stride int, cos, sin *float32, half, n int) {
	if i == isaAVX512BF16 {
		if d == tensor.BF16 {
			if gptj {
				rotateGPTJBF16AVX512BF16(x, heads, stride, cos, sin, half, n)
			} else {
				rotateNeoXBF16AVX512BF16(x, heads, stride, cos, sin, half, n)
			}
			return
		}
		i = isaAVX512
	}
	switch {
	case i == isaAVX512 && d == tensor.F32 && !gptj:
		rotateNeoXF32AVX512(x, heads, stride, cos, sin, half, n)
	case i == isaAVX512 && d == tensor.F32:
		rotateGPTJF32AVX512(x, heads, stride, cos, sin, half, n)
	case i == isaAVX512 && d == tensor.BF16 && !gptj:
		rotateNeoXBF16AVX512(x, heads, stride, cos, sin, half, n)
	case i == isaAVX512 && d == tensor.BF16:
		rotateGPTJBF16AVX512(x, heads, stride, cos, sin, half, n)
	case i == isaAVX512 && !gptj:
		rotateNeoXF16AVX512(x, heads, stride, cos, sin, half, n)
	case i == isaAVX512:
		rotateGPTJF16AVX512(x, heads, stride, cos, sin, half, n)
	case d == tensor.F32 && !gptj:
		rotateNeoXF32AVX2(x, heads, stride, cos, sin, half, n)
	case d == tensor.F32:
		rotateGPTJF32AVX2(x, heads, stride, cos, sin, half, n)
	case d == tensor.BF16 && !gptj:
		rotateNeoXBF16AVX2(x, heads, stride, cos, sin, half, n)
	case d == tensor.BF16:
		rotateGPTJBF16AVX2(x, heads, stride, cos, sin, half, n)
	case !gptj:
		rotateNeoXF16AVX2(x, heads, stride, cos, sin, half, n)
	default:
		rotateGPTJF16AVX2(x, heads, stride, cos, sin, half, n)
	}
}

// available lists the implementations this machine runs, best first.
func available() []*kernels {
	var impls []*kernels
	x := cpu.X86
	if x.HasAVX512F && x.HasAVX512BW && x.HasAVX512VL && x.HasAVX2 && x.HasF16C {
		if x.HasAVX512BF16 {
			impls = append(impls, avx512bf16)
		}
		impls = append(impls, avx512)
	}
	if x.HasAVX2 && x.HasF16C {
		impls = append(impls, avx2)
	}
	return append(impls, generic)
}
