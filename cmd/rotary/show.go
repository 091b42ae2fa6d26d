package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rotary-go/rotary/compare"
	"github.com/rotary-go/rotary/tensor"
)

const showUsage = "FILE [--tensor NAME] [--values N] [--json]\n" +
	"  The tensors of FILE (a safetensors file, a directory of .npy files or a single .npy file):\n" +
	"  name, dtype, shape, min/max/mean of the finite values (6 significant digits; --json and --values\n" +
	"  give every digit), NaN and Inf counts, and the metadata; with --values, the first N values in\n" +
	"  row-major order. " + npyBF16Note + "."

// showRow is one tensor's summary; its JSON form is a contract for tools.
type showRow struct {
	Name     string `json:"name"`
	DType    string `json:"dtype"`
	Shape    []int  `json:"shape"`
	Elements int    `json:"elements"`
	Min      any    `json:"min"`  // null when there is no finite value
	Max      any    `json:"max"`  // null when there is no finite value
	Mean     any    `json:"mean"` // of the finite values; null when there is none
	NaN      int    `json:"nan"`
	Inf      int    `json:"inf"`
	Values   []any  `json:"values,omitempty"`
}

func runShow(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("show", showUsage, stderr)
	only := fs.String("tensor", "", "show only tensor `NAME`")
	values := fs.Int("values", 0, "print the first `N` values of each tensor")
	asJSON := fs.Bool("json", false, "print one JSON object: file, metadata, tensors")
	files, err := parseWithFiles(fs, args)
	if err != nil {
		return err
	}
	if len(files) != 1 {
		return usagef("want one FILE (got %d)", len(files))
	}
	if *values < 0 {
		return usagef("--values %d: want a count ≥ 0", *values)
	}
	s, err := readInputSet(files[0])
	if err != nil {
		return err
	}
	names := s.order
	if *only != "" {
		if _, ok := s.tensors[*only]; !ok {
			return usagef("--tensor %q: not in %s (it holds %s)", *only, files[0], listNames(s.order, 8))
		}
		names = []string{*only}
	}
	rows := make([]showRow, 0, len(names))
	for _, n := range names {
		rows = append(rows, summarize(n, s.tensors[n], *values))
	}
	if *asJSON {
		md := s.metadata
		if md == nil {
			md = map[string]string{}
		}
		return json.NewEncoder(stdout).Encode(struct {
			File     string            `json:"file"`
			Metadata map[string]string `json:"metadata"`
			Tensors  []showRow         `json:"tensors"`
		}{files[0], md, rows})
	}
	fmt.Fprintf(stdout, "%s: %d tensors\n", files[0], len(s.order))
	if len(s.metadata) > 0 {
		keys := make([]string, 0, len(s.metadata))
		for k := range s.metadata {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Fprintln(stdout, "metadata:")
		for _, k := range keys {
			fmt.Fprintf(stdout, "  %s: %s\n", k, s.metadata[k])
		}
	}
	// The columns are as wide as what they hold (a long name or shape, an I64 extreme), and
	// at least the usual widths.
	cells := make([][6]string, len(rows))
	w := [6]int{24, 5, 16, 12, 12, 12}
	for i, r := range rows {
		cells[i] = [6]string{r.Name, r.DType, tensor.ShapeString(r.Shape), tableCell(r.Min), tableCell(r.Max), tableCell(r.Mean)}
		for k, c := range cells[i] {
			w[k] = max(w[k], utf8.RuneCountInString(c))
		}
	}
	fmt.Fprintf(stdout, "%-*s %-*s %-*s %*s %*s %*s %6s %6s\n", w[0], "tensor", w[1], "dtype", w[2], "shape", w[3], "min", w[4], "max", w[5], "mean", "nan", "inf")
	for i, r := range rows {
		c := cells[i]
		fmt.Fprintf(stdout, "%-*s %-*s %-*s %*s %*s %*s %6d %6d\n", w[0], c[0], w[1], c[1], w[2], c[2], w[3], c[3], w[4], c[4], w[5], c[5], r.NaN, r.Inf)
		if len(r.Values) > 0 {
			parts := make([]string, len(r.Values))
			for i, v := range r.Values {
				parts[i] = cell(v)
			}
			fmt.Fprintf(stdout, "  values: %s\n", strings.Join(parts, " "))
		}
	}
	return nil
}

// summarize computes a tensor's figures. Integers are exact (min and max as integers);
// floats count NaN and Inf apart and summarize the finite values.
func summarize(name string, t tensor.Tensor, values int) showRow {
	r := showRow{Name: name, DType: t.DType.String(), Shape: t.Shape, Elements: t.Len()}
	if r.Shape == nil {
		r.Shape = []int{}
	}
	isFloat := t.DType.IsFloat() || t.DType == tensor.F64
	finite := 0
	var sum float64
	var lo, hi float64
	var ilo, ihi int64
	for i := range r.Elements {
		if !isFloat {
			v := t.Int64At(i)
			if finite == 0 || v < ilo {
				ilo = v
			}
			if finite == 0 || v > ihi {
				ihi = v
			}
			finite++
			sum += float64(v)
			continue
		}
		v := t.Float64At(i)
		switch {
		case math.IsNaN(v):
			r.NaN++
			continue
		case math.IsInf(v, 0):
			r.Inf++
			continue
		}
		if finite == 0 || v < lo {
			lo = v
		}
		if finite == 0 || v > hi {
			hi = v
		}
		finite++
		sum += v
	}
	if finite > 0 {
		if isFloat {
			r.Min, r.Max = valueOf(t.DType, lo), valueOf(t.DType, hi)
		} else {
			r.Min, r.Max = ilo, ihi
		}
		mean := sum / float64(finite)
		if math.IsInf(mean, 0) {
			// F64 values near the largest overflow their sum; their mean does not.
			mean = 0
			for i := range r.Elements {
				if v := t.Float64At(i); !math.IsNaN(v) && !math.IsInf(v, 0) {
					mean += v / float64(finite)
				}
			}
		}
		r.Mean = compare.Float(mean)
	}
	for i := range min(values, r.Elements) {
		if isFloat {
			r.Values = append(r.Values, valueOf(t.DType, t.Float64At(i)))
		} else {
			r.Values = append(r.Values, t.Int64At(i))
		}
	}
	return r
}

// shownFloat is a float value of a dtype, printed as briefly as the dtype allows and exactly.
type shownFloat struct {
	d tensor.DType
	v float64
}

func valueOf(d tensor.DType, v float64) shownFloat { return shownFloat{d, v} }

func (f shownFloat) String() string {
	switch {
	case math.IsNaN(f.v):
		return "NaN"
	case math.IsInf(f.v, 1):
		return "+Inf"
	case math.IsInf(f.v, -1):
		return "-Inf"
	}
	return compare.FormatValue(f.d, f.v)
}

func (f shownFloat) MarshalJSON() ([]byte, error) {
	if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
		return compare.Float(f.v).MarshalJSON()
	}
	return []byte(f.String()), nil
}

// tableCell prints a min, max or mean for the table: floats of every dtype to 6 significant
// digits, as the mean, so that an F64's 17 do not break the columns (--json and --values keep
// them all); integers exactly.
func tableCell(v any) string {
	if f, ok := v.(shownFloat); ok && !math.IsNaN(f.v) && !math.IsInf(f.v, 0) {
		return strconv.FormatFloat(f.v, 'g', 6, 64)
	}
	return cell(v)
}

// cell prints a value exactly, or a figure of the text table (a mean to 6 digits).
func cell(v any) string {
	switch x := v.(type) {
	case nil:
		return "-"
	case shownFloat:
		return x.String()
	case compare.Float:
		return strconv.FormatFloat(float64(x), 'g', 6, 64)
	case int64:
		return strconv.FormatInt(x, 10)
	}
	return fmt.Sprint(v)
}

// listNames is the first n names, with a count of the rest.
func listNames(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}
