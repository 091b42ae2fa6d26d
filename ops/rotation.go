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
