//go:build !amd64 || purego

package cpu

import "github.com/rotary-go/rotary/tensor"

// Without query_scale's kernels Go scales every element (on arm64 through the NEON
// conversions).

func queryScaleF32Asm(isa, []float32, float32) int { return 0 }

func queryScaleBitsAsm(isa, tensor.DType, []uint16, float32) int { return 0 }
