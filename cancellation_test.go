package rotary

import (
	"math"
	"testing"

	"github.com/rotary-go/rotary/tensor"
)

// TestCancellationContract drives every backend into the case the accuracy contract carves
// out: a pair whose rotated element cancels (x1/x2 the best approximation of tan θ by integers
// up to 256, exact in F16 and BF16, so x1·cos θ − x2·sin θ is about 2^-16 of the pair's norm). There the output need
// not be within 1 ULP of the exact value, but its error stays within the float32 kernel's
// error 2^-22·(|x1·cos θ| + |x2·sin θ|) plus half an output ULP; everywhere else it is within
// 1 ULP (checkOut).
func TestCancellationContract(t *testing.T) {
	const T = 4096
	spec := Spec{HeadSize: 2, RotaryDim: 2, Base: 10000, MaxPositions: T}
	for _, disp := range dispatchers(t) {
		e := mustNew(t, spec, WithDispatcher(disp))
		for _, dt := range []tensor.DType{tensor.BF16, tensor.F16} {
			pos := make([]int64, T)
			bits := make([]uint16, 2*T)
			for p := range pos {
				pos[p] = int64(p)
				x1, x2 := cancelling(float64(p))
				bits[2*p], bits[2*p+1] = tensor.FromFloat32(dt, float32(x1)), tensor.FromFloat32(dt, float32(x2))
			}
			in := append([]uint16(nil), bits...)
			if err := e.Forward(tensor.FromI64(pos, T), tensor.FromBits(dt, bits, T, 1, 2), tensor.Tensor{}); err != nil {
				t.Fatal(err)
			}
			var st accStats
			for p := range T {
				x1, x2 := float64(tensor.ToFloat32(dt, in[2*p])), float64(tensor.ToFloat32(dt, in[2*p+1]))
				s, c := math.Sincos(float64(p))
				norm := math.Hypot(x1, x2)
				o1, o2 := float64(tensor.ToFloat32(dt, bits[2*p])), float64(tensor.ToFloat32(dt, bits[2*p+1]))
				if err := checkOut(dt, o1, x1*c, -x2*s, norm, &st); err != nil {
					t.Fatalf("%s %v position %d, first element: %v", disp.Backend(), dt, p, err)
				}
				if err := checkOut(dt, o2, x2*c, x1*s, norm, &st); err != nil {
					t.Fatalf("%s %v position %d, second element: %v", disp.Backend(), dt, p, err)
				}
			}
			worst := int64(0)
			for p := range T {
				x1, x2 := float64(tensor.ToFloat32(dt, in[2*p])), float64(tensor.ToFloat32(dt, in[2*p+1]))
				s, c := math.Sincos(float64(p))
				worst = max(worst, tensor.ULPDiff(dt, float64(tensor.ToFloat32(dt, bits[2*p])), x1*c-x2*s))
			}
			t.Logf("%s %v: %d of %d elements under cancellation, the worst %d ULP from the exact value", disp.Backend(), dt, st.loose, 2*T, worst)
			if st.loose < T/2 {
				t.Errorf("%s %v: only %d of %d elements under cancellation: the test no longer reaches the case", disp.Backend(), dt, st.loose, 2*T)
			}
		}
	}
}

// cancelling returns integers x1, x2 of magnitude at most 256 with x1/x2 as close to tan θ as
// such integers come, so that x1·cos θ − x2·sin θ nearly cancels.
func cancelling(theta float64) (x1, x2 float64) {
	s, c := math.Sincos(theta)
	best := math.Inf(1)
	for n := 1.0; n <= 256; n++ {
		// Scale the larger of |sin|, |cos| to n; the other rounds to an integer below it.
		a, b := n*s/math.Abs(c), n*math.Copysign(1, c)
		if math.Abs(s) > math.Abs(c) {
			a, b = n*math.Copysign(1, s), n*c/math.Abs(s)
		}
		a, b = math.Round(a), math.Round(b)
		if r := math.Abs(a*c-b*s) / math.Hypot(a, b); r < best {
			best, x1, x2 = r, a, b
		}
	}
	return x1, x2
}
