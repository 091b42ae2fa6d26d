package compare

import (
	"fmt"
	"math"

	"github.com/rotary-go/rotary/tensor"
)

// CommonDType is the dtype two tensors are compared in: their own when alike; the narrower of
// two float types (the wider is rounded to it, as a kernel's output would be); BF16 for F16
// against BF16 (fewer significant bits); I64 for two integer types (exact). A float against
// an integer type is not compared. The note calls a's and b's sides aName and bName.
func CommonDType(a, b tensor.DType, aName, bName string) (tensor.DType, string, bool) {
	if a == b {
		return a, "", true
	}
	rank := map[tensor.DType]int{tensor.BF16: 1, tensor.F16: 2, tensor.F32: 3, tensor.F64: 4}
	ra, okA := rank[a]
	rb, okB := rank[b]
	switch {
	case okA && okB:
		if a == tensor.F16 && b == tensor.BF16 || a == tensor.BF16 && b == tensor.F16 {
			rounded := aName // the F16 side; the BF16 one is compared as it is
			if b == tensor.F16 {
				rounded = bName
			}
			return tensor.BF16, fmt.Sprintf("dtype %v vs %v: %s rounded to BF16 (fewer significant bits) before comparing", a, b, rounded), true
		}
		if ra < rb {
			return a, fmt.Sprintf("dtype %v vs %v: %s rounded to %v (the narrower) before comparing", a, b, bName, a), true
		}
		return b, fmt.Sprintf("dtype %v vs %v: %s rounded to %v (the narrower) before comparing", a, b, aName, b), true
	case !okA && !okB && a.Size() > 0 && b.Size() > 0:
		return tensor.I64, fmt.Sprintf("dtype %v vs %v: compared as integers", a, b), true
	}
	return 0, "", false
}

// RoundTo rounds x to the nearest value of the float type d, ties to even; x is already
// exact for F64 and for integer types.
func RoundTo(d tensor.DType, x float64) float64 {
	switch d {
	case tensor.F32:
		return float64(float32(x))
	case tensor.F16, tensor.BF16:
		return float64(tensor.ToFloat32(d, tensor.FromFloat32(d, roundToOdd32(x))))
	}
	return x
}

// roundToOdd32 rounds x to float32 toward zero, setting the last bit when inexact. Rounding
// that once more to a format with at least two fewer significant bits (F16's 11, BF16's 8,
// against float32's 24) gives the correctly rounded result, which rounding to nearest twice
// would not always (Boldo and Melquiond, "When double rounding is odd").
func roundToOdd32(x float64) float32 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return float32(x)
	}
	f := float32(x)
	if float64(f) == x {
		return f
	}
	if math.IsInf(float64(f), 0) || math.Abs(float64(f)) > math.Abs(x) {
		f = math.Nextafter32(f, 0) // toward zero: from ±Inf this is ±MaxFloat32
	}
	return math.Float32frombits(math.Float32bits(f) | 1)
}
