package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/rotary-go/rotary/compare"
	"github.com/rotary-go/rotary/explain"
	"github.com/rotary-go/rotary/golden"
)

// explainVerify runs explain.ExplainGolden on a failed golden and candidate. It returns the
// report, or why there is none.
func explainVerify(bundle, cand *golden.Set, opts compare.Options) (explain.Report, string) {
	rep, err := explain.ExplainGolden(explain.GoldenCase{Golden: bundle.Tensors, Metadata: bundle.Metadata, Candidate: cand.Tensors}, opts)
	if err != nil {
		return explain.Report{}, err.Error()
	}
	return rep, ""
}

// printExplained prints the report under verify's table.
func printExplained(w io.Writer, rep explain.Report, why string, opts compare.Options) {
	if why != "" {
		fmt.Fprintln(w, why)
		return
	}
	if rep.Failing == 0 {
		fmt.Fprintln(w, "explain: the outputs it reads pass; the failing ones are not among them (of a backward pass it reads dx)")
		return
	}
	if len(rep.Findings) == 0 {
		fmt.Fprintf(w, "explain: no known porting mistake reproduces the candidate (%d readings tried)\n", rep.Tried)
		return
	}
	within := "within tolerance"
	if opts.ATol < 0 {
		within = fmt.Sprintf("within %d ULP", opts.MaxULP)
	}
	for _, f := range rep.Findings {
		lead := "explained by"
		if !f.Reproduces() {
			lead = "partly explained by"
		}
		fmt.Fprintf(w, "%s: %s (%d of %d failing elements %s of that reading", lead, f.Reading, f.Explained, f.Failing, within)
		if f.Residual > 0 {
			fmt.Fprintf(w, "; %d elements it does not account for", f.Residual)
		}
		fmt.Fprintln(w, ")")
		if p := f.Precision; p != nil {
			fmt.Fprintf(w, "  a precision finding, not a bug: it moves %d of %d elements (%.1f%%)", p.Moved, p.Elements, 100*float64(p.Moved)/float64(max(p.Elements, 1)))
			if p.FromPosition >= 0 {
				fmt.Fprintf(w, " and puts elements over tolerance from position %d on", p.FromPosition)
			}
			fmt.Fprintf(w, "; a kernel computing this way passes verify with --ulp %d, or with --atol %s\n", p.ULP, strconv.FormatFloat(p.MaxAbs, 'g', -1, 64))
		}
		fmt.Fprintf(w, "  fix: %s\n", f.Fix)
	}
}

// withExplained adds the report's findings to a JSON row as "explained_by".
func withExplained(row []byte, rep explain.Report) ([]byte, error) {
	if len(rep.Findings) == 0 {
		return row, nil
	}
	fs, err := json.Marshal(rep.Findings)
	if err != nil {
		return nil, err
	}
	row = bytes.TrimRight(row, "\n")
	if len(row) < 2 || row[len(row)-1] != '}' {
		return nil, fmt.Errorf("verify: a row that is not a JSON object")
	}
	out := append(row[:len(row)-1:len(row)-1], `,"explained_by":`...)
	return append(append(out, fs...), '}', '\n'), nil
}
