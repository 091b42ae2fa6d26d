//go:build !amd64 || purego

package cpu

import "github.com/rotary-go/rotary/tensor"

// backwardSumsAsm: no kernels without assembly.
func backwardSumsAsm(isa, tensor.DType, bool, *float64, *float64, *byte, *byte, int, int, int, int) int {
	return 0
}

// hasBackwardFused: no fused kernels without assembly.
func hasBackwardFused(isa) bool { return false }

// backwardFusedAsm is never called without assembly (hasBackwardFused).
func backwardFusedAsm(isa, tensor.DType, bool, *backwardFused) {}
