package main

// The tolerance flags and the text table of diff and verify; package compare compares.

import (
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rotary-go/rotary/compare"
	"github.com/rotary-go/rotary/golden"
	"github.com/rotary-go/rotary/tensor"
)

// compareFlags are the flags that set a comparison's compare.Options.
type compareFlags struct {
	opts     compare.Options
	atolFlag optFloat
}

// registerTolerances adds --atol, the ULP flag (diff's --max-ulp, verify's --ulp) and --show.
func (o *compareFlags) register(fs *flag.FlagSet, ulpFlag string) {
	fs.Int64Var(&o.opts.MaxULP, ulpFlag, 1, "elements within `N` units in the last place (of the compared dtype) pass; integers must be equal (an integer's ULP is the difference)")
	// diff names it --max-ulp and verify --ulp; each takes the other's spelling too.
	alias := map[string]string{"ulp": "max-ulp", "max-ulp": "ulp"}[ulpFlag]
	fs.Int64Var(&o.opts.MaxULP, alias, 1, "the same as --"+ulpFlag)
	fs.Var(&o.atolFlag, "atol", "elements within absolute error `X` pass (default: 2^-20 × the largest |reference| of the tensor)")
	fs.IntVar(&o.opts.Show, "show", 5, "locate the `N` worst elements of each tensor over tolerance")
}

// check refuses tolerances that would pass or fail everything silently: a NaN tolerance
// makes every comparison false, an infinite or negative one passes or fails all. It sets atol
// from --atol, or to -1 when not given.
func (o *compareFlags) check(fs *flag.FlagSet) error {
	o.opts.ATol = -1
	if o.atolFlag.set {
		o.opts.ATol = o.atolFlag.v
	}
	var bad error
	fs.Visit(func(f *flag.Flag) {
		switch {
		case f.Name == "atol" && (math.IsNaN(o.opts.ATol) || math.IsInf(o.opts.ATol, 0) || o.opts.ATol < 0):
			bad = usagef("--atol %s: want a finite tolerance ≥ 0", f.Value)
		case (f.Name == "max-ulp" || f.Name == "ulp") && o.opts.MaxULP < 0:
			bad = usagef("--%s %s: want a count ≥ 0", f.Name, f.Value)
		case f.Name == "show" && (o.opts.Show < 0 || o.opts.Show > 1<<16):
			bad = usagef("--show %s: want a count from 0 to 65536", f.Value)
		}
	})
	return bad
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

func printRow(w io.Writer, width int, r compare.Result, aName, bName string) {
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
		fmt.Fprintf(w, "  %s %s: %s %s, %s %s (abs err %.4g, %s ulp)\n", lead, where, aName, e.A.Format(cd), bName, e.B.Format(cd), float64(e.AbsErr), eulp)
	}
	if r.Mismatch > len(r.Worst) && len(r.Worst) > 0 {
		fmt.Fprintf(w, "  … and %d more over tolerance (--show N lists more)\n", r.Mismatch-len(r.Worst))
	}
}

// readSides reads the two sides diff and verify compare: the first input, and the second input
// or, without one, an empty set; the --raw tensors join the second side.
func readSides(files []string, raws rawFlags) (a, b *golden.Set, err error) {
	if a, err = readInputSet(files[0]); err != nil {
		return nil, nil, err
	}
	b = &golden.Set{}
	if len(files) == 2 {
		if b, err = readInputSet(files[1]); err != nil {
			return nil, nil, err
		}
	}
	if err := addRaw(b, raws); err != nil {
		return nil, nil, err
	}
	return a, b, nil
}
