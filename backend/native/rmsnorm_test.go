package native

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// fma32Big is a·b + c rounded once to float32 by math/big (finite inputs).
func fma32Big(a, b, c float32) float32 {
	x := new(big.Float).SetPrec(1000).SetFloat64(float64(a))
	x.Mul(x, new(big.Float).SetFloat64(float64(b)))
	x.Add(x, new(big.Float).SetFloat64(float64(c)))
	f, _ := x.Float32()
	if f == 0 && x.Sign() == 0 {
		// big.Float has no signed zero for an exact zero sum: IEEE gives +0 unless both
		// addends are −0.
		if math.Signbit(float64(a)) != math.Signbit(float64(b)) && (a == 0 || b == 0) && math.Signbit(float64(c)) {
			return float32(math.Copysign(0, -1))
		}
		return 0
	}
	return f
}

func TestFMA32(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	check := func(a, b, c float32) {
		t.Helper()
		got, want := FMA32(a, b, c), fma32Big(a, b, c)
		if math.Float32bits(got) != math.Float32bits(want) {
			t.Fatalf("FMA32(%g, %g, %g) = %g (%#08x), want %g (%#08x)", a, b, c, got, math.Float32bits(got), want, math.Float32bits(want))
		}
	}
	// Ties of the float64 sum that are no ties of the exact one: c = 1 and a·b just above or
	// below half an ulp of float32, so that the float64 rounding lands on the float32 midpoint.
	for k := range 24 {
		for _, d := range []float32{1, -1} {
			a := float32(1+math.Ldexp(1, -k-1)) * d
			b := float32(math.Ldexp(1, -24+k))
			check(a, b, 1)
			check(a, -b, 1)
			check(a, b, -1)
		}
	}
	rnd := func(lo, hi int) float32 {
		m := 1 + r.Float64()
		v := float32(math.Ldexp(m, lo+r.IntN(hi-lo+1)))
		if r.IntN(2) == 0 {
			v = -v
		}
		return v
	}
	for range 200000 {
		a, b := rnd(-80, 60), rnd(-80, 60)
		// c near a·b's magnitude, so the sum's bits overlap the product's.
		e := math.Ilogb(float64(a)*float64(b)) + r.IntN(60) - 30
		c := rnd(e-2, e+2)
		check(a, b, c)
		check(a, a, float32(math.Abs(float64(c))))
	}
	// Squares of bf16 values (FMA32's float32-product path) against every kind of sum.
	for range 100000 {
		a := math.Float32frombits(r.Uint32() & 0xffff0000)
		if a != a || math.IsInf(float64(a), 0) {
			continue
		}
		check(a, a, rnd(-149, 127))
		check(a, a, rnd(math.Ilogb(float64(a)*float64(a))-26, math.Ilogb(float64(a)*float64(a))+26))
	}
	// Subnormal results and operands.
	for range 50000 {
		check(rnd(-100, -60), rnd(-100, -60), rnd(-149, -126))
		check(math.Float32frombits(r.Uint32()&0x807fffff), rnd(-10, 10), rnd(-149, -120))
	}
	check(0, 0, 0)
	check(float32(math.Copysign(0, -1)), 1, float32(math.Copysign(0, -1)))
	check(math.MaxFloat32, 2, -math.MaxFloat32)
}

func TestFMA32NaNInf(t *testing.T) {
	inf := float32(math.Inf(1))
	nan := func(bits uint32) float32 { return math.Float32frombits(bits) }
	for _, c := range []struct {
		a, b, c float32
		want    uint32
	}{
		{nan(0x7f800001), 1, nan(0x7f800002), 0x7fc00002}, // c's NaN first, quieted
		{nan(0x7f800001), nan(0x7fc00003), 1, 0x7fc00001}, // then a's
		{1, nan(0xffc00005), 1, 0xffc00005},               // then b's
		{inf, 0, 1, 0xffc00000},                           // invalid: the default NaN
		{inf, 1, -inf, 0xffc00000},
		{inf, 1, 1, 0x7f800000},
		{math.MaxFloat32, 2, 0, 0x7f800000}, // overflow
	} {
		if got := math.Float32bits(FMA32(c.a, c.b, c.c)); got != c.want {
			t.Errorf("FMA32(%#08x, %#08x, %#08x) = %#08x, want %#08x", math.Float32bits(c.a), math.Float32bits(c.b), math.Float32bits(c.c), got, c.want)
		}
	}
}

// TestSumSquaresOrder checks SumSquares against its definition written out, and against the
// exact sum within float32's error bound for 32 chains.
func TestSumSquaresOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 5, 16, 31, 32, 33, 64, 80, 128, 512, 1000} {
		x := make([]float32, n)
		for j := range x {
			x[j] = float32(r.NormFloat64())
		}
		var lanes [32]float32
		for j, v := range x {
			lanes[j%32] = FMA32(v, v, lanes[j%32])
		}
		tree := lanes[:]
		for len(tree) > 1 {
			next := make([]float32, len(tree)/2)
			for i := range next {
				next[i] = tree[2*i] + tree[2*i+1]
			}
			tree = next
		}
		got := SumSquares(x)
		if got != tree[0] {
			t.Fatalf("n=%d: SumSquares = %g, written out %g", n, got, tree[0])
		}
		var exact float64
		for _, v := range x {
			exact += float64(v) * float64(v)
		}
		if bound := float64(n/32+6) * 0x1p-24 * exact; math.Abs(float64(got)-exact) > bound {
			t.Fatalf("n=%d: SumSquares = %g, exact %g: off by more than %g", n, got, exact, bound)
		}
	}
}
