package tensor

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// narrowInputs are float32 values that exercise every rounding case of both 16-bit formats:
// ties either way, the largest finite values and the overflow boundary, F16 subnormals and
// float32 subnormals, signed zeros, infinities, NaNs with payloads (signalling and quiet),
// followed by random bit patterns.
func narrowInputs() []float32 {
	bits := []uint32{
		0x00000000, 0x80000000, 0x7f800000, 0xff800000, // ±0, ±Inf
		0x7fc00000, 0xffc00001, 0x7f800001, 0x7fa00001, 0xff812345, // NaNs
		0x00000001, 0x807fffff, 0x00400000, // float32 subnormals
		0x3f808000, 0x3f818000, 0x3f808001, 0x3f807fff, // BF16 ties to even, just above, just below
		0x3f801000, 0x3f803000, // F16 ties (bit 12 halfway)
		0x477fe000, 0x477ff000, 0x477fefff, 0x47800000, // F16: 65504, the tie to infinity, below it, 65536
		0x7f7fffff, 0x7f7f8000, 0xff7f7fff, // BF16 overflow side
		0x33800000, 0x33000000, 0x33000001, 0x33c00000, 0x387fc000, 0x38800000, // F16 subnormal range
	}
	rng := rand.New(rand.NewPCG(7, 9))
	for range 4096 {
		bits = append(bits, rng.Uint32())
	}
	out := make([]float32, len(bits))
	for i, b := range bits {
		out[i] = math.Float32frombits(b)
	}
	return out
}

// TestBulkConversions: the slice conversions give, element for element, the bits of the
// scalar ones, which round to nearest with ties to even against an independent float64
// reference (refNarrow), keep NaN a NaN of the same sign, and widen every 16-bit pattern
// exactly.
func TestBulkConversions(t *testing.T) {
	src := narrowInputs()
	dst := make([]uint16, len(src))
	for _, f := range formats {
		for _, conv := range []func([]uint16, []float32) (int, error){
			map[DType]func([]uint16, []float32) (int, error){F16: F16FromFloat32s, BF16: BF16FromFloat32s}[f.d],
			func(d []uint16, s []float32) (int, error) { return FromFloat32s(f.d, d, s) },
		} {
			clear(dst)
			if n, err := conv(dst, src); n != len(src) || err != nil {
				t.Fatalf("%s: %d, %v", f.name, n, err)
			}
			for i, x := range src {
				if dst[i] != f.narrow(x) {
					t.Fatalf("%s: element %d (bits %#08x): %#04x, the scalar conversion gives %#04x", f.name, i, math.Float32bits(x), dst[i], f.narrow(x))
				}
				if math.IsNaN(float64(x)) {
					if !f.isNaN(dst[i]) || dst[i]&0x8000 != uint16(math.Float32bits(x)>>16)&0x8000 {
						t.Fatalf("%s: NaN bits %#08x became %#04x", f.name, math.Float32bits(x), dst[i])
					}
				} else if !f.sameValue(dst[i], f.refNarrow(x)) {
					t.Fatalf("%s: %g became %g, want %g", f.name, x, f.decode(dst[i]), f.refNarrow(x))
				}
			}
		}
		all := make([]uint16, 1<<16)
		for i := range all {
			all[i] = uint16(i)
		}
		wide := make([]float32, len(all))
		for _, conv := range []func([]float32, []uint16) (int, error){
			map[DType]func([]float32, []uint16) (int, error){F16: Float32sFromF16, BF16: Float32sFromBF16}[f.d],
			func(d []float32, s []uint16) (int, error) { return ToFloat32s(f.d, d, s) },
		} {
			if n, err := conv(wide, all); n != len(all) || err != nil {
				t.Fatalf("%s widen: %d, %v", f.name, n, err)
			}
			for i, h := range all {
				got := wide[i]
				if math.Float32bits(got) != math.Float32bits(f.widen(h)) {
					t.Fatalf("%s widen %#04x: %#08x, the scalar conversion gives %#08x", f.name, h, math.Float32bits(got), math.Float32bits(f.widen(h)))
				}
				if want := f.decode(h); !math.IsNaN(want) && (float64(got) != want || math.Signbit(float64(got)) != math.Signbit(want)) {
					t.Fatalf("%s widen %#04x: %g, want %g", f.name, h, got, want)
				}
			}
		}
	}
}

// TestBulkConversionsRefuse: a length mismatch or a dtype other than F16/BF16 is an error
// naming the argument, converts nothing and writes nothing; empty slices convert 0.
func TestBulkConversionsRefuse(t *testing.T) {
	src := []float32{1, 2, 3}
	bits := []uint16{7, 7}
	wide := []float32{7, 7}
	for name, call := range map[string]func() (int, error){
		"BF16FromFloat32s": func() (int, error) { return BF16FromFloat32s(bits, src) },
		"F16FromFloat32s":  func() (int, error) { return F16FromFloat32s(bits, src) },
		"Float32sFromBF16": func() (int, error) { return Float32sFromBF16(wide, []uint16{1, 2, 3}) },
		"Float32sFromF16":  func() (int, error) { return Float32sFromF16(wide, []uint16{1}) },
		"FromFloat32s F32": func() (int, error) { return FromFloat32s(F32, bits, src[:2]) },
		"ToFloat32s I8":    func() (int, error) { return ToFloat32s(I8, wide, bits) },
		"FromFloat32s nil": func() (int, error) { return FromFloat32s(BF16, nil, src) },
	} {
		n, err := call()
		if n != 0 || err == nil {
			t.Errorf("%s: %d, %v: want 0 and an error", name, n, err)
		}
		if !slices.Equal(bits, []uint16{7, 7}) || !slices.Equal(wide, []float32{7, 7}) {
			t.Fatalf("%s wrote on error", name)
		}
	}
	if n, err := FromFloat32s(BF16, nil, nil); n != 0 || err != nil {
		t.Errorf("empty: %d, %v", n, err)
	}
}

// TestBulkConversionsNoAlloc: the conversions allocate nothing.
func TestBulkConversionsNoAlloc(t *testing.T) {
	src := narrowInputs()
	bits := make([]uint16, len(src))
	wide := make([]float32, len(src))
	if n := testing.AllocsPerRun(10, func() {
		_, _ = FromFloat32s(BF16, bits, src)
		_, _ = FromFloat32s(F16, bits, src)
		_, _ = ToFloat32s(BF16, wide, bits)
		_, _ = ToFloat32s(F16, wide, bits)
	}); n != 0 {
		t.Errorf("%v allocations per run, want 0", n)
	}
}
