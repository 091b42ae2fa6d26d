package compare

import (
	"fmt"
	"math"

	"github.com/rotary-go/rotary/tensor"
)

// Over marks, in row-major order, the elements of b over tolerance against the reference a
// under opts, by the rules of Tensors: the dtypes compared in CommonDType, the absolute
// tolerance opts.ATol or, when negative, 2^-20 × the largest |a|, which it returns. a and b
// must hold the same number of elements, in any shapes; as Tensors, it reads each one's
// backing slice flat from its start (a contiguous tensor's elements in order).
func Over(a, b tensor.Tensor, opts Options) ([]bool, float64, error) {
	if err := opts.Check(); err != nil {
		return nil, 0, err
	}
	for _, t := range []struct {
		name string
		t    tensor.Tensor
	}{{"a", a}, {"b", b}} {
		if err := t.t.Check(t.name); err != nil || t.t.Len() < 0 {
			return nil, 0, fmt.Errorf("compare: %s: a tensor whose shape or view does not fit its data", t.name)
		}
	}
	cd, _, ok := CommonDType(a.DType, b.DType, "a", "b")
	switch {
	case !ok:
		return nil, 0, fmt.Errorf("compare: dtype %v vs %v: a float and an integer tensor are not compared", a.DType, b.DType)
	case a.Len() != b.Len():
		return nil, 0, fmt.Errorf("compare: shape %s vs %s: %d vs %d elements", tensor.ShapeString(a.Shape), tensor.ShapeString(b.Shape), a.Len(), b.Len())
	}
	over := make([]bool, a.Len())
	if !(cd.IsFloat() || cd == tensor.F64) {
		for i := range over {
			over[i] = a.Int64At(i) != b.Int64At(i)
		}
		return over, 0, nil
	}
	atol := tolerance(a, cd, opts)
	// Equal bit patterns are never over (NaN against the same NaN included), and a value
	// already of the compared dtype needs no rounding: the common cases, made cheap, since
	// explain calls this once per reading over every element.
	identical := func(int) bool { return false }
	if a.DType == b.DType {
		switch a.DType {
		case tensor.F16, tensor.BF16:
			identical = func(i int) bool { return a.Bits[i] == b.Bits[i] }
		case tensor.F32:
			identical = func(i int) bool { return math.Float32bits(a.F32[i]) == math.Float32bits(b.F32[i]) }
		case tensor.F64:
			identical = func(i int) bool { return math.Float64bits(a.F64[i]) == math.Float64bits(b.F64[i]) }
		}
	}
	value := func(t tensor.Tensor, i int) float64 {
		if t.DType == cd {
			return t.Float64At(i)
		}
		return RoundTo(cd, t.Float64At(i))
	}
	for i := range over {
		if !identical(i) {
			_, _, over[i], _ = floatElement(cd, value(a, i), value(b, i), opts.MaxULP, atol)
		}
	}
	return over, atol, nil
}
