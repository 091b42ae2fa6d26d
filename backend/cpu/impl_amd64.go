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

// callKernel runs the assembly kernel of an ISA for a dtype and style; full selects the kernels
// that take full-width (per-element) cos/sin rows. The integer switch compiles to a jump table.
func callKernel(i isa, d tensor.DType, gptj, full bool, x *byte, heads, stride int, cos, sin *float32, half, n int) {
	id := 0
	switch d {
	case tensor.BF16:
		id = 4
	case tensor.F16:
		id = 8
	}
	if gptj {
		id += 2
	}
	if full {
		id++
	}
	switch i {
	case isaAVX512BF16:
		if d == tensor.BF16 {
			id += 12 * 3
		} else {
			id += 12 * 1
		}
	case isaAVX512:
		id += 12 * 1
	}
	switch id {
	case 0:
		rotateNeoXF32AVX2(x, heads, stride, cos, sin, half, n)
	case 1:
		rotateFullNeoXF32AVX2(x, heads, stride, cos, sin, half, n)
	case 2:
		rotateGPTJF32AVX2(x, heads, stride, cos, sin, half, n)
	case 3:
		rotateFullGPTJF32AVX2(x, heads, stride, cos, sin, half, n)
	case 4:
		rotateNeoXBF16AVX2(x, heads, stride, cos, sin, half, n)
	case 5:
		rotateFullNeoXBF16AVX2(x, heads, stride, cos, sin, half, n)
	case 6:
		rotateGPTJBF16AVX2(x, heads, stride, cos, sin, half, n)
	case 7:
		rotateFullGPTJBF16AVX2(x, heads, stride, cos, sin, half, n)
	case 8:
		rotateNeoXF16AVX2(x, heads, stride, cos, sin, half, n)
	case 9:
		rotateFullNeoXF16AVX2(x, heads, stride, cos, sin, half, n)
	case 10:
		rotateGPTJF16AVX2(x, heads, stride, cos, sin, half, n)
	case 11:
		rotateFullGPTJF16AVX2(x, heads, stride, cos, sin, half, n)
	case 12:
		rotateNeoXF32AVX512(x, heads, stride, cos, sin, half, n)
	case 13:
		rotateFullNeoXF32AVX512(x, heads, stride, cos, sin, half, n)
	case 14:
		rotateGPTJF32AVX512(x, heads, stride, cos, sin, half, n)
	case 15:
		rotateFullGPTJF32AVX512(x, heads, stride, cos, sin, half, n)
	case 16:
		rotateNeoXBF16AVX512(x, heads, stride, cos, sin, half, n)
	case 17:
		rotateFullNeoXBF16AVX512(x, heads, stride, cos, sin, half, n)
	case 18:
		rotateGPTJBF16AVX512(x, heads, stride, cos, sin, half, n)
	case 19:
		rotateFullGPTJBF16AVX512(x, heads, stride, cos, sin, half, n)
	case 20:
		rotateNeoXF16AVX512(x, heads, stride, cos, sin, half, n)
	case 21:
		rotateFullNeoXF16AVX512(x, heads, stride, cos, sin, half, n)
	case 22:
		rotateGPTJF16AVX512(x, heads, stride, cos, sin, half, n)
	case 23:
		rotateFullGPTJF16AVX512(x, heads, stride, cos, sin, half, n)
	case 40:
		rotateNeoXBF16AVX512BF16(x, heads, stride, cos, sin, half, n)
	case 41:
		rotateFullNeoXBF16AVX512BF16(x, heads, stride, cos, sin, half, n)
	case 42:
		rotateGPTJBF16AVX512BF16(x, heads, stride, cos, sin, half, n)
	case 43:
		rotateFullGPTJBF16AVX512BF16(x, heads, stride, cos, sin, half, n)
	default:
		panic("cpu: no kernel for this ISA and dtype")
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
