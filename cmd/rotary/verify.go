package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/rotary-go/rotary/compare"
	"github.com/rotary-go/rotary/explain"
	"github.com/rotary-go/rotary/golden"
)

const verifyUsage = "GOLDEN CANDIDATE [--atol A] [--ulp U] [--show N] [--any-dtype] [--explain=false] [--raw NAME=DTYPE:SHAPE:FILE]... [--json]\n" +
	"  Compares each expected output out.X of the golden bundle with out.X of the candidate, or X\n" +
	"  when it has no out.X (a candidate holding both is a bundle, whose X is the input), and locates\n" +
	"  the worst elements by coordinate (token/head/dim where the bundle's op defines them). When\n" +
	"  elements fail, it names the porting mistakes that reproduce the candidate (--explain).\n" +
	"  Either may be a safetensors file, a directory of .npy files (one tensor per file, named by its\n" +
	"  stem) or a single .npy file; --raw tensors join the candidate (which may then be left out).\n" +
	"  " + npyBF16Note + ". Exit 0 when every output is within tolerance, 1 otherwise, 2 on bad input."

func runVerify(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("verify", verifyUsage, stderr)
	opts := compareFlags{opts: compare.Options{Sides: [2]string{"golden", "candidate"}}}
	opts.register(fs.FlagSet, "ulp")
	var raws rawFlags
	fs.Var(&raws, "raw", rawUsage)
	asJSON := fs.Bool("json", false, "print one JSON object per expected output")
	explainFlag := fs.Bool("explain", true, "when elements fail, recompute the golden's op under each known porting mistake and name those that reproduce the candidate (rotary_embedding goldens; --json adds them to the failing rows as explained_by)")
	anyDType := fs.Bool("any-dtype", false, "compare a candidate output in another dtype than the golden's after rounding it (default: a failure, since a kernel should write the golden's dtype)")
	files, err := parseWithFiles(fs, args)
	if err != nil {
		return err
	}
	if len(files) != 2 && !(len(files) == 1 && len(raws) > 0) {
		return usagef("want GOLDEN and CANDIDATE, or GOLDEN and --raw (got %d inputs)", len(files))
	}
	if err := opts.check(fs.FlagSet); err != nil {
		return err
	}
	bundle, cand, err := readSides(files, raws)
	if err != nil {
		return err
	}
	candName := "--raw"
	if len(files) == 2 {
		candName = files[1]
	}
	var outputs []string
	for n := range bundle.Tensors {
		if strings.HasPrefix(n, golden.OutPrefix) && len(n) > len(golden.OutPrefix) {
			outputs = append(outputs, n)
		}
	}
	if len(outputs) == 0 {
		return usagef("%s: no expected outputs (tensors named out.X): is it a golden bundle?", files[0])
	}
	sort.Strings(outputs)
	ax := compare.AxesOf(bundle.Metadata)
	labels := make([]string, len(outputs))
	for i, n := range outputs {
		labels[i] = n
		if _, name, ok := golden.CandidateOutput(cand.Tensors, strings.TrimPrefix(n, golden.OutPrefix)); ok {
			labels[i] = rowLabel(n, name)
		}
	}
	width := labelWidth(labels)
	if !*asJSON {
		if desc := bundleSummary(bundle.Metadata); desc != "" {
			fmt.Fprintf(stdout, "golden: %s\n", desc)
		}
		compareHeader(stdout, width)
	}
	failed := 0
	rows := make([]compare.Result, 0, len(outputs))
	for _, n := range outputs {
		x := strings.TrimPrefix(n, golden.OutPrefix)
		var r compare.Result
		switch tc, name, ok := golden.CandidateOutput(cand.Tensors, x); {
		case !ok:
			r = compare.Refused(n, fmt.Sprintf("missing from the candidate (want %s or %s in %s)", x, n, candName))
			r.DType, r.Shape = bundle.Tensors[n].DType.String(), bundle.Tensors[n].Shape
		case tc.DType != bundle.Tensors[n].DType && !*anyDType:
			want := bundle.Tensors[n].DType
			r = compare.Refused(n, fmt.Sprintf("dtype %v, but the golden's output is %v: a kernel writing the wrong dtype (--any-dtype compares after rounding)", tc.DType, want))
			r.DType, r.DTypeB, r.Shape, r.Candidate = want.String(), tc.DType.String(), bundle.Tensors[n].Shape, name
		default:
			r = compare.Tensors(n, bundle.Tensors[n], tc, opts.opts, ax)
			r.Candidate = name
		}
		if r.Problem != "" {
			failed++
		}
		rows = append(rows, r)
	}
	// Only elements over tolerance have a mistake to name: a candidate refused whole (missing,
	// of another dtype) is not explained.
	var rep explain.Report
	why := ""
	overTolerance := false
	for _, r := range rows {
		overTolerance = overTolerance || r.Compared && r.Mismatch > 0
	}
	if overTolerance && *explainFlag {
		rep, why = explainVerify(bundle, cand, opts.opts)
	}
	for _, r := range rows {
		if !*asJSON {
			printRow(stdout, width, r, "golden", "candidate")
			continue
		}
		row, err := json.Marshal(r)
		if err == nil && r.Compared && r.Mismatch > 0 && explain.ReadsOutput(bundle.Metadata["op"], r.Name) {
			row, err = withExplained(row, rep)
		}
		if err != nil {
			return err
		}
		if _, err := stdout.Write(append(bytes.TrimRight(row, "\n"), '\n')); err != nil {
			return err
		}
	}
	switch {
	case overTolerance && *explainFlag && !*asJSON:
		printExplained(stdout, rep, why, opts.opts)
	case why != "" && *asJSON: // the rows carry no explanation: say why beside them
		fmt.Fprintf(stderr, "rotary verify: %s\n", why)
	}
	if failed > 0 {
		fmt.Fprintf(stderr, "rotary verify: %d of %d outputs fail\n", failed, len(outputs))
		return errProblems
	}
	if !*asJSON {
		fmt.Fprintf(stdout, "all %d outputs within tolerance\n", len(outputs))
	}
	return nil
}

// bundleSummary is one line of a bundle's provenance from its metadata.
func bundleSummary(md map[string]string) string {
	var parts []string
	for _, k := range []string{"op", "model", "dtype", "layout", "layer", "seed", "backend", "rotary_version"} {
		if v, ok := md[k]; ok {
			parts = append(parts, k+" "+v)
		}
	}
	return strings.Join(parts, ", ")
}
