package tensor

import (
	"math"
	"math/rand/v2"
	"testing"
)

// half16 describes a 16-bit binary floating-point format (IEEE half or bfloat16) independently
// of the code under test: values are decoded from sign, exponent and mantissa in float64.
type half16 struct {
	name     string
	d        DType
	expBits  uint
	mantBits uint
	narrow   func(float32) uint16
	widen    func(uint16) float32
}

var (
	fmtF16  = &half16{name: "F16", d: F16, expBits: 5, mantBits: 10, narrow: F16FromFloat32, widen: Float32FromF16}
	fmtBF16 = &half16{name: "BF16", d: BF16, expBits: 8, mantBits: 7, narrow: BF16FromFloat32, widen: Float32FromBF16}
	formats = []*half16{fmtF16, fmtBF16}
)

func (f *half16) bias() int           { return 1<<(f.expBits-1) - 1 }
func (f *half16) infBits() uint16     { return uint16((1<<f.expBits - 1) << f.mantBits) }
func (f *half16) maxFinite() uint16   { return f.infBits() - 1 }
func (f *half16) quietBit() uint16    { return 1 << (f.mantBits - 1) }
func (f *half16) isNaN(h uint16) bool { return h&0x7fff > f.infBits() }

// decode is the exact value of bit pattern h, computed from its fields in float64.
func (f *half16) decode(h uint16) float64 {
	neg := h&0x8000 != 0
	e := int(h>>f.mantBits) & (1<<f.expBits - 1)
	m := float64(h & (1<<f.mantBits - 1))
	var v float64
	switch {
	case e == 1<<f.expBits-1:
		if m != 0 {
			return math.NaN()
		}
		v = math.Inf(1)
	case e == 0:
		v = math.Ldexp(m, 1-f.bias()-int(f.mantBits))
	default:
		v = math.Ldexp(float64(uint64(1)<<f.mantBits)+m, e-f.bias()-int(f.mantBits))
	}
	if neg {
		v = -v
	}
	return v
}

// refNarrow is the value (with its sign) that rounding the non-NaN float32 x to the format
// must give: x is placed between two adjacent multiples lo and hi of the format's ulp at x's
// exponent, 2|x| is compared with lo+hi (all exact in float64), ties go to the even multiple,
// and results of 2^(emax+1) or more are infinite, as IEEE 754 rounds with an unbounded exponent.
func (f *half16) refNarrow(x float32) float64 {
	v := float64(x)
	a := math.Abs(v)
	var r float64
	if a != 0 {
		_, exp := math.Frexp(a) // a = frac·2^exp with frac in [0.5, 1)
		e := max(exp-1, 1-f.bias())
		ulp := math.Ldexp(1, e-int(f.mantBits))
		k := math.Floor(a / ulp)
		lo, hi := k*ulp, (k+1)*ulp
		switch {
		case 2*a < lo+hi:
			r = lo
		case 2*a > lo+hi:
			r = hi
		case math.Mod(k, 2) == 0:
			r = lo
		default:
			r = hi
		}
		if r >= math.Ldexp(1, f.bias()+1) {
			r = math.Inf(1)
		}
	}
	return math.Copysign(r, v)
}

// sameValue reports whether pattern h is exactly the value want, sign of zero included.
func (f *half16) sameValue(h uint16, want float64) bool {
	got := f.decode(h)
	return got == want && math.Signbit(got) == math.Signbit(want)
}

// errLimit stops a test that is looping over many cases after this many failures.
const errLimit = 20

type failCounter struct {
	t *testing.T
	n int
}

func (c *failCounter) errorf(format string, args ...any) {
	c.t.Helper()
	c.n++
	c.t.Errorf(format, args...)
	if c.n >= errLimit {
		c.t.Fatalf("stopping after %d failures", c.n)
	}
}

// TestDecodeReference pins the test's own decoder to a few well-known values, so that the
// exhaustive tests below are compared against something known to be right.
func TestDecodeReference(t *testing.T) {
	cases := []struct {
		f    *half16
		h    uint16
		want float64
	}{
		{fmtF16, 0x0000, 0},
		{fmtF16, 0x0001, math.Ldexp(1, -24)},
		{fmtF16, 0x03ff, 1023 * math.Ldexp(1, -24)},
		{fmtF16, 0x0400, math.Ldexp(1, -14)},
		{fmtF16, 0x3c00, 1},
		{fmtF16, 0x3c01, 1 + math.Ldexp(1, -10)},
		{fmtF16, 0xc000, -2},
		{fmtF16, 0x3555, 0.333251953125},
		{fmtF16, 0x7bff, 65504},
		{fmtF16, 0x7c00, math.Inf(1)},
		{fmtF16, 0xfc00, math.Inf(-1)},
		{fmtBF16, 0x0001, math.Ldexp(1, -133)},
		{fmtBF16, 0x0080, math.Ldexp(1, -126)},
		{fmtBF16, 0x3f80, 1},
		{fmtBF16, 0x3f81, 1 + math.Ldexp(1, -7)},
		{fmtBF16, 0xc040, -3},
		{fmtBF16, 0x7f7f, math.Ldexp(255, 120)},
		{fmtBF16, 0x7f80, math.Inf(1)},
		{fmtBF16, 0xff80, math.Inf(-1)},
	}
	for _, c := range cases {
		if got := c.f.decode(c.h); got != c.want {
			t.Errorf("%s decode(%#04x) = %g, want %g", c.f.name, c.h, got, c.want)
		}
	}
	if got := fmtF16.decode(0x8000); got != 0 || !math.Signbit(got) {
		t.Errorf("F16 decode(0x8000) = %g, want -0", got)
	}
	for _, h := range []uint16{0x7c01, 0x7e00, 0xfe00, 0x7fff} {
		if !math.IsNaN(fmtF16.decode(h)) {
			t.Errorf("F16 decode(%#04x) is not NaN", h)
		}
	}
	for _, h := range []uint16{0x7f81, 0x7fc0, 0xffc0, 0x7fff} {
		if !math.IsNaN(fmtBF16.decode(h)) {
			t.Errorf("BF16 decode(%#04x) is not NaN", h)
		}
	}
}

// TestWidenExhaustive checks every 16-bit pattern of both formats: widening to float32 is exact,
// and narrowing the widened value gives back the same bits (NaNs: a quiet NaN of the same sign).
func TestWidenExhaustive(t *testing.T) {
	for _, f := range formats {
		t.Run(f.name, func(t *testing.T) {
			fc := &failCounter{t: t}
			for i := 0; i < 1<<16; i++ {
				h := uint16(i)
				w := f.widen(h)
				want := f.decode(h)
				neg := h&0x8000 != 0
				if math.Signbit(float64(w)) != neg {
					fc.errorf("widen(%#04x) = %g has the wrong sign", h, w)
				}
				if math.IsNaN(want) {
					if !math.IsNaN(float64(w)) {
						fc.errorf("widen(%#04x) = %g, want NaN", h, w)
						continue
					}
					r := f.narrow(w)
					if !f.isNaN(r) || r&0x8000 != h&0x8000 || r&f.quietBit() == 0 {
						fc.errorf("narrow(widen(%#04x)) = %#04x, want a quiet NaN with sign %#04x", h, r, h&0x8000)
					}
					continue
				}
				if float64(w) != want {
					fc.errorf("widen(%#04x) = %g, want %g", h, w, want)
				}
				if r := f.narrow(w); r != h {
					fc.errorf("narrow(widen(%#04x)) = %#04x (via %g)", h, r, w)
				}
			}
		})
	}
}

// TestDispatch checks that ToFloat32 and FromFloat32 pick the right format.
func TestDispatch(t *testing.T) {
	for _, f := range formats {
		for i := 0; i < 1<<16; i += 97 {
			h := uint16(i)
			if a, b := math.Float32bits(ToFloat32(f.d, h)), math.Float32bits(f.widen(h)); a != b {
				t.Fatalf("ToFloat32(%v, %#04x) bits %#08x, want %#08x", f.d, h, a, b)
			}
			x := math.Float32frombits(uint32(i)*65537 + 12345)
			if a, b := FromFloat32(f.d, x), f.narrow(x); a != b {
				t.Fatalf("FromFloat32(%v, %g) = %#04x, want %#04x", f.d, x, a, b)
			}
		}
	}
	// The two formats disagree on 1.0, so a mix-up cannot pass unnoticed.
	if FromFloat32(F16, 1) != 0x3c00 || FromFloat32(BF16, 1) != 0x3f80 {
		t.Fatalf("FromFloat32(1) = F16 %#04x, BF16 %#04x", FromFloat32(F16, 1), FromFloat32(BF16, 1))
	}
}

// TestNarrowMidpoints checks, for every pair of adjacent finite values of both signs, that the
// exact midpoint goes to the even one and one float32 ulp either side goes to the nearer one.
func TestNarrowMidpoints(t *testing.T) {
	for _, f := range formats {
		t.Run(f.name, func(t *testing.T) {
			fc := &failCounter{t: t}
			for lo := uint16(0); lo < f.maxFinite(); lo++ {
				hi := lo + 1
				mid := (f.decode(lo) + f.decode(hi)) / 2
				m32 := float32(mid)
				if float64(m32) != mid {
					t.Fatalf("midpoint of %#04x and %#04x (%g) is not a float32", lo, hi, mid)
				}
				even := lo
				if lo&1 != 0 {
					even = hi
				}
				below := math.Nextafter32(m32, 0)
				above := math.Nextafter32(m32, float32(math.Inf(1)))
				for _, sign := range []uint16{0, 0x8000} {
					s := float32(1)
					if sign != 0 {
						s = -1
					}
					if got := f.narrow(s * m32); got != sign|even {
						fc.errorf("narrow(%g) (midpoint) = %#04x, want %#04x", s*m32, got, sign|even)
					}
					if got := f.narrow(s * below); got != sign|lo {
						fc.errorf("narrow(%g) (below midpoint) = %#04x, want %#04x", s*below, got, sign|lo)
					}
					if got := f.narrow(s * above); got != sign|hi {
						fc.errorf("narrow(%g) (above midpoint) = %#04x, want %#04x", s*above, got, sign|hi)
					}
				}
			}
		})
	}
}

// pow2 is 2^e as a float32 (e within the normal float32 range).
func pow2(e int) float32 { return float32(math.Ldexp(1, e)) }

type narrowCase struct {
	x    float32
	want uint16
}

func checkNarrow(t *testing.T, f *half16, cases []narrowCase) {
	t.Helper()
	for _, c := range cases {
		if got := f.narrow(c.x); got != c.want {
			t.Errorf("%s narrow(%g, bits %#08x) = %#04x, want %#04x", f.name, c.x, math.Float32bits(c.x), got, c.want)
		}
		// The negative gives the mirrored result, including -0 and -Inf.
		if got := f.narrow(-c.x); got != c.want|0x8000 {
			t.Errorf("%s narrow(%g, bits %#08x) = %#04x, want %#04x", f.name, -c.x, math.Float32bits(-c.x), got, c.want|0x8000)
		}
	}
}

func TestNarrowOverflowF16(t *testing.T) {
	inf := float32(math.Inf(1))
	checkNarrow(t, fmtF16, []narrowCase{
		{65504, 0x7bff},
		{65519, 0x7bff},
		{math.Nextafter32(65520, 0), 0x7bff},
		{65520, 0x7c00}, // the midpoint of 65504 and 2^16: ties to the even one, infinity
		{math.Nextafter32(65520, inf), 0x7c00},
		{65535, 0x7c00},
		{65536, 0x7c00},
		{1e5, 0x7c00},
		{pow2(16) * 1.5, 0x7c00},
		{1e20, 0x7c00},
		{math.MaxFloat32, 0x7c00},
		{inf, 0x7c00},
	})
}

func TestNarrowOverflowBF16(t *testing.T) {
	inf := float32(math.Inf(1))
	maxBF := math.Ldexp(255, 120)                    // 0x7f7f = (2 - 2^-7)·2^127
	mid := float32((maxBF + math.Ldexp(1, 128)) / 2) // (2 - 2^-8)·2^127, the tie with 2^128
	if math.Float32bits(mid) != 0x7f7f8000 {
		t.Fatalf("BF16 overflow boundary bits %#08x, want 0x7f7f8000", math.Float32bits(mid))
	}
	checkNarrow(t, fmtBF16, []narrowCase{
		{float32(maxBF), 0x7f7f},
		{math.Nextafter32(mid, 0), 0x7f7f},
		{mid, 0x7f80},
		{math.Nextafter32(mid, inf), 0x7f80},
		{math.MaxFloat32, 0x7f80},
		{inf, 0x7f80},
	})
}

func TestNarrowSubnormalF16(t *testing.T) {
	tiny := math.Ldexp(1, -24) // smallest F16 subnormal
	at := func(k float64) float32 { return float32(k * tiny) }
	checkNarrow(t, fmtF16, []narrowCase{
		{0, 0x0000},
		{math.Float32frombits(1), 0x0000},          // smallest float32 subnormal
		{math.Float32frombits(0x007fffff), 0x0000}, // largest float32 subnormal
		{pow2(-126), 0x0000},
		{1e-10, 0x0000},
		{pow2(-26), 0x0000},
		{math.Nextafter32(at(0.5), 0), 0x0000}, // below half the smallest subnormal
		{at(0.5), 0x0000},                      // exactly half: ties to even, zero
		{math.Nextafter32(at(0.5), 1), 0x0001},
		{at(0.75), 0x0001},
		{at(1), 0x0001},
		{at(1.5), 0x0002}, // tie between 1 and 2
		{math.Nextafter32(at(1.5), 0), 0x0001},
		{at(2.5), 0x0002}, // tie between 2 and 3
		{math.Nextafter32(at(2.5), 1), 0x0003},
		{at(512), 0x0200},
		{at(1022.5), 0x03fe},
		{at(1023), 0x03ff}, // largest subnormal
		{math.Nextafter32(at(1023.5), 0), 0x03ff},
		{at(1023.5), 0x0400}, // tie with the smallest normal, which is even
		{at(1024), 0x0400},   // smallest normal
		{at(1024.5), 0x0400}, // the normal spacing here is still 2^-24: tie between 0x400 and 0x401
		{at(1025), 0x0401},
		{at(1025.5), 0x0402}, // tie between 0x401 and 0x402
		{math.Nextafter32(at(1025.5), 0), 0x0401},
		{at(2048), 0x0800}, // 2^-13: from here the spacing is 2^-23
		{at(2049), 0x0800}, // tie between 0x800 and 0x801
		{at(2051), 0x0802}, // tie between 0x801 and 0x802
	})
}

func TestNarrowSubnormalBF16(t *testing.T) {
	tiny := math.Ldexp(1, -133) // smallest BF16 subnormal, itself a float32 subnormal
	at := func(k float64) float32 { return float32(k * tiny) }
	checkNarrow(t, fmtBF16, []narrowCase{
		{0, 0x0000},
		{math.Float32frombits(1), 0x0000},
		{math.Nextafter32(at(0.5), 0), 0x0000},
		{at(0.5), 0x0000},
		{math.Nextafter32(at(0.5), 1), 0x0001},
		{at(1), 0x0001},
		{at(1.5), 0x0002},
		{at(127), 0x007f},
		{at(127.5), 0x0080},
		{pow2(-126), 0x0080},
		{math.Float32frombits(0x007fffff), 0x0080},
	})
}

// TestNarrowNaN checks that every kind of float32 NaN becomes a quiet NaN of the same sign, even
// when its payload lies entirely in the bits that narrowing drops.
func TestNarrowNaN(t *testing.T) {
	payloads := []uint32{1, 2, 0x1fff, 0x2000, 0xffff, 0x10000, 0x3fffff, 0x400000, 0x400001, 0x7fffff}
	rng := rand.New(rand.NewPCG(7, 11))
	for i := 0; i < 1000; i++ {
		payloads = append(payloads, 1+rng.Uint32N(0x7fffff))
	}
	for _, f := range formats {
		for _, p := range payloads {
			for _, sign := range []uint32{0, 0x80000000} {
				x := math.Float32frombits(sign | 0x7f800000 | p)
				r := f.narrow(x)
				if !f.isNaN(r) || uint32(r&0x8000)<<16 != sign || r&f.quietBit() == 0 {
					t.Errorf("%s narrow(NaN bits %#08x) = %#04x, want a quiet NaN of the same sign", f.name, sign|0x7f800000|p, r)
				}
			}
		}
	}
}

func TestNarrowSignedZero(t *testing.T) {
	for _, f := range formats {
		if got := f.narrow(0); got != 0 {
			t.Errorf("%s narrow(+0) = %#04x", f.name, got)
		}
		if got := f.narrow(float32(math.Copysign(0, -1))); got != 0x8000 {
			t.Errorf("%s narrow(-0) = %#04x", f.name, got)
		}
	}
}

// TestNarrowRandom compares narrowing against the reference on a million float32 values drawn
// from raw bit patterns, from the formats' own ranges, and from right next to rounding ties.
func TestNarrowRandom(t *testing.T) {
	const n = 1_000_000
	rng := rand.New(rand.NewPCG(1, 2))
	fc := &failCounter{t: t}
	for i := 0; i < n; i++ {
		var x float32
		switch i % 4 {
		case 0: // any bit pattern
			x = math.Float32frombits(rng.Uint32())
		case 1: // a float32 exponent in or around the F16 range, so rounding is not trivial
			e := uint32(127 - 27 + rng.IntN(46))
			x = math.Float32frombits(rng.Uint32()&0x807fffff | e<<23)
		case 2, 3: // within a few float32 ulps of a 16-bit midpoint, either format
			f := formats[i%2]
			h := uint16(rng.IntN(int(f.maxFinite())))
			m := float32((f.decode(h) + f.decode(h+1)) / 2)
			for k := rng.IntN(7) - 3; k != 0; {
				if k > 0 {
					m = math.Nextafter32(m, float32(math.Inf(1)))
					k--
				} else {
					m = math.Nextafter32(m, 0)
					k++
				}
			}
			if rng.IntN(2) == 0 {
				m = -m
			}
			x = m
		}
		for _, f := range formats {
			got := f.narrow(x)
			if math.IsNaN(float64(x)) {
				if !f.isNaN(got) || got&0x8000 != uint16(math.Float32bits(x)>>16)&0x8000 || got&f.quietBit() == 0 {
					fc.errorf("%s narrow(NaN bits %#08x) = %#04x", f.name, math.Float32bits(x), got)
				}
				continue
			}
			if want := f.refNarrow(x); !f.sameValue(got, want) {
				fc.errorf("%s narrow(%g, bits %#08x) = %#04x (%g), want %g", f.name, x, math.Float32bits(x), got, f.decode(got), want)
			}
		}
	}
}

// TestRefNarrowSelfCheck makes sure the reference is right on its own: every 16-bit value rounds
// to itself, and known ties, near-ties, overflows and underflows come out as IEEE says.
func TestRefNarrowSelfCheck(t *testing.T) {
	for _, f := range formats {
		for i := 0; i < 1<<16; i++ {
			h := uint16(i)
			if f.isNaN(h) {
				continue
			}
			if want := f.decode(h); !f.sameValue(h, f.refNarrow(float32(want))) {
				t.Fatalf("%s refNarrow(%g) = %g", f.name, want, f.refNarrow(float32(want)))
			}
		}
	}
	cases := []struct {
		f    *half16
		x    float32
		want float64
	}{
		{fmtF16, 65520, math.Inf(1)},
		{fmtF16, -65520, math.Inf(-1)},
		{fmtF16, math.Nextafter32(65520, 0), 65504},
		{fmtF16, 1 + 1.0/2048, 1},
		{fmtF16, 1 + 3.0/2048, 1 + 2.0/1024},
		{fmtF16, math.Nextafter32(1+1.0/2048, 2), 1 + 1.0/1024},
		{fmtF16, pow2(-25), 0},
		{fmtF16, -pow2(-25), math.Copysign(0, -1)},
		{fmtF16, math.Nextafter32(pow2(-25), 1), math.Ldexp(1, -24)},
		{fmtF16, 3 * pow2(-25), math.Ldexp(2, -24)},
		{fmtF16, math.Float32frombits(1), 0},
		{fmtF16, 0.1, 0.0999755859375},
		{fmtBF16, 1 + 1.0/256, 1},
		{fmtBF16, 1 + 3.0/256, 1 + 2.0/128},
		{fmtBF16, math.Float32frombits(0x7f7f8000), math.Inf(1)},
		{fmtBF16, math.Float32frombits(0x7f7f7fff), math.Ldexp(255, 120)},
		{fmtBF16, math.Float32frombits(1), 0},
		{fmtBF16, math.Float32frombits(0x3dcccccd), 0.10009765625},
	}
	for _, c := range cases {
		if got := c.f.refNarrow(c.x); got != c.want || math.Signbit(got) != math.Signbit(c.want) {
			t.Errorf("%s refNarrow(%g) = %g, want %g", c.f.name, c.x, got, c.want)
		}
	}
}

func TestULPDiffNeighbours(t *testing.T) {
	for _, f := range formats {
		t.Run(f.name, func(t *testing.T) {
			fc := &failCounter{t: t}
			for lo := uint16(0); lo < f.maxFinite(); lo++ {
				a, b := f.decode(lo), f.decode(lo+1)
				if got := ULPDiff(f.d, a, b); got != 1 {
					fc.errorf("ULPDiff(%g, %g) = %d, want 1", a, b, got)
				}
				if got := ULPDiff(f.d, -b, -a); got != 1 {
					fc.errorf("ULPDiff(%g, %g) = %d, want 1", -b, -a, got)
				}
				// Across zero: from -v to +v is twice the number of steps from 0 to v.
				if got := ULPDiff(f.d, -b, b); got != 2*int64(lo+1) {
					fc.errorf("ULPDiff(%g, %g) = %d, want %d", -b, b, got, 2*int64(lo+1))
				}
				if got := ULPDiff(f.d, a, a); got != 0 {
					fc.errorf("ULPDiff(%g, %g) = %d, want 0", a, a, got)
				}
			}
		})
	}
	t.Run("F32", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 4))
		inf := float32(math.Inf(1))
		for i := 0; i < 10000; i++ {
			x := math.Float32frombits(rng.Uint32() & 0x7f7fffff) // positive finite
			y := math.Nextafter32(x, inf)
			if math.IsInf(float64(y), 0) {
				continue
			}
			if got := ULPDiff(F32, float64(x), float64(y)); got != 1 {
				t.Fatalf("ULPDiff(F32, %g, %g) = %d, want 1", x, y, got)
			}
			if got := ULPDiff(F32, -float64(y), -float64(x)); got != 1 {
				t.Fatalf("ULPDiff(F32, %g, %g) = %d, want 1", -y, -x, got)
			}
		}
		if got := ULPDiff(F32, 1, 1+math.Ldexp(1, -23)); got != 1 {
			t.Errorf("ULPDiff(F32, 1, 1+2^-23) = %d", got)
		}
		if got := ULPDiff(F32, 1, 2); got != 1<<23 {
			t.Errorf("ULPDiff(F32, 1, 2) = %d, want %d", got, 1<<23)
		}
	})
}

func TestULPDiffZeroAndSpecials(t *testing.T) {
	negZero := math.Copysign(0, -1)
	nan := math.NaN()
	inf := math.Inf(1)
	for _, d := range []DType{F32, F16, BF16} {
		// oneK and maxK are the number of steps from 0 to 1 and to the largest finite value.
		var tiny, maxFinite float64
		var oneK, maxK int64
		switch d {
		case F32:
			tiny, maxFinite, oneK, maxK = float64(math.Float32frombits(1)), math.MaxFloat32, 0x3f800000, 0x7f7fffff
		case F16:
			tiny, maxFinite, oneK, maxK = math.Ldexp(1, -24), 65504, 0x3c00, 0x7bff
		case BF16:
			tiny, maxFinite, oneK, maxK = math.Ldexp(1, -133), math.Ldexp(255, 120), 0x3f80, 0x7f7f
		}
		cases := []struct {
			a, b float64
			want int64
		}{
			{0, 0, 0},
			{negZero, 0, 0},
			{0, negZero, 0},
			{negZero, negZero, 0},
			{0, tiny, 1},
			{negZero, tiny, 1},
			{-tiny, 0, 1},
			{-tiny, negZero, 1},
			{-tiny, tiny, 2},
			{tiny, -tiny, 2},
			{-1, 1, 2 * oneK},
			{0, 1, oneK},
			{0, maxFinite, maxK},
			{nan, nan, 0},
			{-nan, nan, 0},
			{nan, 0, math.MaxInt64},
			{0, nan, math.MaxInt64},
			{nan, inf, math.MaxInt64},
			{inf, inf, 0},
			{-inf, -inf, 0},
			{inf, -inf, math.MaxInt64},
			{maxFinite, inf, math.MaxInt64},
			{inf, maxFinite, math.MaxInt64},
			{-maxFinite, -inf, math.MaxInt64},
			{0, inf, math.MaxInt64},
			{maxFinite, -maxFinite, 2 * maxK},
		}
		for _, c := range cases {
			if got := ULPDiff(d, c.a, c.b); got != c.want {
				t.Errorf("ULPDiff(%v, %g, %g) = %d, want %d", d, c.a, c.b, got, c.want)
			}
		}
	}
	// Known step counts, independent of orderedBits.
	if got := ULPDiff(F16, -1, 1); got != 2*0x3c00 {
		t.Errorf("ULPDiff(F16, -1, 1) = %d, want %d", got, 2*0x3c00)
	}
	if got := ULPDiff(BF16, 1, 2); got != 128 {
		t.Errorf("ULPDiff(BF16, 1, 2) = %d, want 128", got)
	}
	if got := ULPDiff(F16, 1, 2); got != 1024 {
		t.Errorf("ULPDiff(F16, 1, 2) = %d, want 1024", got)
	}
}

// TestULPDiffMetric checks symmetry and additivity along the number line on random values.
func TestULPDiffMetric(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, f := range formats {
		max := int(f.maxFinite())
		pick := func() (float64, int64) {
			h := uint16(rng.IntN(max + 1))
			k := int64(h)
			if rng.IntN(2) == 0 {
				h |= 0x8000
				k = -k
			}
			return f.decode(h), k
		}
		for i := 0; i < 20000; i++ {
			a, ka := pick()
			b, kb := pick()
			want := ka - kb
			if want < 0 {
				want = -want
			}
			if got := ULPDiff(f.d, a, b); got != want {
				t.Fatalf("%s ULPDiff(%g, %g) = %d, want %d", f.name, a, b, got, want)
			}
			if got := ULPDiff(f.d, b, a); got != want {
				t.Fatalf("%s ULPDiff(%g, %g) = %d, not symmetric (want %d)", f.name, b, a, got, want)
			}
		}
	}
}
