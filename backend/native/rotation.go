package native

import (
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// rotatePair is the one rotation formula: each product rounds to float32 before the sum, so the
// compiler cannot fuse it into an FMA and every backend can reproduce it exactly.
func rotatePair(x1, x2, c, s float32) (float32, float32) {
	return float32(x1*c) - float32(x2*s), float32(x2*c) + float32(x1*s)
}

// pairIndex returns the element indices of rotation pair i of a head with `half` pairs.
func pairIndex(i, half int, gptj bool) (int, int) {
	if gptj {
		return 2 * i, 2*i + 1
	}
	return i, i + half
}

// rotateHeads rotates every head of token t of h by the given cos/sin halves.
func rotateHeads(h *ops.Heads, t int, cos, sin []float32, gptj bool) {
	half := len(cos)
	x := headsData(h)
	for head := range h.NumHeads {
		base := h.Off + t*h.TokenStride + head*h.HeadStride
		for i := range half {
			a, b := pairIndex(i, half, gptj)
			a, b = base+a, base+b
			o1, o2 := rotatePair(x.Float32At(a), x.Float32At(b), cos[i], sin[i])
			x.SetFloat32(a, o1)
			x.SetFloat32(b, o2)
		}
	}
}

// headsData is h's backing as a tensor, for its element loads and stores.
func headsData(h *ops.Heads) tensor.Tensor {
	return tensor.Tensor{DType: h.DType, F32: h.F32, Bits: h.Bits}
}

// rotateQK rotates query and (when present) key of token t.
func rotateQK(r *ops.RoPE, t int, cos, sin []float32) {
	rotateHeads(&r.Query, t, cos, sin, r.GPTJ)
	if r.Key.Present() {
		rotateHeads(&r.Key, t, cos, sin, r.GPTJ)
	}
}
