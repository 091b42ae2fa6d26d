package cpu

import "github.com/rotary-go/rotary/tensor"

// widenBits widens bf16 or f16 bits into dst (len(dst) elements): the assembly takes the
// leading multiple of 16, Go the rest.
func widenBits(k *kernels, d tensor.DType, dst []float32, src []uint16) {
	src = src[:len(dst)]
	for i := widenAsm(k.isa, d, dst, src); i < len(dst); i++ {
		dst[i] = tensor.ToFloat32(d, src[i])
	}
}

// narrowBits rounds src to bf16 or f16 bits in dst (len(src) elements), nearest even.
func narrowBits(k *kernels, d tensor.DType, dst []uint16, src []float32) {
	dst = dst[:len(src)]
	for i := narrowAsm(k.isa, d, dst, src); i < len(src); i++ {
		dst[i] = tensor.FromFloat32(d, src[i])
	}
}
