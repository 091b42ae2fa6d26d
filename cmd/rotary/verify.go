package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

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
	var opts compareFlags
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
	rows, err := golden.Verify(bundle, cand, golden.VerifyOptions{Compare: opts.opts, AnyDType: *anyDType, Candidate: candName})
	if err != nil {
		return usagef("%s: %v", files[0], err)
	}
	labels := make([]string, len(rows))
	failed := 0
	for i, r := range rows {
		labels[i] = rowLabel(r.Name, r.Candidate)
		if r.Problem != "" {
			failed++
		}
	}
	width := labelWidth(labels)
	if !*asJSON {
		if desc := bundleSummary(bundle.Metadata); desc != "" {
			fmt.Fprintf(stdout, "golden: %s\n", desc)
		}
		compareHeader(stdout, width)
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
		fmt.Fprintf(stderr, "rotary verify: %d of %d outputs fail\n", failed, len(rows))
		return errProblems
	}
	if !*asJSON {
		fmt.Fprintf(stdout, "all %d outputs within tolerance\n", len(rows))
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
