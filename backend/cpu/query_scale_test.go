package cpu

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/rotary-go/rotary/tensor"
)

// queryScaleMultipliers are scales the kernels must apply exactly: Llama 4's and the beta rule's
// (just above 1, a bf16-rounded one, below 1 for a negative beta), ones whose products round
// to ties, fall to subnormals (bf16's fast rounding flushes them), overflow, or change sign.
var queryScaleMultipliers = []float32{
	1, 1.0693147, 1.0625, 0.7, 1.5, 3, 0x1p-126, 0x1p-140, 0x1p+100, 3e38, -0.75, -1, 0,
}

// TestQueryScaleKernels: every 16-bit pattern (F16, BF16) and the F32 conversion specials mixed
// with random bits, times each multiplier, on every kernel set, against the reference's
// dtype(float32(x·m)) bit for bit, NaN payloads included; at every length up to a few blocks,
// the elements past the kernel's multiple of 16 left for Go.
func TestQueryScaleKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, k := range impls {
		// How many of l elements the kernels take: the multiple of 16 where they exist
		// (amd64's sets), none where Go scales every element.
		kernelPart := func(l int) int {
			if runtime.GOARCH != "amd64" || k.isa == isaGeneric {
				return 0
			}
			return l &^ 15
		}
		for _, d := range []tensor.DType{tensor.F32, tensor.BF16, tensor.F16} {
			t.Run(k.name+"/"+d.String(), func(t *testing.T) {
				var f32 []float32
				var bits []uint16
				if d == tensor.F32 {
					for _, b := range conversionSpecials() {
						f32 = append(f32, math.Float32frombits(b))
						for range 7 {
							f32 = append(f32, math.Float32frombits(r.Uint32()), float32(r.NormFloat64()))
						}
					}
				} else {
					for i := range 1 << 16 {
						bits = append(bits, uint16(i))
					}
				}
				for _, m := range queryScaleMultipliers {
					if d == tensor.F32 {
						got := append([]float32(nil), f32...)
						n := queryScaleF32Asm(k.isa, got, m)
						if n != kernelPart(len(got)) {
							t.Fatalf("scaled %d of %d", n, len(got))
						}
						for i := range got {
							want := f32[i]
							if i < n {
								want = f32[i] * m
							}
							if math.Float32bits(got[i]) != math.Float32bits(want) {
								t.Fatalf("m=%v: %#08x: got %#08x, want %#08x", m, math.Float32bits(f32[i]), math.Float32bits(got[i]), math.Float32bits(want))
							}
						}
						continue
					}
					got := append([]uint16(nil), bits...)
					n := queryScaleBitsAsm(k.isa, d, got, m)
					if n != kernelPart(len(got)) {
						t.Fatalf("scaled %d of %d", n, len(got))
					}
					for i := range got {
						want := bits[i]
						if i < n {
							want = tensor.FromFloat32(d, tensor.ToFloat32(d, bits[i])*m)
						}
						if got[i] != want {
							t.Fatalf("m=%v: %#04x: got %#04x, want %#04x", m, bits[i], got[i], want)
						}
					}
				}
				// Every length to three blocks and a unit: the kernel takes the multiple of
				// 16 and touches nothing past it.
				for l := range 3*64 + 17 {
					m := queryScaleMultipliers[l%len(queryScaleMultipliers)]
					if d == tensor.F32 {
						x := append([]float32(nil), f32[:l+1]...)
						n := queryScaleF32Asm(k.isa, x[:l], m)
						if n != kernelPart(l) {
							t.Fatalf("length %d: scaled %d", l, n)
						}
						for i := range x {
							want := f32[i]
							if i < n {
								want = f32[i] * m
							}
							if math.Float32bits(x[i]) != math.Float32bits(want) {
								t.Fatalf("length %d, m=%v: element %d: got %#08x, want %#08x", l, m, i, math.Float32bits(x[i]), math.Float32bits(want))
							}
						}
						continue
					}
					src := bits[3*l : 4*l+1] // a different mix of patterns at each length
					x := append([]uint16(nil), src...)
					n := queryScaleBitsAsm(k.isa, d, x[:l], m)
					if n != kernelPart(l) {
						t.Fatalf("length %d: scaled %d", l, n)
					}
					for i := range x {
						want := src[i]
						if i < n {
							want = tensor.FromFloat32(d, tensor.ToFloat32(d, src[i])*m)
						}
						if x[i] != want {
							t.Fatalf("length %d, m=%v: element %d (%#04x): got %#04x, want %#04x", l, m, i, src[i], x[i], want)
						}
					}
				}
			})
		}
	}
}
