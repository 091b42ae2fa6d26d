package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/rotary-go/rotary/compare"
	"github.com/rotary-go/rotary/golden"
)

const diffUsage = "A B [--max-ulp N] [--atol X] [--show N] [--raw NAME=DTYPE:SHAPE:FILE]... [--json]\n" +
	"  A and B are safetensors files, directories of .npy files (one tensor per file, named by its stem)\n" +
	"  or single .npy files; --raw tensors join B (which may then be left out). " + npyBF16Note + ".\n" +
	"  Tensors of equal element count in shapes that merge adjacent dimensions ([T,H,D] and [T,H·D])\n" +
	"  are compared element by element; different float dtypes are compared after rounding the wider\n" +
	"  to the narrower; each note says so."

func runDiff(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("diff", diffUsage, stderr)
	var opts compareFlags
	opts.register(fs.FlagSet, "max-ulp")
	var raws rawFlags
	fs.Var(&raws, "raw", rawUsage)
	asJSON := fs.Bool("json", false, "print one JSON object per tensor")
	files, err := parseWithFiles(fs, args)
	if err != nil {
		return err
	}
	if len(files) != 2 && !(len(files) == 1 && len(raws) > 0) {
		return usagef("want two inputs, A and B, or A and --raw (got %d inputs)", len(files))
	}
	if err := opts.check(fs.FlagSet); err != nil {
		return err
	}
	a, b, err := readSides(files, raws)
	if err != nil {
		return err
	}
	// A golden bundle beside a candidate would pair the bundle's inputs with the candidate's
	// outputs of the same names: thousands of "failures" that say nothing.
	if bundleA, bundleB := hasOutputs(a), hasOutputs(b); bundleA != bundleB {
		golden, other := "A", "B"
		if bundleB {
			golden, other = "B", "A"
		}
		return usagef("%s is a golden bundle (expected outputs out.X) and %s is not: diff would compare the bundle's inputs with the other's outputs; check a candidate with rotary verify GOLDEN CANDIDATE", golden, other)
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
	problems := 0
	enc := json.NewEncoder(stdout)
	width := labelWidth(names)
	if !*asJSON {
		compareHeader(stdout, width)
	}
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
			r = compare.Tensors(n, ta, tb, opts.opts, ax)
		}
		if r.Problem != "" {
			problems++
		}
		if *asJSON {
			if err := enc.Encode(r); err != nil {
				return err
			}
			continue
		}
		printRow(stdout, width, r, "A", "B")
	}
	if problems > 0 {
		fmt.Fprintf(stderr, "rotary diff: %d of %d tensors differ beyond tolerance or were not compared\n", problems, len(names))
		return errProblems
	}
	return nil
}

// parseWithFiles parses flags placed before, between and after the positional arguments,
// which it returns.
func parseWithFiles(fs *flagSet, args []string) ([]string, error) {
	var files []string
	for len(args) > 0 {
		if err := parseFlags(fs, args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) > 0 {
			files = append(files, args[0])
			args = args[1:]
		}
	}
	return files, nil
}

// hasOutputs reports whether s holds a golden bundle's expected outputs (tensors out.X).
func hasOutputs(s *golden.Set) bool {
	for n := range s.Tensors {
		if strings.HasPrefix(n, golden.OutPrefix) && len(n) > len(golden.OutPrefix) {
			return true
		}
	}
	return false
}
