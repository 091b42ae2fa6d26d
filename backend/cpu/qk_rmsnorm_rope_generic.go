//go:build !amd64 || purego

package cpu

import "github.com/rotary-go/rotary/tensor"

// Without assembly qk_rmsnorm_rope has no kernels: every head takes the Go path.

func qkNormAsm(isa, tensor.DType, *byte, int, int, []float32, int, float32) bool {
	return false
}

func qkNormRoPEAsm(isa, tensor.DType, bool, *byte, int, int, []float32, *[128]float32, []float32, []float32, float32, []float32) (int, bool) {
	return 0, false
}

func qkFusedWeight(isa, tensor.DType, *[128]float32, []float32) *[128]float32 {
	return nil
}
