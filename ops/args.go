package ops

import "math"

// mulInt is a·b for a, b ≥ 0; ok is false when the product overflows int. Shapes, strides and
// index values come from callers, so the checks multiply them only once dividing shows the
// product fits.
func mulInt(a, b int) (int, bool) {
	if a != 0 && b > math.MaxInt/a {
		return 0, false
	}
	return a * b, true
}

// CosSinCache is vLLM's cos_sin_cache: Rows rows of 2·Half float32, cos half then sin half, the
// attention factor already applied.
type CosSinCache struct {
	Data []float32
	Rows int
	Half int
}

// Row returns the cos and sin halves of row p.
func (c *CosSinCache) Row(p int64) (cos, sin []float32) {
	r := c.Data[int(p)*2*c.Half : (int(p)+1)*2*c.Half]
	return r[:c.Half], r[c.Half:]
}

// RoPE is what every q/k rotation shares: which elements rotate and how, and the tensors.
type RoPE struct {
	// RotaryDim elements at the start of each head rotate; the rest pass through untouched.
	RotaryDim int
	// GPTJ pairs (2i, 2i+1); otherwise NeoX pairs (i, i + RotaryDim/2).
	GPTJ bool
	// Query is rotated in place; Key too when present.
	Query, Key Heads
}

// RotaryEmbeddingArgs are the arguments of op rotary_embedding (vLLM RotaryEmbedding.forward):
// token t rotates by row Positions.At(0, t) of Cache.
type RotaryEmbeddingArgs struct {
	RoPE
	Positions Positions
	Cache     CosSinCache
}

// MRoPEArgs are the arguments of op mrope: pair i of token t takes its cos/sin from row
// Positions.At(axis(i), t) of Cache, where the axis follows Sections (chunked) or the
// Qwen3-VL interleaving.
type MRoPEArgs struct {
	RoPE
	Positions   Positions
	Cache       CosSinCache
	Sections    []int
	Interleaved bool
}

// MRoPEAxis is the position axis of pair i: chunked (Qwen2-VL) takes consecutive runs of
// sections; interleaved (Qwen3-VL, as Hugging Face defines it) takes axis 1 for i%3 == 1 while
// i < 3·s1, axis 2 for i%3 == 2 while i < 3·s2, and axis 0 otherwise. A fourth section, when
// present, extends the chunked form.
func MRoPEAxis(i int, sections []int, interleaved bool) int {
	if interleaved {
		switch {
		case i%3 == 1 && i < 3*sections[1]:
			return 1
		case i%3 == 2 && i < 3*sections[2]:
			return 2
		}
		return 0
	}
	for a, s := range sections {
		if i < s {
			return a
		}
		i -= s
	}
	return len(sections) - 1
}

// GatheredArgs are the arguments of a rotation by cos/sin already gathered per token (the
// hoisted gather): token t uses Cos[t·Half : (t+1)·Half] and the same of Sin.
type GatheredArgs struct {
	RoPE
	Cos, Sin []float32
	Half     int
}
