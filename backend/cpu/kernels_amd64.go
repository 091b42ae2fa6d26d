//go:build amd64 && !purego

package cpu

import (
	"golang.org/x/sys/cpu"

	"github.com/rotary-go/rotary/tensor"
)

var (
	avx512bf16 = &kernels{name: "avx512bf16", isa: isaAVX512BF16}
	avx512     = &kernels{name: "avx512", isa: isaAVX512}
	avx2       = &kernels{name: "avx2", isa: isaAVX2}
)

// available lists the implementations this machine runs, best first.
func available() []*kernels {
	var impls []*kernels
	x := cpu.X86
	if x.HasAVX512F && x.HasAVX512BW && x.HasAVX512VL && x.HasAVX512DQ && x.HasAVX2 && x.HasF16C {
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

// avx512For reports whether kernel set i runs the AVX-512 kernels that store dtype d with
// rounding instructions: f32 and f16 on any AVX-512 set, bf16 only where VCVTNEPS2BF16 is.
func avx512For(i isa, d tensor.DType) bool {
	switch d {
	case tensor.F32, tensor.F16:
		return i == isaAVX512 || i == isaAVX512BF16
	case tensor.BF16:
		return i == isaAVX512BF16
	}
	return false
}
