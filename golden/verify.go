package golden

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rotary-go/rotary/compare"
)

// VerifyOptions say how Verify judges a candidate.
type VerifyOptions struct {
	// Compare holds the tolerances and how many worst elements to locate; empty Sides are
	// "golden" and "candidate", what the notes call the two.
	Compare compare.Options
	// AnyDType compares a candidate output whose dtype is not the golden's after rounding
	// (compare.CommonDType). Without it such an output fails: a kernel should write the
	// golden's dtype.
	AnyDType bool
	// Candidate is where the candidate came from (a path), named in the problem of an output
	// it lacks; "" names none.
	Candidate string
}

// ErrNoOutputs is returned by Verify for a bundle that holds no expected outputs.
var ErrNoOutputs = errors.New("no expected outputs (tensors named out.X): is it a golden bundle?")

// Verify compares each expected output of bundle (Set.Outputs) with the candidate's
// (CandidateOutput), the worst elements located by the axes of the bundle's op
// (compare.AxesOf its metadata). It returns one Result per output, in Outputs' order; one
// with Problem set fails: over tolerance, not compared (compare.Tensors), missing from the
// candidate, or of another dtype than the golden's without AnyDType. Those last two are
// refused whole, figures left out. A nil Set is an error, and so is a bundle without outputs
// (ErrNoOutputs).
func Verify(bundle, candidate *Set, opts VerifyOptions) ([]compare.Result, error) {
	switch {
	case bundle == nil:
		return nil, errors.New("golden.Verify: bundle is nil (want a Set, as ReadFiles reads one)")
	case candidate == nil:
		return nil, errors.New("golden.Verify: candidate is nil (want a Set, as ReadFiles reads one)")
	}
	outputs := bundle.Outputs()
	if len(outputs) == 0 {
		return nil, ErrNoOutputs
	}
	co := opts.Compare
	if co.Sides[0] == "" {
		co.Sides = [2]string{"golden", "candidate"}
	}
	in := ""
	if opts.Candidate != "" {
		in = " in " + opts.Candidate
	}
	ax := compare.AxesOf(bundle.Metadata)
	rows := make([]compare.Result, 0, len(outputs))
	for _, n := range outputs {
		want := bundle.Tensors[n]
		x := strings.TrimPrefix(n, OutPrefix)
		tc, name, ok := CandidateOutput(candidate.Tensors, x)
		var r compare.Result
		switch {
		case !ok:
			r = compare.Refused(n, fmt.Sprintf("missing from the candidate (want %s or %s%s)", x, n, in))
			r.DType, r.Shape = want.DType.String(), want.Shape
		case tc.DType != want.DType && !opts.AnyDType:
			r = compare.Refused(n, fmt.Sprintf("dtype %v, but the golden's output is %v: a kernel writing the wrong dtype (--any-dtype compares after rounding)", tc.DType, want.DType))
			r.DType, r.DTypeB, r.Shape, r.Candidate = want.DType.String(), tc.DType.String(), want.Shape, name
		default:
			r = compare.Tensors(n, want, tc, co, ax)
			r.Candidate = name
		}
		rows = append(rows, r)
	}
	return rows, nil
}
