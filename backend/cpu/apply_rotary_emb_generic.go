//go:build !amd64 || purego

package cpu

import "github.com/rotary-go/rotary/tensor"

// backwardSumsAsm: no kernels without assembly.
func backwardSumsAsm(isa, tensor.DType, bool, *float64, *float64, *byte, *byte, int, int, int, int) int {
	return 0
}

// backwardFused: no fused kernels without assembly.
type backwardFused struct {
	dy, x, dx, cos, sin, dcos, dsin                          *byte
	rows, ys, xs, os                                         int
	count, ystep, xstep, ostep, cstep, sstep, dcstep, dsstep int
	half, n                                                  int
	groups, yg, xg, og                                       int
}

// hasBackwardFused: no fused kernels without assembly.
func hasBackwardFused(isa, tensor.DType, bool) bool { return false }

// backwardFusedAsm is never called without assembly (hasBackwardFused).
func backwardFusedAsm(isa, tensor.DType, bool, *backwardFused) {}
