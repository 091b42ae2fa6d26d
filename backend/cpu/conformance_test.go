package cpu_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"

	"github.com/rotary-go/rotary/backend/cpu"
	"github.com/rotary-go/rotary/rotarytest"
)

// TestConformance runs the suite against every implementation this machine has, forced one at
// a time, demanding bit-identical results.
func TestConformance(t *testing.T) {
	defer cpu.SetImplementation(cpu.Implementations()[0])
	for _, impl := range cpu.Implementations() {
		t.Run(impl, func(t *testing.T) {
			if err := cpu.SetImplementation(impl); err != nil {
				t.Fatal(err)
			}
			// The sweep's calls are too small for the pool, so the race detector learns little
			// from the full one; the ordinary run checks every case bit for bit.
			rotarytest.Run(t, cpu.Name, rotarytest.Options{Short: raceEnabled})
		})
	}
}

// thinned reports whether -short leaves out choice i of n that a sweep turns over for each of
// its cases, case c keeping choice c%n: the arm64 runs under QEMU use -short, and there the
// pool tests' sweeps, which go test runs whole, took most of the package's minutes.
func thinned(c, i, n int) bool { return testing.Short() && i != c%n }

func mustDispatcher(t *testing.T, spec, backend string) *ops.Dispatcher {
	t.Helper()
	d, err := ops.NewDispatcher(spec, backend)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// sameAsNative runs run through native and then through the cpu backend on every
// implementation this machine has, and fails where a result differs from native's bits (NaNs
// only need to stay NaNs). The caller restores the implementation.
func sameAsNative(t *testing.T, name string, run func(*ops.Dispatcher) tensor.Tensor) {
	t.Helper()
	want := run(mustDispatcher(t, "none", ops.Auto))
	for _, impl := range cpu.Implementations() {
		if err := cpu.SetImplementation(impl); err != nil {
			t.Fatal(err)
		}
		sameBits(t, name+"/"+impl, want, run(mustDispatcher(t, "all", cpu.Name)))
	}
}

// valueMix selects what randomTensor mixes into normal values.
type valueMix int

const (
	normalValues  valueMix = iota
	tinyValues             // zeros and subnormals, all finite: rows whose results are subnormal
	specialValues          // subnormals, NaN, infinities and random bit patterns
)

func (v valueMix) String() string { return [...]string{"normal", "tiny", "special"}[v] }

// randomTensor fills a tensor with normal values, mixed with what v selects.
func randomTensor(r *rand.Rand, d tensor.DType, v valueMix, shape ...int) tensor.Tensor {
	t := tensor.Zeros(d, shape...)
	for i := range t.Len() {
		x := float32(r.NormFloat64())
		switch k := r.IntN(40); {
		case v == tinyValues && k < 2:
			x *= 1e-39 // f32 subnormal; bf16 keeps it, f16 flushes
		case v == tinyValues && k == 2:
			x = 0
		case v != specialValues:
		case k == 0:
			x = math.Float32frombits(r.Uint32() & 0x807fffff)
		case k == 1:
			x = float32(math.NaN())
		case k == 2:
			x = float32(math.Inf(1 - 2*r.IntN(2)))
		case k == 3:
			x = math.Float32frombits(r.Uint32())
		case k == 4:
			x *= 1e-40
		}
		if d == tensor.F32 {
			t.F32[i] = x
		} else {
			t.Bits[i] = tensor.FromFloat32(d, x)
		}
	}
	return t
}

// sameBits demands identical bits, NaN payloads aside (the reference's float64 products may
// pick either NaN operand).
func sameBits(t *testing.T, name string, want, got tensor.Tensor) {
	t.Helper()
	for i := range want.Len() {
		a, b := want.Float64At(i), got.Float64At(i)
		same := math.IsNaN(a) && math.IsNaN(b)
		if want.DType == tensor.F32 {
			same = same || math.Float32bits(want.F32[i]) == math.Float32bits(got.F32[i])
		} else {
			same = same || want.Bits[i] == got.Bits[i]
		}
		if !same {
			t.Fatalf("%s: element %d: got %v, want %v", name, i, b, a)
		}
	}
}
