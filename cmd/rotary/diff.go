package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"

	"github.com/rotary-go/rotary/tensor"
)

const diffUsage = "A.safetensors B.safetensors [--max-ulp N] [--atol X] [--json]"

// diffRow is one tensor's comparison; its JSON form is a contract for tools.
type diffRow struct {
	Name      string  `json:"name"`
	DType     string  `json:"dtype"`
	Elements  int     `json:"elements"`
	MaxAbs    float64 `json:"max_abs_err"`
	MaxULP    int64   `json:"max_ulp"`
	NMSE      float64 `json:"nmse"`
	Mismatch  int     `json:"over_tolerance"`
	Tolerance float64 `json:"atol"`
	Problem   string  `json:"problem,omitempty"`
}

func runDiff(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("diff", diffUsage, stderr)
	maxULP := fs.Int64("max-ulp", 1, "elements within `N` units in the last place (of the tensor's dtype) pass")
	atol := fs.Float64("atol", -1, "elements within absolute error `X` pass (default: 2^-20 × the largest |A| of the tensor)")
	asJSON := fs.Bool("json", false, "print one JSON object per tensor")
	var files []string
	for len(args) > 0 {
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		args = fs.Args()
		if len(args) > 0 {
			files = append(files, args[0])
			args = args[1:]
		}
	}
	if len(files) != 2 {
		return usagef("want two files, A and B (got %d)", len(files))
	}
	// A NaN tolerance makes every comparison false, so every element would pass; an infinite
	// or negative one passes or fails everything. The default -1 only means "not given".
	var bad error
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "atol":
			if math.IsNaN(*atol) || math.IsInf(*atol, 0) || *atol < 0 {
				bad = usagef("--atol %s: want a finite tolerance ≥ 0", f.Value)
			}
		case "max-ulp":
			if *maxULP < 0 {
				bad = usagef("--max-ulp %s: want a count ≥ 0", f.Value)
			}
		}
	})
	if bad != nil {
		return bad
	}
	a, err := readInputs(files[0])
	if err != nil {
		return err
	}
	b, err := readInputs(files[1])
	if err != nil {
		return err
	}
	names := make([]string, 0, len(a)+len(b))
	for n := range a {
		names = append(names, n)
	}
	for n := range b {
		if _, ok := a[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	problems := 0
	enc := json.NewEncoder(stdout)
	if !*asJSON {
		fmt.Fprintf(stdout, "%-24s %-5s %10s %12s %8s %12s %s\n", "tensor", "dtype", "elements", "max_abs", "max_ulp", "nmse", "status")
	}
	for _, n := range names {
		r := compare(n, a, b, *maxULP, *atol)
		if r.Problem != "" {
			problems++
		}
		if *asJSON {
			// JSON has no infinity: report an infinite error as the largest float64.
			r.MaxAbs, r.NMSE = min(r.MaxAbs, math.MaxFloat64), min(r.NMSE, math.MaxFloat64)
			if err := enc.Encode(r); err != nil {
				return err
			}
			continue
		}
		status := "ok"
		if r.Problem != "" {
			status = r.Problem
		}
		fmt.Fprintf(stdout, "%-24s %-5s %10d %12.4g %8d %12.4g %s\n", r.Name, r.DType, r.Elements, r.MaxAbs, r.MaxULP, r.NMSE, status)
	}
	if problems > 0 {
		fmt.Fprintf(stderr, "rotary diff: %d of %d tensors differ beyond tolerance\n", problems, len(names))
		return errProblems
	}
	return nil
}

// compare measures tensor name of b against a (the reference).
func compare(name string, a, b map[string]tensor.Tensor, maxULP int64, atol float64) diffRow {
	r := diffRow{Name: name}
	ta, okA := a[name]
	tb, okB := b[name]
	switch {
	case !okA:
		r.Problem = "only in B"
		return r
	case !okB:
		r.Problem = "only in A"
		return r
	}
	r.DType, r.Elements = ta.DType.String(), ta.Len()
	if ta.DType != tb.DType {
		r.Problem = fmt.Sprintf("dtype %v vs %v", ta.DType, tb.DType)
		return r
	}
	if !slices.Equal(ta.Shape, tb.Shape) {
		r.Problem = fmt.Sprintf("shape %s vs %s", tensor.ShapeString(ta.Shape), tensor.ShapeString(tb.Shape))
		return r
	}
	scale := 0.0
	for i := range r.Elements {
		if v := math.Abs(ta.Float64At(i)); !math.IsInf(v, 0) && !math.IsNaN(v) {
			scale = max(scale, v)
		}
	}
	if atol < 0 {
		atol = scale * 0x1p-20
	}
	r.Tolerance = atol
	var sq, ref float64
	for i := range r.Elements {
		x, y := ta.Float64At(i), tb.Float64At(i)
		var ulp int64
		var diff float64
		switch {
		case math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0):
			if !(math.IsNaN(x) && math.IsNaN(y)) && x != y {
				ulp, diff = math.MaxInt64, math.Inf(1)
			}
		default:
			diff = math.Abs(x - y)
			sq += diff * diff
			ref += x * x
			if ta.DType.IsFloat() || ta.DType == tensor.F64 {
				ulp = tensor.ULPDiff(ta.DType, x, y)
			} else if diff != 0 {
				ulp = math.MaxInt64
			}
		}
		r.MaxAbs = max(r.MaxAbs, diff)
		r.MaxULP = max(r.MaxULP, ulp)
		exact := !ta.DType.IsFloat() && ta.DType != tensor.F64
		if (exact && diff != 0) || (!exact && ulp > maxULP && diff > atol) {
			r.Mismatch++
		}
	}
	switch {
	case ref > 0:
		r.NMSE = sq / ref
	case sq > 0:
		r.NMSE = math.Inf(1)
	}
	if r.Mismatch > 0 {
		r.Problem = fmt.Sprintf("%d elements over tolerance", r.Mismatch)
	}
	return r
}
