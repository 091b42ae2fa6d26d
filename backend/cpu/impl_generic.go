//go:build !amd64 || purego

package cpu

import "github.com/rotary-go/rotary/tensor"

// available lists the implementations this build runs: only the pure-Go one.
func available() []*kernels { return []*kernels{generic} }

// callKernel is never reached without assembly: generic kernels have isaGeneric.
func callKernel(isa, tensor.DType, bool, bool, *byte, int, int, *float32, *float32, int, int) {
	panic("cpu: no assembly kernels in this build")
}

// Without assembly the kv_rmsnorm_rope_cache bulk helpers do nothing; Go does every element.
func widenAsm(isa, tensor.DType, []float32, []uint16) int           { return 0 }
func narrowAsm(isa, tensor.DType, []uint16, []float32) int          { return 0 }
func kvcNormAsm(isa, []float32, []float32, []float32, float32) bool { return false }
func kvcTokenOK(isa, tensor.DType, int, int) bool                   { return false }
func kvcGroupOK(isa, tensor.DType) bool                             { return false }
func interleaveRoPEOK(isa, tensor.DType, int) bool                  { return false }
func interleaveRoPEAsm(tensor.DType, *byte, *byte, int, int, int, *byte, *byte, int) {
	panic("cpu: no assembly kernels in this build")
}
func kvcGammaSplitAsm(isa, []float32, []uint16) bool { return false }
func kvcTokenAsm(isa, tensor.DType, *byte, *byte, *byte, *byte, *byte, []float32, int, float32) {
	panic("cpu: no assembly kernels in this build")
}
func kvcGroupAsm(*kvcGroup, int, []float32, *[kvcGroupSize]float32, int, float32) {
	panic("cpu: no assembly kernels in this build")
}
func qkNormAsm(isa, tensor.DType, *byte, int, int, []float32, int, float32) bool {
	return false
}

func qkNormRoPEAsm(isa, tensor.DType, bool, *byte, int, int, []float32, *[128]float32, []float32, []float32, float32, *qkScratch) (int, bool) {
	return 0, false
}

func qkFusedWeight(isa, tensor.DType, *[128]float32, []float32) *[128]float32 {
	return nil
}
