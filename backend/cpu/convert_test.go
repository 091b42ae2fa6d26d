package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rotary-go/rotary/tensor"
)

// conversionSpecials are float32 patterns the rounding kernels must get exactly right: NaN
// payloads, infinities, subnormals, ties and near-ties of both bf16 and f16, overflow edges.
func conversionSpecials() []uint32 {
	var s []uint32
	for _, sign := range []uint32{0, 0x80000000} {
		for _, b := range []uint32{
			0, 1, 2, 0x7fff, 0x8000, 0x8001, 0x18000, 0x007fffff, 0x00800000, 0x00400000, 0x00008000,
			0x7f800000, 0x7f800001, 0x7f800040, 0x7f808000, 0x7f80ffff, 0x7f810000, 0x7fbfffff,
			0x7fc00000, 0x7fc00001, 0x7fffffff, 0x7fff8000, 0x7f7fffff, 0x7f7f8000, 0x7f7f7fff,
			0x3f800000, 0x3f808000, 0x3f818000, 0x3f807fff, 0x3f808001, 0x3f800fff, 0x3f801000,
			0x3f803000, 0x3f802000, 0x477fe000, 0x477fefff, 0x477ff000, 0x477fffff, 0x47800000,
			0x38800000, 0x387fffff, 0x33800000, 0x33800001, 0x33000000, 0x33000001, 0x337fffff,
			0x38000000, 0x38001000, 0x38003000, 0x37800000, 0x37801000, 0x37ffe000, 0x387fe000,
		} {
			s = append(s, sign|b)
		}
	}
	return s
}

func TestConversionKernels(t *testing.T) {
	for _, k := range impls {
		for _, d := range []tensor.DType{tensor.BF16, tensor.F16} {
			t.Run(k.name+"/"+d.String(), func(t *testing.T) {
				// Every 16-bit pattern widened.
				src := make([]uint16, 1<<16)
				for i := range src {
					src[i] = uint16(i)
				}
				wide := make([]float32, len(src))
				n := widenAsm(k.isa, d, wide, src)
				if k.isa != isaGeneric && n != len(src) {
					t.Fatalf("widened %d of %d", n, len(src))
				}
				for i := range n {
					got, want := math.Float32bits(wide[i]), math.Float32bits(tensor.ToFloat32(d, src[i]))
					if d == tensor.F16 && want&0x7fffffff > 0x7f800000 {
						// VCVTPH2PS quiets signalling NaNs; every widened value goes
						// through a multiplication, which quiets them anyway.
						want |= 0x400000
					}
					if got != want {
						t.Fatalf("widen %#04x: got %#08x, want %#08x", src[i], got, want)
					}
				}
				// Narrowing: the widened patterns, their neighbours, specials, random bits,
				// and the specials mixed into blocks of ordinary values (the fast bf16 path
				// falls back per block).
				var in []float32
				for i := range src {
					b := uint32(src[i]) << 16
					if d == tensor.F16 {
						b = math.Float32bits(wide[i])
					}
					for _, dlt := range []uint32{0, 1, 0x7fff, 0x8000, 0x8001, 0xfff, 0x1000, 0x1001, 0xffffffff} {
						in = append(in, math.Float32frombits(b+dlt))
					}
				}
				sp := conversionSpecials()
				for _, b := range sp {
					in = append(in, math.Float32frombits(b))
				}
				r := rand.New(rand.NewPCG(1, 2))
				for range 1 << 18 {
					in = append(in, math.Float32frombits(r.Uint32()))
				}
				for _, b := range sp {
					for range 15 {
						in = append(in, float32(r.NormFloat64()))
					}
					in = append(in, math.Float32frombits(b))
				}
				for off := 0; off < 17; off++ { // every alignment of the Go tail
					part := in[off:]
					out := make([]uint16, len(part))
					done := narrowAsm(k.isa, d, out, part)
					if k.isa != isaGeneric && done != len(part)&^15 {
						t.Fatalf("narrowed %d of %d", done, len(part))
					}
					for i := range done {
						if want := tensor.FromFloat32(d, part[i]); out[i] != want {
							t.Fatalf("narrow %#08x: got %#04x, want %#04x", math.Float32bits(part[i]), out[i], want)
						}
					}
					if k.isa == isaGeneric {
						break
					}
				}
			})
		}
	}
}
