//go:build (!amd64 && !arm64) || purego

package cpu

import "github.com/rotary-go/rotary/tensor"

// Without assembly interleave_rope has no kernel: every row takes the Go path, and the kernel
// itself is never reached.

func interleaveRoPEOK(isa, tensor.DType, int, bool) bool { return false }

func interleaveRoPEAsm(tensor.DType, *byte, *byte, int, int, int, *byte, *byte, int, bool) {
	panic("cpu: no assembly kernels in this build")
}
