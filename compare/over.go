package compare

import (
	"fmt"

	"github.com/rotary-go/rotary/tensor"
)

// Over marks, in row-major order, the elements of b over tolerance against the reference a
// under opts, by the rules of Tensors: the dtypes compared in CommonDType, the absolute
// tolerance opts.ATol or, when negative, 2^-20 × the largest |a|, which it returns. a and b
// must hold the same number of elements, in any shapes.
func Over(a, b tensor.Tensor, opts Options) ([]bool, float64, error) {
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
	for i := range over {
		_, _, over[i], _ = floatElement(cd, RoundTo(cd, a.Float64At(i)), RoundTo(cd, b.Float64At(i)), opts.MaxULP, atol)
	}
	return over, atol, nil
}
