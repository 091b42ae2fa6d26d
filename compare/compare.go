// Package compare measures one tensor against a reference the way a porting engineer needs:
// within a tolerance in units in the last place (ULP) or absolute error, with the dtype and layout
// rules for tensors that are not alike said in notes, and the worst elements located by the
// coordinates of the op that made them (token, head, dim). rotary diff and rotary verify print
// its Results; its JSON form is a contract for tools. Summarize gives one tensor's own figures
// (extremes, mean, NaN and Inf counts), which rotary show prints.
package compare

import (
	"container/heap"
	"fmt"
	"math"
	"slices"

	"github.com/rotary-go/rotary/tensor"
)

// Options are the tolerances and how many worst elements to locate. The zero Options pass
// only equal elements (0 ULP, atol 0) and locate none.
type Options struct {
	// MaxULP: elements within this many units in the last place (of the compared dtype) pass.
	// Integers must be equal: an integer's ULP is the difference.
	MaxULP int64
	// ATol: elements within this absolute error pass. Negative: 2^-20 × the largest finite
	// |reference| of the tensor.
	ATol float64
	// Show: how many of the worst elements over tolerance to locate.
	Show int
	// Sides: what the notes call the reference and the other side; empty: A and B.
	Sides [2]string
}

// Check refuses options under which a comparison would pass or fail every element without a
// word: a NaN or infinite ATol (a negative finite one asks for the default), a negative MaxULP
// or Show. Tensors and Over refuse such options through it.
func (o Options) Check() error {
	switch {
	case math.IsNaN(o.ATol) || math.IsInf(o.ATol, 0):
		return fmt.Errorf("compare: Options.ATol %v: want a finite tolerance (negative: the default)", o.ATol)
	case o.MaxULP < 0:
		return fmt.Errorf("compare: Options.MaxULP %d: want a count ≥ 0", o.MaxULP)
	case o.Show < 0:
		return fmt.Errorf("compare: Options.Show %d: want a count ≥ 0", o.Show)
	}
	return nil
}

// Tensors measures b against a, the reference, under opts, naming the dimensions of
// the elements it locates with ax.
func Tensors(name string, a, b tensor.Tensor, opts Options, ax Axes) Result {
	r := Result{Name: name, DType: a.DType.String(), Shape: a.Shape, Elements: a.Len()}
	if err := opts.Check(); err != nil {
		r.Problem = err.Error()
		return r
	}
	if a.DType != b.DType {
		r.DTypeB = b.DType.String()
	}
	if !slices.Equal(a.Shape, b.Shape) {
		r.ShapeB = b.Shape
	}
	sides := opts.Sides
	if sides[0] == "" {
		sides = [2]string{"A", "B"}
	}
	cd, note, ok := CommonDType(a.DType, b.DType, sides[0], sides[1])
	if !ok {
		r.Problem = fmt.Sprintf("dtype %v vs %v: a float and an integer tensor are not compared", a.DType, b.DType)
		return r
	}
	coords := a.Shape
	if r.ShapeB != nil {
		as, bs := tensor.ShapeString(a.Shape), tensor.ShapeString(b.Shape)
		switch {
		case a.Len() != b.Len():
			r.Problem = fmt.Sprintf("shape %s vs %s: %d vs %d elements", as, bs, a.Len(), b.Len())
			return r
		case !mergesDims(a.Shape, b.Shape) && !mergesDims(b.Shape, a.Shape):
			r.Problem = fmt.Sprintf("shape %s vs %s: the same %d elements in another order (a transposed layout?); only shapes that merge adjacent dimensions, as [T,H,D] and [T,H·D], are compared", as, bs, a.Len())
			return r
		}
		r.Notes = append(r.Notes, fmt.Sprintf("shape %s vs %s: compared element by element in row-major order (one merges adjacent dimensions of the other)", as, bs))
		if len(b.Shape) > len(a.Shape) {
			coords = b.Shape // locate in the finer layout
		}
	}
	if note != "" {
		r.Notes = append(r.Notes, note)
		r.ComparedAs = cd.String()
	}
	r.Compared = true
	r.ULPTol = opts.MaxULP
	isFloat := cd.IsFloat() || cd == tensor.F64
	n := r.Elements
	atol := tolerance(a, cd, opts)
	r.Tolerance = atol
	worst := &worstHeap{}
	// The elements worst by absolute error sit where the values are large; one many ULPs off
	// next to tiny values (a cancellation, a wrong sign near zero) would never be shown.
	var worstULP worstCand
	haveULP := false
	var sq, ref sumSquares
	unbounded := false // a NaN or an infinity on one side only: no tolerance covers it
	for i := range n {
		var x, y, diff float64
		var ulp int64
		over := false
		if isFloat {
			x, y = a.Float64At(i), b.Float64At(i)
			if a.DType != cd { // a value of the compared dtype is exact in it already
				x = RoundTo(cd, x)
			}
			if b.DType != cd {
				y = RoundTo(cd, y)
			}
			var finite bool
			diff, ulp, over, finite = floatElement(cd, x, y, opts.MaxULP, atol)
			if finite {
				sq.add(diff)
				ref.add(x)
			} else if over {
				unbounded = true
			}
		} else {
			// Integers compare exactly, without a detour through float64 that would merge
			// values past 2^53. An integer's unit in the last place is 1, so its ULP figure is
			// the difference (at most MaxInt64), which no tolerance lets pass.
			p, q := a.Int64At(i), b.Int64At(i)
			x, y = float64(p), float64(q)
			if p != q {
				d := uint64(p) - uint64(q)
				if p < q {
					d = uint64(q) - uint64(p)
				}
				diff, ulp = float64(d), int64(min(d, math.MaxInt64))
				sq.add(diff)
				over = true
			}
			ref.add(x)
		}
		r.MaxAbs = max(r.MaxAbs, diff)
		r.MaxULP = max(r.MaxULP, ulp)
		if over {
			r.Mismatch++
			c := worstCand{i: i, a: Value{f: x}, b: Value{f: y}, diff: diff, ulp: ulp}
			if !isFloat {
				c.a, c.b = Value{i: a.Int64At(i), isInt: true}, Value{i: b.Int64At(i), isInt: true}
			}
			worst.offer(opts.Show, c)
			if !haveULP || c.ulp > worstULP.ulp || c.ulp == worstULP.ulp && c.worse(worstULP) {
				worstULP, haveULP = c, true
			}
		}
	}
	switch {
	case unbounded:
		r.NMSE = math.Inf(1)
	case ref.ssq > 0:
		r.NMSE = sq.over(ref)
	case sq.ssq > 0:
		r.NMSE = math.Inf(1)
	}
	if r.Mismatch > 0 {
		r.Problem = fmt.Sprintf("%d elements over tolerance", r.Mismatch)
		if !isFloat {
			r.Notes = append(r.Notes, "integers must be equal: no ULP or absolute tolerance applies (an integer's ULP is the difference)")
		}
		coords, names := ax.locate(name, coords)
		shown := false
		for _, c := range worst.sorted() {
			r.Worst = append(r.Worst, Element{Index: unravel(c.i, coords), Axes: names, A: c.a, B: c.b, AbsErr: Float(c.diff), ULP: c.ulp})
			shown = shown || c.i == worstULP.i
		}
		if isFloat && opts.Show > 0 && haveULP && !shown {
			c := worstULP
			r.Worst = append(r.Worst, Element{Index: unravel(c.i, coords), Axes: names, A: c.a, B: c.b, AbsErr: Float(c.diff), ULP: c.ulp, ByULP: true})
		}
	}
	return r
}

// tolerance is the absolute tolerance opts give against reference a compared in dtype cd:
// opts.ATol, or when negative 2^-20 × the largest finite |a| (0 for integers).
func tolerance(a tensor.Tensor, cd tensor.DType, opts Options) float64 {
	if opts.ATol >= 0 {
		return opts.ATol
	}
	scale := 0.0
	if cd.IsFloat() || cd == tensor.F64 {
		for i := range a.Len() {
			v := a.Float64At(i)
			if a.DType != cd {
				v = RoundTo(cd, v)
			}
			if v = math.Abs(v); !math.IsInf(v, 0) && !math.IsNaN(v) {
				scale = max(scale, v)
			}
		}
	}
	return scale * 0x1p-20
}

// floatElement compares x and y, already rounded to cd: their difference and ULPs, whether
// they are over tolerance, and whether both are finite. A NaN or an infinity on one side
// only is over any tolerance (an infinite difference); two NaNs, or equal infinities, are
// equal.
func floatElement(cd tensor.DType, x, y float64, maxULP int64, atol float64) (diff float64, ulp int64, over, finite bool) {
	if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
		if !(math.IsNaN(x) && math.IsNaN(y)) && x != y {
			return math.Inf(1), math.MaxInt64, true, false
		}
		return 0, 0, false, false
	}
	diff = math.Abs(x - y)
	ulp = tensor.ULPDiff(cd, x, y)
	return diff, ulp, ulp > maxULP && diff > atol, true
}

// sumSquares is a sum of squares held as scale²·ssq, so that F64 values whose squares
// overflow (or underflow) still add up (LAPACK's dlassq).
type sumSquares struct{ scale, ssq float64 }

func (s *sumSquares) add(v float64) {
	a := math.Abs(v)
	switch {
	case a == 0:
	case math.IsInf(a, 0):
		s.scale, s.ssq = a, 1 // a difference that overflowed: the sum is infinite
	case a > s.scale:
		r := s.scale / a
		s.ssq = 1 + s.ssq*r*r
		s.scale = a
	default:
		r := a / s.scale
		s.ssq += r * r
	}
}

// over is s / t, for t not zero.
func (s sumSquares) over(t sumSquares) float64 {
	r := s.scale / t.scale * math.Sqrt(s.ssq/t.ssq)
	return r * r
}

// mergesDims reports whether coarse is fine with runs of adjacent dimensions merged: every
// prefix product of coarse is one of fine's, so both walk the elements in the same order.
func mergesDims(coarse, fine []int) bool {
	prefixes := map[int]bool{1: true}
	p := 1
	for _, d := range fine {
		p *= d // the element count fits in int, so its prefixes do
		prefixes[p] = true
	}
	p = 1
	for _, d := range coarse {
		p *= d
		if !prefixes[p] {
			return false
		}
	}
	return true
}

// unravel is the coordinates of row-major flat index i in shape.
func unravel(i int, shape []int) []int {
	c := make([]int, len(shape))
	for k := len(shape) - 1; k >= 0; k-- {
		if shape[k] > 0 {
			c[k] = i % shape[k]
			i /= shape[k]
		}
	}
	return c
}

// worstCand is an element over tolerance.
type worstCand struct {
	i    int
	a, b Value
	diff float64
	ulp  int64
}

// worse orders the elements: larger absolute error first, then more ULPs, then the earlier.
func (c worstCand) worse(d worstCand) bool {
	if c.diff != d.diff {
		return c.diff > d.diff
	}
	if c.ulp != d.ulp {
		return c.ulp > d.ulp
	}
	return c.i < d.i
}

// worstHeap keeps the n worst elements seen, the least bad on top.
type worstHeap []worstCand

func (h worstHeap) Len() int           { return len(h) }
func (h worstHeap) Less(i, j int) bool { return h[j].worse(h[i]) }
func (h worstHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *worstHeap) Push(x any)        { *h = append(*h, x.(worstCand)) }
func (h *worstHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (h *worstHeap) offer(n int, c worstCand) {
	switch {
	case n <= 0:
	case h.Len() < n:
		heap.Push(h, c)
	case c.worse((*h)[0]):
		(*h)[0] = c
		heap.Fix(h, 0)
	}
}

// sorted is the kept elements, worst first.
func (h *worstHeap) sorted() []worstCand {
	out := slices.Clone(*h)
	slices.SortFunc(out, func(x, y worstCand) int {
		if x.worse(y) {
			return -1
		}
		return 1
	})
	return out
}
