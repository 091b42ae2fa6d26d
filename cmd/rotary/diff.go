package main

import (
	"encoding/json"
	"fmt"
	"io"

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
	rows, err := golden.Diff(a, b, opts.opts)
	if err != nil {
		return usageError{err}
	}
	problems := 0
	enc := json.NewEncoder(stdout)
	names := make([]string, len(rows))
	for i, r := range rows {
		names[i] = r.Name
	}
	width := labelWidth(names)
	if !*asJSON {
		compareHeader(stdout, width)
	}
	for _, r := range rows {
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
