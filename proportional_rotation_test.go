package rotary

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rotary-go/rotary/tensor"
)

// TestProportional: Gemma 4's proportional RoPE rotates, through every backend, dtype and
// layout, Forward and Gather + Apply alike, as the float64 evaluation of the upstream formula
// (modeling_gemma4.py apply_rotary_pos_emb: x·cos + rotate_half(x)·sin) says, at positions around every boundary of google/gemma-4's full layers (the sliding
// window, max_position_embeddings 131072 and 262144, the cache's last row) up to 2^20. The
// pairs with frequency 0 (cos 1, sin 0) come out as that formula's exact result: the input
// itself, bit for bit, for every finite value but a zero whose partner's sign flips it.
func TestProportional(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 4))
	positions := []int64{0, 1, 2, 1023, 1024, 131071, 131072, 262143, 262144, 262145, 1<<20 - 1, 1 << 20}
	specials := []float64{math.Copysign(0, -1), 0, 1e-40, -6e4, 65504, -1.5e-5}
	for _, c := range []struct {
		name                  string
		head                  int
		base, factor, partial float64
		style                 Style
	}{
		{"gemma-4 full layer", 512, 1e6, 1, 0.25, NeoX},
		{"factor 8, half the head, gptj", 128, 10000, 8, 0.5, GPTJ},
		{"no pair rotates", 64, 10000, 1, 0, NeoX},
	} {
		rotated := int(math.Floor(c.partial * float64(c.head) / 2))
		spec := Spec{HeadSize: c.head, RotaryDim: c.head, Base: c.base, Style: c.style, MaxPositions: 262144,
			Scaling: Scaling{Type: ScalingProportional, Factor: c.factor, RotatedPairs: rotated}}
		inv, _ := spec.Frequencies(-1) // package rope's TestProportionalFrequencies holds them to upstream
		theta := plainTheta(positions, inv)
		for _, d := range dispatchers(t) {
			e := mustNew(t, spec, WithDispatcher(d))
			for k, dt := range floatTypes {
				lay := layoutFor(k, len(positions), 3, c.head)
				name := c.name + " " + d.Backend() + " " + dt.String()
				q := newView(dt, lay, rng)
				for i, x := range specials {
					// In pairs without frequency (the head's last elements) and in rotated ones.
					q.set(i%lay.tokens, 0, c.head-1-i, x)
					q.set(i%lay.tokens, 1, i, x)
				}
				q0 := q.clone()
				pos := posTensor(positions, false)
				if err := e.Forward(pos, q.t, tensor.Tensor{}); err != nil {
					t.Fatalf("%s: Forward: %v", name, err)
				}
				expectRotated(t, name+" Forward", q0, q, c.head, c.style == GPTJ, theta, 1)
				checkIdentityPairs(t, name+" Forward", q0, q, rotated, c.style == GPTJ)

				g := q0.clone()
				var cs CosSin
				if err := e.Gather(pos, &cs); err != nil {
					t.Fatalf("%s: Gather: %v", name, err)
				}
				if err := cs.Apply(g.t, tensor.Tensor{}); err != nil {
					t.Fatalf("%s: Apply: %v", name, err)
				}
				if i := sameBits(q, g); i >= 0 {
					t.Errorf("%s: Gather + Apply differs from Forward at backing element %d", name, i)
				}
			}
		}
	}
}

// checkIdentityPairs checks the pairs from `rotated` on against upstream's arithmetic with cos 1
// and sin 0, x1·1 + (−x2)·0 and x2·1 + x1·0, exact in float64: bit for bit.
func checkIdentityPairs(t *testing.T, name string, before, after *view, rotated int, gptj bool) {
	t.Helper()
	lay := before.lay
	half := lay.headSize / 2
	for tok := range lay.tokens {
		for h := range lay.heads {
			for i := rotated; i < half; i++ {
				i1, i2 := i, i+half
				if gptj {
					i1, i2 = 2*i, 2*i+1
				}
				x1, x2 := before.get(tok, h, i1), before.get(tok, h, i2)
				for _, w := range []struct {
					j    int
					want float64
				}{{i1, x1*1 + (-x2)*0}, {i2, x2*1 + x1*0}} {
					k := before.index(tok, h, w.j)
					if want := bitsOf(before.dt, w.want); after.raw(k) != want {
						t.Fatalf("%s: token %d head %d element %d (pair %d, frequency 0): bits %#x, want %#x (%v)", name, tok, h, w.j, i, after.raw(k), want, w.want)
					}
					if w.want != 0 && after.raw(k) != before.raw(k) {
						t.Fatalf("%s: token %d head %d element %d: a pair without frequency changed %v", name, tok, h, w.j, x1)
					}
				}
			}
		}
	}
}

// bitsOf is the bit pattern of x, exact in dt, as a view stores it.
func bitsOf(dt tensor.DType, x float64) uint32 {
	if dt == tensor.F32 {
		return math.Float32bits(float32(x))
	}
	return uint32(tensor.FromFloat32(dt, float32(x)))
}
