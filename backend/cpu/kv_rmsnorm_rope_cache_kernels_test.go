package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rotary-go/rotary/backend/native"
	"github.com/rotary-go/rotary/tensor"
)

func TestKvcNormKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	val := func() float32 {
		switch r.IntN(10) {
		case 0:
			return math.Float32frombits(r.Uint32() & 0x807fffff) // subnormal
		case 1:
			return math.Float32frombits(r.Uint32()) // anything, NaN included
		case 2:
			return float32(r.NormFloat64() * 1e30)
		default:
			return float32(r.NormFloat64())
		}
	}
	for _, k := range impls {
		t.Run(k.name, func(t *testing.T) {
			for _, n := range []int{0, 4, 16, 36, 48, 64, 100, 512, 528} {
				for trial := range 20 {
					x, g, y := make([]float32, n), make([]float32, n), make([]float32, n)
					for i := range x {
						x[i], g[i] = val(), val()
						if trial%2 == 0 {
							x[i] = float32(r.NormFloat64()) // finite rows: a finite factor
						}
					}
					eps := []float32{1e-6, 0, 1e30}[trial%3]
					if trial == 4 {
						clear(x) // zero variance: r = 1/√ε, or +Inf with ε = 0
					}
					kvcNorm(k, y, x, g, eps)
					rf := native.RMSNormScale(native.SumSquares(x), n, eps)
					for j := range n {
						want := float32(x[j]*rf) * g[j]
						// Two NaN operands (0·Inf times a NaN gamma) give either one's payload:
						// arm64 returns its first operand's, and the compiler orders the operands
						// of this product as it likes, in the kernel and here alike.
						xr := float32(x[j] * rf)
						twoNaNs := xr != xr && g[j] != g[j] && y[j] != y[j]
						if math.Float32bits(y[j]) != math.Float32bits(want) && !twoNaNs {
							t.Fatalf("n=%d trial %d: y[%d] (x %v g %v r %v) = %v (%#x), want %v (%#x)", n, trial, j, x[j], g[j], rf, y[j], math.Float32bits(y[j]), want, math.Float32bits(want))
						}
					}
				}
			}
		})
	}
}

// TestKvcGammaSplit: every bf16 pattern, widened in the multi-token kernel's gamma layout, is
// kvcDeinterleave of the plain widening, and the least magnitude returned is kvcLeast's, over
// all patterns and over runs of them (all zeros, one nonzero value among zeros, NaNs with
// numbers); lengths the kernel does not take are declined.
func TestKvcGammaSplit(t *testing.T) {
	src := make([]uint16, 1<<16)
	for i := range src {
		src[i] = uint16(i)
	}
	plain := make([]float32, len(src))
	for i, b := range src {
		plain[i] = tensor.Float32FromBF16(b)
	}
	want := kvcDeinterleave(make([]float32, len(src)), plain)
	runs := [][]uint16{make([]uint16, 64), make([]uint16, 32), {0x8000: 0}}
	runs[1][17] = 0x8123
	runs[2] = runs[2][:32]
	for i := range runs[2] {
		runs[2][i] = 0x7fc1 + uint16(i%2)<<15 // NaNs of both signs ...
	}
	runs[2][5], runs[2][30] = 0xc000, 0x3f00 // ... and two numbers
	r := rand.New(rand.NewPCG(11, 12))
	for range 200 {
		run := make([]uint16, 32*(1+r.IntN(20)))
		for i := range run {
			run[i] = uint16(r.Uint32())
			if r.IntN(3) == 0 {
				run[i] &= 0x8000 // zeros of both signs
			}
		}
		runs = append(runs, run)
	}
	for _, k := range impls {
		got := make([]float32, len(src))
		least, ok := kvcGammaSplitAsm(k.isa, got, src)
		if !ok {
			continue // no kernel for this implementation
		}
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%s: element %d: got %#x, want %#x", k.name, i, math.Float32bits(got[i]), math.Float32bits(want[i]))
			}
		}
		if w := kvcLeast(got); math.Float32bits(least) != math.Float32bits(w) || w != math.Float32frombits(1<<16) {
			t.Errorf("%s: least of all patterns %v, kvcLeast %v, want 2^-133", k.name, least, w)
		}
		for n, run := range runs {
			g := make([]float32, len(run))
			least, _ := kvcGammaSplitAsm(k.isa, g, run)
			if w := kvcLeast(g); math.Float32bits(least) != math.Float32bits(w) {
				t.Errorf("%s: run %d: least %v (%#x), kvcLeast %v (%#x)", k.name, n, least, math.Float32bits(least), w, math.Float32bits(w))
			}
		}
		if _, ok := kvcGammaSplitAsm(k.isa, make([]float32, 48), src[:48]); ok {
			t.Errorf("%s: took a length that is not a multiple of 32", k.name)
		}
		if _, ok := kvcGammaSplitAsm(k.isa, nil, nil); ok {
			t.Errorf("%s: took an empty gamma", k.name)
		}
	}
}
