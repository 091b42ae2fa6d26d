package golden

import (
	"errors"
	"fmt"
	"sort"

	"github.com/rotary-go/rotary/compare"
)

// Diff compares every tensor of a and b, a the reference (compare.Tensors), the worst elements
// located by the axes of the op a's metadata names, or else b's (compare.AxesOf). It returns
// one Result per name either holds, sorted; a name on one side only is refused ("only in A",
// "only in B"). A golden bundle (Set.Outputs) against a Set that is not one is an error: the
// bundle's inputs would be paired with the other's outputs of the same names (Verify checks a
// candidate). A nil Set is an error.
func Diff(a, b *Set, opts compare.Options) ([]compare.Result, error) {
	switch {
	case a == nil:
		return nil, errors.New("golden.Diff: a is nil (want a Set, as ReadFiles reads one)")
	case b == nil:
		return nil, errors.New("golden.Diff: b is nil (want a Set, as ReadFiles reads one)")
	}
	if bundleA, bundleB := len(a.Outputs()) > 0, len(b.Outputs()) > 0; bundleA != bundleB {
		bundle, other := "A", "B"
		if bundleB {
			bundle, other = "B", "A"
		}
		return nil, fmt.Errorf("%s is a golden bundle (expected outputs out.X) and %s is not: diff would compare the bundle's inputs with the other's outputs; check a candidate with rotary verify GOLDEN CANDIDATE", bundle, other)
	}
	ax := compare.AxesOf(a.Metadata)
	if ax.Op == "" {
		ax = compare.AxesOf(b.Metadata)
	}
	names := make([]string, 0, len(a.Tensors)+len(b.Tensors))
	for n := range a.Tensors {
		names = append(names, n)
	}
	for n := range b.Tensors {
		if _, ok := a.Tensors[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	rows := make([]compare.Result, 0, len(names))
	for _, n := range names {
		ta, okA := a.Tensors[n]
		tb, okB := b.Tensors[n]
		var r compare.Result
		switch {
		case !okA:
			r = compare.Refused(n, "only in B")
			r.DTypeB, r.ShapeB = tb.DType.String(), tb.Shape
		case !okB:
			r = compare.Refused(n, "only in A")
			r.DType, r.Shape = ta.DType.String(), ta.Shape
		default:
			r = compare.Tensors(n, ta, tb, opts, ax)
		}
		rows = append(rows, r)
	}
	return rows, nil
}
