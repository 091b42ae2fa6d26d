package cpu

import (
	"unsafe"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// kernels names one implementation: "avx512bf16", "avx512", "avx2" or "generic". Its assembly is reached
// through callKernel's switch of direct calls, not function values, so the compiler sees the
// kernels' noescape and the cos/sin rows can stay on the caller's stack.
type kernels struct {
	name string
	isa  isa
}

type isa uint8

const (
	isaGeneric isa = iota
	isaAVX2
	isaAVX512
	isaAVX512BF16 // AVX-512 with VCVTNEPS2BF16 for bf16 stores
)

// rotateHeads rotates every head of token t of h by the token's cos/sin rows: the assembly
// kernel takes the pairs in blocks of 8, the Go loop the rest.
func rotateHeads(k *kernels, h *ops.Heads, t int, cos, sin []float32, gptj bool) {
	half := len(cos)
	if half == 0 || h.NumHeads == 0 {
		return
	}
	base := h.Off + t*h.TokenStride
	n := 0
	if k.isa != isaGeneric && half >= 8 {
		n = half &^ 7
		callKernel(k.isa, h.DType, gptj, false, headPtr(h, base), h.NumHeads, h.HeadStride*h.DType.Size(), &cos[0], &sin[0], half, n)
	}
	if n == half {
		return
	}
	for head := range h.NumHeads {
		off := base + head*h.HeadStride
		switch {
		case h.DType == tensor.F32 && gptj:
			gptjF32(h.F32[off:off+2*half], cos, sin, n)
		case h.DType == tensor.F32:
			neoxF32(h.F32[off:off+2*half], cos, sin, n)
		case gptj:
			gptjBits(h.DType, h.Bits[off:off+2*half], cos, sin, n)
		default:
			neoxBits(h.DType, h.Bits[off:off+2*half], cos, sin, n)
		}
	}
}

// headPtr is the address of backing element i of h's data.
func headPtr(h *ops.Heads, i int) *byte {
	if h.DType == tensor.F32 {
		return (*byte)(unsafe.Pointer(&h.F32[i]))
	}
	return (*byte)(unsafe.Pointer(&h.Bits[i]))
}

// The Go kernels rotate pairs [from, len(cos)) of one head, x = the head's first 2·len(cos)
// elements, with the reference's order of operations.

func neoxF32(x, cos, sin []float32, from int) {
	h := len(cos)
	x1, x2, sin := x[:h:h], x[h:2*h:2*h], sin[:h:h]
	for i := from; i < h; i++ {
		a, b, c, s := x1[i], x2[i], cos[i], sin[i]
		x1[i] = float32(a*c) - float32(b*s)
		x2[i] = float32(b*c) + float32(a*s)
	}
}

func gptjF32(x, cos, sin []float32, from int) {
	h := len(cos)
	x, sin = x[:2*h:2*h], sin[:h:h]
	for i := from; i < h; i++ {
		a, b, c, s := x[2*i], x[2*i+1], cos[i], sin[i]
		x[2*i] = float32(a*c) - float32(b*s)
		x[2*i+1] = float32(b*c) + float32(a*s)
	}
}

func neoxBits(d tensor.DType, x []uint16, cos, sin []float32, from int) {
	h := len(cos)
	x1, x2, sin := x[:h:h], x[h:2*h:2*h], sin[:h:h]
	for i := from; i < h; i++ {
		a, b, c, s := tensor.ToFloat32(d, x1[i]), tensor.ToFloat32(d, x2[i]), cos[i], sin[i]
		x1[i] = tensor.FromFloat32(d, float32(a*c)-float32(b*s))
		x2[i] = tensor.FromFloat32(d, float32(b*c)+float32(a*s))
	}
}

func gptjBits(d tensor.DType, x []uint16, cos, sin []float32, from int) {
	h := len(cos)
	x, sin = x[:2*h:2*h], sin[:h:h]
	for i := from; i < h; i++ {
		a, b, c, s := tensor.ToFloat32(d, x[2*i]), tensor.ToFloat32(d, x[2*i+1]), cos[i], sin[i]
		x[2*i] = tensor.FromFloat32(d, float32(a*c)-float32(b*s))
		x[2*i+1] = tensor.FromFloat32(d, float32(b*c)+float32(a*s))
	}
}

// generic is the pure-Go implementation: every pair goes through the Go loops.
var generic = &kernels{name: "generic", isa: isaGeneric}

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
