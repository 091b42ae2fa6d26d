package native

import "math"

// The RMSNorm arithmetic both fused norm operators (qk_rmsnorm_rope, kv_rmsnorm_rope_cache)
// share. It is float32, as Hugging Face's and torch_npu's norms compute, in one fixed order, so
// every backend agrees to the bit. A float64 sum would not change bf16 or f16 results beyond
// rare ties, and moves f32 results by a few ULP (backend/native's tests bound it against a
// float64 evaluation); on AVX-512 it cost five instructions per 16 elements (two widenings, an
// extract, two FMAs) where float32 takes one FMA.

// SumLanes is how many running sums SumSquares keeps.
const SumLanes = 32

// SumSquares is Σ x_j² in float32 in the one order every backend uses: 32 running sums, sum l
// taking the elements j ≡ l (mod 32) in increasing j, each step one fused multiply-add
// (s_l = FMA32(x_j, x_j, s_l), one rounding), then combined pairwise between neighbours:
// s_i += s_{i+1} for even i, then s_i += s_{i+2} for i ≡ 0 (mod 4), and so on up to
// s_0 += s_16. Thirty-two chains keep a vector unit busy (one zmm pair, a warp's width), and a
// neighbour-first tree is what the deinterleaved bf16 loads of the CPU kernels add cheaply.
func SumSquares(x []float32) float32 {
	var s [SumLanes]float32
	for j, v := range x {
		s[j%SumLanes] = FMA32(v, v, s[j%SumLanes])
	}
	for w := 1; w < SumLanes; w *= 2 {
		for i := 0; i < SumLanes; i += 2 * w {
			s[i] += s[i+w]
		}
	}
	return s[0]
}

// RMSNormScale is the factor r = rsqrt(var + ε) of n elements whose squares sum to sumSq
// (SumSquares): the mean sumSq/n rounds to float32, ε adds in float32, and the reciprocal
// square root rounds once to float32.
func RMSNormScale(sumSq float32, n int, eps float32) float32 {
	v := sumSq/float32(n) + eps
	return float32(1 / math.Sqrt(float64(v)))
}

// FMA32 is a·b + c rounded once to float32 (nearest even), as a float32 fused multiply-add
// instruction computes it, NaNs included: a NaN result is the first NaN of c, a, b, quieted
// (x86's order for the accumulating form c = a·b + c); an invalid one (∞·0, ∞ − ∞) is the
// default NaN.
func FMA32(a, b, c float32) float32 {
	switch {
	case c != c:
		return quiet32(c)
	case a != a:
		return quiet32(a)
	case b != b:
		return quiet32(b)
	}
	p := float64(a) * float64(b) // exact: 24 + 24 significant bits
	s := p + float64(c)
	if math.IsInf(p, 0) || math.IsInf(s, 0) || math.IsNaN(s) {
		return float32(s)
	}
	if float64(float32(p)) == p {
		// A float32 product (every square of a bf16 or f16 value): a float32 sum, which float64
		// computes with room to spare (53 ≥ 2·24 + 2 bits), so rounding it once more is exact.
		return float32(s)
	}
	// s is p + c rounded to float64; rounding it again to float32 could round twice the wrong
	// way (a float64 tie that was no tie). Round to odd instead: where s is inexact and its last
	// bit even, step to the odd neighbour on the exact value's side. A float64 rounded to odd
	// then rounds to float32 (29 fewer bits) exactly as the exact value would.
	bb := s - p
	e := (p - (s - bb)) + (float64(c) - bb) // TwoSum: p + c = s + e exactly
	if bits := math.Float64bits(s); e != 0 && bits&1 == 0 {
		if (e > 0) == (s > 0) {
			bits++
		} else {
			bits--
		}
		s = math.Float64frombits(bits)
	}
	return float32(s)
}

func quiet32(v float32) float32 { return math.Float32frombits(math.Float32bits(v) | 1<<22) }
