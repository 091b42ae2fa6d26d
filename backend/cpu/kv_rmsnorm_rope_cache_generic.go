//go:build !amd64 || purego

package cpu

import "github.com/rotary-go/rotary/tensor"

// Without assembly kv_rmsnorm_rope_cache has no kernels: every token takes the Go path, and the
// kernels themselves are never reached.

func kvcNormAsm(isa, []float32, []float32, []float32, float32) bool { return false }

func kvcGroupOK(isa, tensor.DType, int, int) bool { return false }

func kvcGammaSplitAsm(isa, []float32, []uint16) (float32, bool) { return 0, false }

func kvcGroupAsm(tensor.DType, *kvcGroup, int, *kvcWeight, *kvcScratch, int) {
	panic("cpu: no assembly kernels in this build")
}
