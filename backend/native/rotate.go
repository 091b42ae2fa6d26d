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
	for head := range h.NumHeads {
		base := h.Off + t*h.TokenStride + head*h.HeadStride
		for i := range half {
			a, b := pairIndex(i, half, gptj)
			a, b = base+a, base+b
			if h.DType == tensor.F32 {
				h.F32[a], h.F32[b] = rotatePair(h.F32[a], h.F32[b], cos[i], sin[i])
				continue
			}
			o1, o2 := rotatePair(tensor.ToFloat32(h.DType, h.Bits[a]), tensor.ToFloat32(h.DType, h.Bits[b]), cos[i], sin[i])
			h.Bits[a], h.Bits[b] = tensor.FromFloat32(h.DType, o1), tensor.FromFloat32(h.DType, o2)
		}
	}
}

// rotateQK rotates query and (when present) key of token t.
func rotateQK(r *ops.RoPE, t int, cos, sin []float32) {
	rotateHeads(&r.Query, t, cos, sin, r.GPTJ)
	if r.Key.Present() {
		rotateHeads(&r.Key, t, cos, sin, r.GPTJ)
	}
}

// RotaryEmbedding is op rotary_embedding: token t rotates by cache row positions[t].
func RotaryEmbedding(a *ops.RotaryEmbeddingArgs) {
	for t := range a.Query.Tokens {
		cos, sin := a.Cache.Row(a.Positions.At(0, t))
		rotateQK(&a.RoPE, t, cos, sin)
	}
}

// Gathered rotates token t by the t-th row of already gathered cos/sin.
func Gathered(a *ops.GatheredArgs) {
	for t := range a.Query.Tokens {
		rotateQK(&a.RoPE, t, a.Cos[t*a.Half:(t+1)*a.Half], a.Sin[t*a.Half:(t+1)*a.Half])
	}
}

// MRoPE is op mrope: pair i of token t takes cos/sin from the cache row of its axis's position.
func MRoPE(a *ops.MRoPEArgs) {
	half := a.Cache.Half
	var stack [2 * 256]float32
	buf := stack[:]
	if 2*half > len(buf) {
		buf = make([]float32, 2*half)
	}
	cos, sin := buf[:half], buf[half:2*half]
	for t := range a.Query.Tokens {
		for i := range half {
			axis := MRoPEAxis(i, a.Sections, a.Interleaved)
			c, s := a.Cache.Row(a.Positions.At(axis, t))
			cos[i], sin[i] = c[i], s[i]
		}
		rotateQK(&a.RoPE, t, cos, sin)
	}
}
