//go:build (!amd64 && !arm64) || purego

package cpu

import "github.com/rotary-go/rotary/tensor"

// callKernel is never reached without assembly: generic kernels have isaGeneric.
func callKernel(isa, tensor.DType, bool, bool, *byte, int, int, *float32, *float32, int, int, *byte, int) {
	panic("cpu: no assembly kernels in this build")
}

// callTokensKernel has no kernel to run without assembly.
func callTokensKernel(isa, tensor.DType, bool, *byte, int, int, int, *byte, int, int, int, **float32, int, int, int) bool {
	return false
}
