package main

import (
	"encoding/json"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/tensor"
)

// f32Angle is the float32 angle a framework computes, rounded with math/big: f32(p) and
// f32(inv) exactly, their product rounded once to 24 bits, ties to even.
func f32Angle(p int, inv float64) float64 {
	x := new(big.Float).SetPrec(24).SetMode(big.ToNearestEven).SetInt64(int64(p))
	y := new(big.Float).SetPrec(24).SetMode(big.ToNearestEven).SetFloat64(inv)
	z := new(big.Float).SetPrec(24).SetMode(big.ToNearestEven).Mul(x, y)
	f, _ := z.Float64()
	return f
}

// TestPrecisionFloat32Angle: the report's float32 angle is the correctly rounded float32
// product, its maximum over the window is attained where it says, and an angle float32 holds
// exactly (pair 0: inv_freq 1, positions below 2^24) has no error.
func TestPrecisionFloat32Angle(t *testing.T) {
	m, err := hf.Preset("llama-3.1-8b")
	if err != nil {
		t.Fatal(err)
	}
	r, err := precision(m.Spec, "llama")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Lengths) != 2 || r.Lengths[0].Length != 8192 || r.Lengths[1].Length != 131072 || r.Lengths[1].From != 131072-precisionWindow {
		t.Fatalf("lengths %+v: want the original 8192 and the max 131072", r.Lengths)
	}
	inv, att := m.Spec.Frequencies(-1)
	for _, l := range r.Lengths {
		at := l.AnglePosition
		want := math.Abs(f32Angle(at, inv[l.AnglePair]) - float64(at)*inv[l.AnglePair])
		if l.MaxAngleError != want || want == 0 {
			t.Errorf("%s: max angle error %v at position %d pair %d, math/big gives %v", l.Name, l.MaxAngleError, at, l.AnglePair, want)
		}
		for _, p := range []int{l.Length - 1, l.Length - 2, l.From, (l.From + l.Length) / 2} {
			for i := range inv {
				if e := math.Abs(f32Angle(p, inv[i]) - float64(p)*inv[i]); e > l.MaxAngleError {
					t.Errorf("%s: position %d pair %d drifts %v, past the reported maximum %v", l.Name, p, i, e, l.MaxAngleError)
				}
			}
		}
		if l.MaxCosSinError < l.MaxAngleError*0.5 || l.MaxCosSinError > l.MaxAngleError*att*1.0001 {
			t.Errorf("%s: cos/sin error %v for angle error %v", l.Name, l.MaxCosSinError, l.MaxAngleError)
		}
		if want := l.MaxCosSinError / 0x1p-7; math.Abs(l.MaxBF16ULPs-want) > 1e-12*want {
			t.Errorf("%s: %v bf16 ULPs, want %v (the norm 1's ULP is 2^-7)", l.Name, l.MaxBF16ULPs, want)
		}
	}
	if r.Lengths[1].MaxAngleError <= r.Lengths[0].MaxAngleError || r.Lengths[1].BF16Differ <= r.Lengths[0].BF16Differ {
		t.Errorf("the drift should grow with the length: %+v", r.Lengths)
	}
	exact := rotary.Spec{HeadSize: 2, RotaryDim: 2, Base: 10000, MaxPositions: 1 << 20}
	r, err = precision(exact, "exact")
	if err != nil {
		t.Fatal(err)
	}
	if l := r.Lengths[0]; l.MaxAngleError != 0 || l.MaxCosSinError != 0 || l.BF16Differ != 0 {
		t.Errorf("inv_freq 1 below 2^24: %+v, want no error", l)
	}
}

// TestRoundBF16: one correctly rounded step, as tensor's float32 → bf16 conversion is for
// float32 inputs, subnormals included.
func TestRoundBF16(t *testing.T) {
	x := uint64(1)
	for range 100000 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		f := math.Float32frombits(uint32(x))
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) || math.Abs(float64(f)) > 3e38 {
			continue
		}
		want := float64(tensor.ToFloat32(tensor.BF16, tensor.FromFloat32(tensor.BF16, f)))
		if got := roundBF16(float64(f)); got != want {
			t.Fatalf("roundBF16(%g) = %g, want %g", f, got, want)
		}
	}
	// A float64 just above a bf16 tie: rounding to float32 first lands on the tie, which then
	// rounds to even (down); one rounding goes up.
	tie := 1 + 0x1p-8
	if got := roundBF16(tie + 0x1p-40); got != 1+0x1p-7 {
		t.Errorf("roundBF16(1 + 2^-8 + 2^-40) = %v, want 1 + 2^-7", got)
	}
}

func TestCheckPrecisionCLI(t *testing.T) {
	code, out, stderr := runCLI(t, "check", "--model", "qwen3-8b", "--precision", "--json")
	var r precisionReport
	if err := json.Unmarshal([]byte(out), &r); code != 0 || err != nil {
		t.Fatalf("exit %d, stderr %q, %v", code, stderr, err)
	}
	if len(r.Lengths) != 1 || r.Lengths[0].Name != "max" || r.Lengths[0].Length != 40960 || r.Lengths[0].From != 0 {
		t.Errorf("qwen3-8b (no scaling): %+v, want the max length 40960 alone, from 0", r.Lengths)
	}
	code, out, _ = runCLI(t, "check", "--model", "llama-3.1-8b", "--precision")
	if code != 0 || !strings.Contains(out, "original length 8192") || !strings.Contains(out, "max length 131072") {
		t.Errorf("text: exit %d\n%s", code, out)
	}
}
