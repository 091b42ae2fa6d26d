package main

import (
	"encoding/json"
	"fmt"
	"io"
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
	names := s.Order
	if *only != "" {
		if _, ok := s.Tensors[*only]; !ok {
			return usagef("--tensor %q: not in %s (it holds %s)", *only, files[0], listNames(s.Order, 8))
		}
		names = []string{*only}
	}
	rows := make([]compare.Summary, 0, len(names))
	for _, n := range names {
		r, err := compare.Summarize(n, s.Tensors[n], *values)
		if err != nil {
			return usageError{err}
		}
		rows = append(rows, r)
	}
	if *asJSON {
		md := s.Metadata
		if md == nil {
			md = map[string]string{}
		}
		return json.NewEncoder(stdout).Encode(struct {
			File     string            `json:"file"`
			Metadata map[string]string `json:"metadata"`
			Tensors  []compare.Summary `json:"tensors"`
		}{files[0], md, rows})
	}
	fmt.Fprintf(stdout, "%s: %d tensors\n", files[0], len(s.Order))
	if len(s.Metadata) > 0 {
		keys := make([]string, 0, len(s.Metadata))
		for k := range s.Metadata {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Fprintln(stdout, "metadata:")
		for _, k := range keys {
			fmt.Fprintf(stdout, "  %s: %s\n", k, s.Metadata[k])
		}
	}
	// The columns are as wide as what they hold (a long name or shape, an I64 extreme), and
	// at least the usual widths.
	cells := make([][6]string, len(rows))
	w := [6]int{24, 5, 16, 12, 12, 12}
	for i, r := range rows {
		cells[i] = [6]string{r.Name, r.DType.String(), tensor.ShapeString(r.Shape), tableCell(r.DType, r.Min), tableCell(r.DType, r.Max), meanCell(r.Mean)}
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
				parts[i] = v.Format(r.DType)
			}
			fmt.Fprintf(stdout, "  values: %s\n", strings.Join(parts, " "))
		}
	}
	return nil
}

// tableCell prints a min or max for the table: floats of every dtype to 6 significant digits,
// as the mean, so that an F64's 17 do not break the columns (--json and --values keep them
// all); integers exactly; "-" when there is none.
func tableCell(d tensor.DType, v *compare.Value) string {
	switch {
	case v == nil:
		return "-"
	case v.IsInt():
		return v.Format(d)
	}
	return strconv.FormatFloat(v.Float64(), 'g', 6, 64)
}

// meanCell prints a mean for the table, to 6 significant digits; "-" when there is none.
func meanCell(m *compare.Float) string {
	if m == nil {
		return "-"
	}
	return strconv.FormatFloat(float64(*m), 'g', 6, 64)
}

// listNames is the first n names, with a count of the rest.
func listNames(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}
