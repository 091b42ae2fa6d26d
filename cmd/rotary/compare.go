package main

// The element comparison diff and verify share: tolerances, the per-tensor figures, the
// dtype and layout rules for tensors that are not alike, and the worst elements by coordinate.

import (
	"container/heap"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// compareOptions are the tolerances and how many worst elements to locate.
type compareOptions struct {
	maxULP   int64
	atol     float64 // < 0: 2^-20 × the largest finite |reference| of the tensor; set by check
	show     int
	atolFlag optFloat
	sides    [2]string // what the notes call the reference and the other side; "" is A and B
}

// registerTolerances adds --atol, the ULP flag (diff's --max-ulp, verify's --ulp) and --show.
func (o *compareOptions) register(fs *flag.FlagSet, ulpFlag string) {
	fs.Int64Var(&o.maxULP, ulpFlag, 1, "elements within `N` units in the last place (of the compared dtype) pass; integers must be equal (an integer's ULP is the difference)")
	// diff names it --max-ulp and verify --ulp; each takes the other's spelling too.
	alias := map[string]string{"ulp": "max-ulp", "max-ulp": "ulp"}[ulpFlag]
	fs.Int64Var(&o.maxULP, alias, 1, "the same as --"+ulpFlag)
	fs.Var(&o.atolFlag, "atol", "elements within absolute error `X` pass (default: 2^-20 × the largest |reference| of the tensor)")
	fs.IntVar(&o.show, "show", 5, "locate the `N` worst elements of each tensor over tolerance")
}

// check refuses tolerances that would pass or fail everything silently: a NaN tolerance
// makes every comparison false, an infinite or negative one passes or fails all. It sets atol
// from --atol, or to -1 when not given.
func (o *compareOptions) check(fs *flag.FlagSet) error {
	o.atol = -1
	if o.atolFlag.set {
		o.atol = o.atolFlag.v
	}
	var bad error
	fs.Visit(func(f *flag.Flag) {
		switch {
		case f.Name == "atol" && (math.IsNaN(o.atol) || math.IsInf(o.atol, 0) || o.atol < 0):
			bad = usagef("--atol %s: want a finite tolerance ≥ 0", f.Value)
		case (f.Name == "max-ulp" || f.Name == "ulp") && o.maxULP < 0:
			bad = usagef("--%s %s: want a count ≥ 0", f.Name, f.Value)
		case f.Name == "show" && (o.show < 0 || o.show > 1<<16):
			bad = usagef("--show %s: want a count from 0 to 65536", f.Value)
		}
	})
	return bad
}

// diffRow is one tensor's comparison; its JSON form is a contract for tools. A refused pair
// (a tensor on one side only, dtypes or shapes that are not compared) has Problem set and
// Compared false, and its JSON omits the figures it does not have.
type diffRow struct {
	Name       string      `json:"name"`
	Candidate  string      `json:"candidate,omitempty"` // verify: the candidate's name for it
	DType      string      `json:"dtype"`
	Shape      []int       `json:"shape"`
	DTypeB     string      `json:"dtype_b,omitempty"` // set when it differs from dtype
	ShapeB     []int       `json:"shape_b,omitempty"` // set when it differs from shape
	ComparedAs string      `json:"compared_as,omitempty"`
	Compared   bool        `json:"compared"`
	Elements   int         `json:"elements"`
	MaxAbs     float64     `json:"max_abs_err"`
	MaxULP     int64       `json:"max_ulp"`
	NMSE       float64     `json:"nmse"`
	Mismatch   int         `json:"over_tolerance"`
	Tolerance  float64     `json:"atol"`
	ULPTol     int64       `json:"ulp_tolerance"`
	Notes      []string    `json:"notes,omitempty"`
	Worst      []worstElem `json:"worst,omitempty"`
	Problem    string      `json:"problem,omitempty"`
}

// worstElem is one element over tolerance, located.
type worstElem struct {
	Index  []int     `json:"index"`
	Axes   []string  `json:"axes"`
	A      elemValue `json:"a"`
	B      elemValue `json:"b"`
	AbsErr jsonFloat `json:"abs_err"`
	ULP    int64     `json:"ulp"`
	// ByULP: the element with the most ULPs, listed after the worst by absolute error, which
	// did not include it.
	ByULP bool `json:"by_ulp,omitempty"`
}

// elemValue is a located element's value: an integer tensor's exactly (float64 would merge
// I64 values past 2^53), a float tensor's as a jsonFloat.
type elemValue struct {
	f     float64
	i     int64
	isInt bool
}

func (v elemValue) MarshalJSON() ([]byte, error) {
	if v.isInt {
		return strconv.AppendInt(nil, v.i, 10), nil
	}
	return jsonFloat(v.f).MarshalJSON()
}

// format prints the value as a tensor of dtype d holds it (see formatValue).
func (v elemValue) format(d tensor.DType) string {
	if v.isInt {
		return strconv.FormatInt(v.i, 10)
	}
	return formatValue(d, v.f)
}

// jsonFloat is a float64 that JSON can hold when it is NaN or infinite: those are written as
// the strings "NaN", "+Inf" and "-Inf".
type jsonFloat float64

func (f jsonFloat) MarshalJSON() ([]byte, error) {
	v := float64(f)
	switch {
	case math.IsNaN(v):
		return []byte(`"NaN"`), nil
	case math.IsInf(v, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(v, -1):
		return []byte(`"-Inf"`), nil
	}
	return strconv.AppendFloat(nil, v, 'g', -1, 64), nil
}

func (r diffRow) MarshalJSON() ([]byte, error) {
	if !r.Compared {
		return json.Marshal(struct {
			Name      string `json:"name"`
			Candidate string `json:"candidate,omitempty"`
			DType     string `json:"dtype,omitempty"`
			Shape     []int  `json:"shape,omitempty"`
			DTypeB    string `json:"dtype_b,omitempty"`
			ShapeB    []int  `json:"shape_b,omitempty"`
			Compared  bool   `json:"compared"`
			Problem   string `json:"problem"`
		}{r.Name, r.Candidate, r.DType, r.Shape, r.DTypeB, r.ShapeB, false, r.Problem})
	}
	type plain diffRow // without this method
	p := plain(r)
	// JSON has no infinity: an infinite error is reported as the largest float64.
	p.MaxAbs, p.NMSE = min(p.MaxAbs, math.MaxFloat64), min(p.NMSE, math.MaxFloat64)
	if p.Shape == nil {
		p.Shape = []int{}
	}
	return json.Marshal(p)
}

// refused makes the row of a pair that is not compared.
func refused(name string, problem string) diffRow { return diffRow{Name: name, Problem: problem} }

// axisContext says what the dimensions of a file's tensors are: the op that made them (a
// golden bundle's __metadata__ "op", canonical) and its layout ("layout"), when known.
type axisContext struct {
	op, layout string
	headSize   int    // the op's --head-size, which splits a [T,H·D] query or key into heads
	cacheMode  string // kv_rmsnorm_rope_cache's --cache-mode, upper case; "" is its default, Norm
}

func axisContextOf(md map[string]string) axisContext {
	c := axisContext{layout: strings.ToUpper(md["layout"])}
	if op, ok := ops.Canonical(md["op"]); ok {
		c.op = op
	}
	// rotary golden records the op's flags as apply_args, a JSON list of strings; a "layout"
	// of the metadata's own wins over theirs.
	var args []string
	if json.Unmarshal([]byte(md["apply_args"]), &args) == nil {
		fromMetadata := c.layout != ""
		for i := 0; i+1 < len(args); i++ {
			switch strings.TrimLeft(args[i], "-") {
			case "layout":
				if !fromMetadata {
					c.layout = strings.ToUpper(args[i+1])
				}
			case "head-size":
				c.headSize, _ = strconv.Atoi(args[i+1])
			case "cache-mode":
				c.cacheMode = strings.ToUpper(args[i+1])
			}
		}
	}
	return c
}

// locate is the shape in which an element of tensor name is located, and its axes: a [T,H·D]
// query or key is split into heads when the op's head size is known.
func (c axisContext) locate(name string, shape []int) ([]int, []string) {
	base := strings.TrimPrefix(name, "out.")
	if (base == "query" || base == "key") && len(shape) == 2 && c.headSize > 0 && shape[1]%c.headSize == 0 {
		shape = []int{shape[0], shape[1] / c.headSize, c.headSize}
	}
	return shape, c.axes(name, shape)
}

// axes names the dimensions of tensor name (an "out." prefix ignored) of the given shape.
// query and key are [T,H,D] or [T,H·D] in every op of this tool that has them; the other
// names follow their op's layout; anything else is dim0, dim1, ...
func (c axisContext) axes(name string, shape []int) []string {
	name = strings.TrimPrefix(name, "out.")
	rank := len(shape)
	var named []string
	switch {
	case name == "query" || name == "key":
		switch rank {
		case 3:
			named = []string{"token", "head", "dim"}
		case 2:
			named = []string{"token", "head·dim"}
		}
	case c.op == "apply_rotary_emb" || c.op == "apply_rotary_emb_backward":
		switch name {
		case "out", "x", "dx", "dy", "cos", "sin", "dcos", "dsin": // cos/sin: the layout with one head
			named = layoutAxes(c.layout, rank)
		}
	case c.op == "apply_rotary_emb_thd" || c.op == "apply_rotary_emb_thd_backward":
		if (name == "out" || name == "x" || name == "dx" || name == "dy") && rank == 3 {
			named = []string{"token", "head", "dim"}
		}
	case c.op == "interleave_rope":
		if (name == "out" || name == "x") && rank == 4 {
			named = []string{"batch", "head", "seq", "dim"}
		}
	case c.op == "kv_rmsnorm_rope_cache" && rank == 4:
		// torch_npu npu_kv_rmsnorm_rope_cache: the caches are [batch, 1, cache_length, D] in
		// Norm mode and [block_num, block_size, 1, D] in the paged ones; the FRACTAL_NZ modes
		// keep them in another memory order, which no such names describe.
		switch {
		case name == "k_rope" || name == "c_kv":
			named = []string{"batch", "head", "seq", "dim"}
		case name != "k_cache" && name != "ckv_cache":
		case c.cacheMode == "" || c.cacheMode == "NORM":
			named = []string{"batch", "head", "slot", "dim"}
		case c.cacheMode == "PA" || c.cacheMode == "PA_BNSD" || c.cacheMode == "PA_BLK_BNSD" || c.cacheMode == "PA_BLK_BSND":
			named = []string{"block", "slot", "head", "dim"}
		}
	}
	if named != nil {
		return named
	}
	out := make([]string, rank)
	for i := range out {
		out[i] = "dim" + strconv.Itoa(i)
	}
	return out
}

// layoutAxes names the dimensions of apply_rotary_emb's x in a layout (torch_npu
// npu_rotary_mul's BSND, BNSD, SBND; TND for packed tokens).
func layoutAxes(layout string, rank int) []string {
	named := map[string][]string{
		"BSND": {"batch", "seq", "head", "dim"},
		"BNSD": {"batch", "head", "seq", "dim"},
		"SBND": {"seq", "batch", "head", "dim"},
		"THD":  {"token", "head", "dim"},
		"TND":  {"token", "head", "dim"},
	}[layout]
	if len(named) != rank {
		return nil
	}
	return named
}

// commonDType is the dtype two tensors are compared in: their own when alike; the narrower of
// two float types (the wider is rounded to it, as a kernel's output would be); BF16 for F16
// against BF16 (fewer significant bits); I64 for two integer types (exact). A float against
// an integer type is not compared. The note calls a's and b's sides aName and bName.
func commonDType(a, b tensor.DType, aName, bName string) (tensor.DType, string, bool) {
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

// roundTo rounds x to the nearest value of the float type d, ties to even; x is already
// exact for F64 and for integer types.
func roundTo(d tensor.DType, x float64) float64 {
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

// compareTensors measures b against a, the reference, under opts, naming the dimensions of
// the elements it locates with ax.
func compareTensors(name string, a, b tensor.Tensor, opts compareOptions, ax axisContext) diffRow {
	r := diffRow{Name: name, DType: a.DType.String(), Shape: a.Shape, Elements: a.Len()}
	if a.DType != b.DType {
		r.DTypeB = b.DType.String()
	}
	if !slices.Equal(a.Shape, b.Shape) {
		r.ShapeB = b.Shape
	}
	sides := opts.sides
	if sides[0] == "" {
		sides = [2]string{"A", "B"}
	}
	cd, note, ok := commonDType(a.DType, b.DType, sides[0], sides[1])
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
	r.ULPTol = opts.maxULP
	isFloat := cd.IsFloat() || cd == tensor.F64
	n := r.Elements
	atol := opts.atol
	if atol < 0 {
		scale := 0.0
		if isFloat {
			for i := range n {
				if v := math.Abs(roundTo(cd, a.Float64At(i))); !math.IsInf(v, 0) && !math.IsNaN(v) {
					scale = max(scale, v)
				}
			}
		}
		atol = scale * 0x1p-20
	}
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
			x, y = roundTo(cd, a.Float64At(i)), roundTo(cd, b.Float64At(i))
			switch {
			case math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0):
				if !(math.IsNaN(x) && math.IsNaN(y)) && x != y {
					ulp, diff = math.MaxInt64, math.Inf(1)
					over, unbounded = true, true
				}
			default:
				diff = math.Abs(x - y)
				sq.add(diff)
				ref.add(x)
				ulp = tensor.ULPDiff(cd, x, y)
				over = ulp > opts.maxULP && diff > atol
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
			c := worstCand{i: i, a: elemValue{f: x}, b: elemValue{f: y}, diff: diff, ulp: ulp}
			if !isFloat {
				c.a, c.b = elemValue{i: a.Int64At(i), isInt: true}, elemValue{i: b.Int64At(i), isInt: true}
			}
			worst.offer(opts.show, c)
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
			r.Worst = append(r.Worst, worstElem{Index: unravel(c.i, coords), Axes: names, A: c.a, B: c.b, AbsErr: jsonFloat(c.diff), ULP: c.ulp})
			shown = shown || c.i == worstULP.i
		}
		if isFloat && opts.show > 0 && haveULP && !shown {
			c := worstULP
			r.Worst = append(r.Worst, worstElem{Index: unravel(c.i, coords), Axes: names, A: c.a, B: c.b, AbsErr: jsonFloat(c.diff), ULP: c.ulp, ByULP: true})
		}
	}
	return r
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
	a, b elemValue
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

// formatValue prints a value of dtype d exactly and briefly.
func formatValue(d tensor.DType, v float64) string {
	switch d {
	case tensor.F32, tensor.F16, tensor.BF16:
		return strconv.FormatFloat(v, 'g', -1, 32)
	case tensor.F64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// compareHeader and printRow are the text table of diff and verify, its name column width
// wide (labelWidth of the labels it will print). A refused pair prints its name and why,
// without figures it does not have.
func compareHeader(w io.Writer, width int) {
	fmt.Fprintf(w, "%-*s %-5s %10s %12s %8s %12s %s\n", width, "tensor", "dtype", "elements", "max_abs", "max_ulp", "nmse", "status")
}

// rowLabel names a row: the tensor, and verify's candidate name for it when that differs.
func rowLabel(name, candidate string) string {
	if candidate != "" && candidate != name {
		return name + " (" + candidate + ")"
	}
	return name
}

// labelWidth is the name column's width for labels: the longest, and at least 24 so that
// short names keep the usual table.
func labelWidth(labels []string) int {
	w := 24
	for _, l := range labels {
		w = max(w, utf8.RuneCountInString(l))
	}
	return w
}

func printRow(w io.Writer, width int, r diffRow, aName, bName string) {
	label := rowLabel(r.Name, r.Candidate)
	if !r.Compared {
		fmt.Fprintf(w, "%-*s not compared: %s\n", width, label, r.Problem)
		return
	}
	status := "ok"
	if r.Problem != "" {
		status = r.Problem
	}
	dt := r.DType
	if r.ComparedAs != "" {
		dt = r.ComparedAs
	}
	cd, _ := tensor.ParseDType(dt)
	// MaxInt64 stands for a float pair no ULP count spans (a NaN or infinity on one side); an
	// integer pair's is its difference, however large.
	isFloat := cd.IsFloat() || cd == tensor.F64
	ulp := strconv.FormatInt(r.MaxULP, 10)
	if r.MaxULP == math.MaxInt64 && isFloat {
		ulp = "inf"
	}
	fmt.Fprintf(w, "%-*s %-5s %10d %12.4g %8s %12.4g %s\n", width, label, dt, r.Elements, r.MaxAbs, ulp, r.NMSE, status)
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	for _, e := range r.Worst {
		var at []string
		for k, c := range e.Index {
			at = append(at, fmt.Sprintf("%s %d", e.Axes[k], c))
		}
		where := strings.Join(at, ", ")
		if where == "" {
			where = "scalar"
		}
		eulp := strconv.FormatInt(e.ULP, 10)
		if e.ULP == math.MaxInt64 && isFloat {
			eulp = "inf"
		}
		lead := "at"
		if e.ByULP {
			lead = "most ulp at"
		}
		fmt.Fprintf(w, "  %s %s: %s %s, %s %s (abs err %.4g, %s ulp)\n", lead, where, aName, e.A.format(cd), bName, e.B.format(cd), float64(e.AbsErr), eulp)
	}
	if r.Mismatch > len(r.Worst) && len(r.Worst) > 0 {
		fmt.Fprintf(w, "  … and %d more over tolerance (--show N lists more)\n", r.Mismatch-len(r.Worst))
	}
}

// readSides reads the two sides diff and verify compare: the first input, and the second input
// or, without one, an empty set; the --raw tensors join the second side.
func readSides(files []string, raws rawFlags) (a, b *inputSet, err error) {
	if a, err = readInputSet(files[0]); err != nil {
		return nil, nil, err
	}
	b = newInputSet()
	if len(files) == 2 {
		if b, err = readInputSet(files[1]); err != nil {
			return nil, nil, err
		}
	}
	if err := b.addRaw(raws); err != nil {
		return nil, nil, err
	}
	return a, b, nil
}
