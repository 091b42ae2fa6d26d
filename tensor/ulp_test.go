package tensor

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// ulpFormat describes a binary floating-point format by its parameters alone, so the reference
// count below does not share the bit-pattern arithmetic of ULPDiff.
type ulpFormat struct {
	d          DType
	fracBits   int // stored mantissa bits
	emin, emax int // exponents of the smallest and largest normal binades
	// fromBits decodes a bit pattern of the format exactly into a float64.
	fromBits func(uint64) float64
	bits     int
}

var ulpFormats = []ulpFormat{
	{F64, 52, -1022, 1023, math.Float64frombits, 64},
	{F32, 23, -126, 127, func(u uint64) float64 { return float64(math.Float32frombits(uint32(u))) }, 32},
	{F16, 10, -14, 15, func(u uint64) float64 { return float64(Float32FromF16(uint16(u))) }, 16},
	{BF16, 7, -126, 127, func(u uint64) float64 { return float64(Float32FromBF16(uint16(u))) }, 16},
}

// index is the signed rank of x among the format's finite values: the number of representable
// values in [0, |x|), negated for negative x, so ±0 are both 0 and neighbours differ by one. It is
// computed from x's value (binade and significand), not from its encoding.
func (f ulpFormat) index(t *testing.T, x float64) *big.Int {
	t.Helper()
	if x == 0 {
		return new(big.Int)
	}
	v := new(big.Float).SetFloat64(math.Abs(x))
	mant := new(big.Float)
	e := v.MantExp(mant) - 1 // |x| = m·2^e with 1 ≤ m < 2
	if e > f.emax {
		t.Fatalf("%v: %g is past the largest finite value", f.d, x)
	}
	var n *big.Int
	if e < f.emin {
		// Subnormal: a whole number of the smallest steps, 2^(emin-frac).
		n = scaledInt(t, f, v, f.fracBits-f.emin)
	} else {
		// Every binade below e (and the subnormals, counted as one binade) holds 2^frac values;
		// within binade e, |x|·2^(frac-e) runs from 2^frac to 2^(frac+1)-1.
		n = new(big.Int).Lsh(big.NewInt(int64(e-f.emin)), uint(f.fracBits))
		n.Add(n, scaledInt(t, f, v, f.fracBits-e))
	}
	if x < 0 {
		n.Neg(n)
	}
	return n
}

// scaledInt returns v·2^s, which must be a whole number when v is a value of format f.
func scaledInt(t *testing.T, f ulpFormat, v *big.Float, s int) *big.Int {
	t.Helper()
	w := new(big.Float).SetMantExp(v, s)
	if !w.IsInt() {
		t.Fatalf("%v: %v is not a value of the format", f.d, v)
	}
	n, _ := w.Int(nil)
	return n
}

// refULP is the expected ULPDiff: NaN against NaN is 0 and against anything else MaxInt64; an
// infinity is MaxInt64 from anything but itself; otherwise the difference of the ranks, saturated.
func (f ulpFormat) refULP(t *testing.T, a, b float64) int64 {
	t.Helper()
	switch {
	case math.IsNaN(a) && math.IsNaN(b):
		return 0
	case math.IsNaN(a) || math.IsNaN(b):
		return math.MaxInt64
	case math.IsInf(a, 0) || math.IsInf(b, 0):
		if a == b {
			return 0
		}
		return math.MaxInt64
	}
	d := new(big.Int).Sub(f.index(t, a), f.index(t, b))
	d.Abs(d)
	if !d.IsInt64() {
		return math.MaxInt64
	}
	return d.Int64()
}

func (f ulpFormat) specials() []float64 {
	sub := f.fromBits(1)
	maxf := f.fromBits((uint64(1)<<(f.bits-1)-1)&^(uint64(1)<<f.fracBits-1) - 1)
	minNormal := f.fromBits(uint64(1) << f.fracBits)
	vals := []float64{0, sub, 2 * sub, minNormal, minNormal - sub, maxf, f.fromBits(f.toBitsOf(maxf) - 1),
		1, 2, 3, 0.5, 1.5, 1e-3, 100, math.Inf(1), math.NaN()}
	var out []float64
	for _, v := range vals {
		if !math.IsNaN(v) && !math.IsInf(v, 0) && f.fromBits(f.toBitsOf(v)) != v {
			continue // not a value of this format (1e-3 in the 16-bit ones)
		}
		out = append(out, v, -v)
	}
	return append(out, math.Copysign(0, -1))
}

// toBitsOf encodes a value already known to be exact in the format; used only to step to a
// neighbour of the largest finite value and to filter the special list.
func (f ulpFormat) toBitsOf(v float64) uint64 {
	switch f.d {
	case F64:
		return math.Float64bits(v)
	case F32:
		return uint64(math.Float32bits(float32(v)))
	case F16:
		return uint64(F16FromFloat32(float32(v)))
	}
	return uint64(BF16FromFloat32(float32(v)))
}

func TestULPDiffAgainstBigCount(t *testing.T) {
	for _, f := range ulpFormats {
		t.Run(f.d.String(), func(t *testing.T) {
			fc := &failCounter{t: t}
			check := func(a, b float64) {
				want := f.refULP(t, a, b)
				if got := ULPDiff(f.d, a, b); got != want {
					fc.errorf("ULPDiff(%v, %g, %g) = %d, want %d", f.d, a, b, got, want)
				}
			}
			sp := f.specials()
			for _, a := range sp {
				for _, b := range sp {
					check(a, b)
				}
			}
			rng := rand.New(rand.NewPCG(7, uint64(f.d)))
			mask := uint64(1)<<f.bits - 1
			if f.bits == 64 {
				mask = math.MaxUint64
			}
			for range 200000 {
				ua := rng.Uint64() & mask
				a := f.fromBits(ua)
				check(a, f.fromBits(rng.Uint64()&mask))
				// A near neighbour (possibly across zero or into infinity) and the mirror image:
				// random patterns alone are nearly always far apart.
				ub := (ua + rng.Uint64N(9) - 4) & mask
				check(a, f.fromBits(ub))
				check(a, -a)
				check(a, f.fromBits(rng.Uint64N(1<<uint(min(f.bits, 20))))) // near zero
			}
		})
	}
}

// The cases that started this: for F64, opposite signs at |x| ≥ 2 overflowed to a small or
// negative distance, and an infinity against the largest finite value counted as one step.
func TestULPDiffF64Repros(t *testing.T) {
	cases := []struct {
		a, b float64
		want int64
	}{
		{3, -3, math.MaxInt64},
		{-3, 3, math.MaxInt64},
		{2, -2, math.MaxInt64},
		{math.MaxFloat64, -math.MaxFloat64, math.MaxInt64},
		{math.Inf(1), math.MaxFloat64, math.MaxInt64},
		{math.MaxFloat64, math.Inf(1), math.MaxInt64},
		{math.Inf(-1), -math.MaxFloat64, math.MaxInt64},
		{math.Inf(1), math.Inf(-1), math.MaxInt64},
		{math.Inf(1), math.Inf(1), 0},
		{1, -1, 2 * int64(math.Float64bits(1))},
	}
	for _, c := range cases {
		if got := ULPDiff(F64, c.a, c.b); got != c.want {
			t.Errorf("ULPDiff(F64, %g, %g) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
