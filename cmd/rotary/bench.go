package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/rotary-go/rotary/bench"
	"github.com/rotary-go/rotary/tensor"
)

const benchUsage = "[--json] [--png FILE] [--model NAME,...] [--backend NAME,...] [--dtype F32,BF16,F16] [--tokens 1,16,...] [--time D] [--custom-ops SPEC]"

func runBench(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench", benchUsage, stderr)
	asJSON := fs.Bool("json", false, "print one JSON object per figure instead of a table")
	png := fs.String("png", "", "also draw limit_ratio against tokens to `FILE` (PNG)")
	models := fs.String("model", "", "comma-separated benchmark `shapes` (default all: "+strings.Join(bench.ModelNames(), ", ")+")")
	opsList := fs.String("op", "", "comma-separated `ops`, or all (default "+strings.Join(bench.DefaultOps, ",")+"): "+opVocabulary())
	backends := fs.String("backend", "", "comma-separated `backends` (default native,cpu; known: "+strings.Join(bench.Backends(), ", ")+")")
	dtypes := fs.String("dtype", "", "comma-separated `dtypes` (default F32,BF16,F16)")
	tokens := fs.String("tokens", "", "comma-separated token `counts` (default 1,16,512,4096,16384)")
	minTime := fs.Duration("time", 100*time.Millisecond, "measured `time` per figure, op, copy and limit each")
	customOps := fs.String("custom-ops", "all", "op enable `SPEC` for the dispatchers")
	quiet := fs.Bool("quiet", false, "no progress bar on stderr")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs.Args()); err != nil {
		return err
	}
	// bench.Run takes a Time ≤ 0 to mean its default, so a mistyped --time would otherwise
	// measure for 100ms without a word.
	if *minTime <= 0 {
		return usagef("--time %v: want a duration > 0", *minTime)
	}
	var opNames []string
	for _, o := range splitList(*opsList) {
		if o != "all" {
			var err error
			if o, err = canonicalOp("--op", o); err != nil {
				return err
			}
		}
		opNames = append(opNames, o)
	}
	cfg := bench.Config{Ops: opNames, Models: splitList(*models), Backends: splitList(*backends), Time: *minTime, CustomOps: *customOps}
	for _, d := range splitList(*dtypes) {
		dt, err := tensor.ParseDType(d)
		if err != nil || !dt.IsFloat() {
			return usagef("--dtype %q: want F32, BF16 or F16", d)
		}
		cfg.DTypes = append(cfg.DTypes, dt)
	}
	for _, s := range splitList(*tokens) {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			return usagef("--tokens %q: want positive integers", s)
		}
		cfg.Tokens = append(cfg.Tokens, n)
	}
	total, err := cfg.Count()
	if err != nil {
		return usageError{err}
	}
	enc := json.NewEncoder(stdout)
	if !*asJSON {
		fmt.Fprintf(stdout, "%-16s %-10s %-5s %-11s %6s %3s %12s %8s %11s %9s %6s %8s\n", "op", "backend", "dtype", "model", "tokens", "thr", "ns/call", "GB/s", "limit_ratio", "limitGB/s", "ratio", "copyGB/s")
	}
	progress := func(done, total int, r bench.Result) {
		if *asJSON {
			enc.Encode(r)
		} else {
			fmt.Fprintf(stdout, "%-16s %-10s %-5s %-11s %6d %3d %12.0f %8.2f %11.3f %9.2f %6.3f %8.2f\n", r.Op, r.Backend, r.DType, r.Model, r.Tokens, r.Threads, r.NsPerCall, r.GBps, r.LimitRatio, r.LimitGBps, r.Ratio, r.CopyGBps)
		}
		if !*quiet {
			drawProgress(stderr, done, total, r)
		}
	}
	results, err := bench.Run(cfg, progress)
	if !*quiet && total > 0 {
		fmt.Fprintln(stderr)
	}
	if err != nil {
		return usageError{err}
	}
	if *png != "" {
		if err := bench.WritePNG(*png, results); err != nil {
			return usagef("--png: %v", err)
		}
	}
	return nil
}

// drawProgress redraws one status line: a bar, the count, and the figure just measured.
func drawProgress(w io.Writer, done, total int, r bench.Result) {
	const width = 30
	filled := done * width / total
	fmt.Fprintf(w, "\r[%s%s] %d/%d %s %s %s %d", strings.Repeat("#", filled), strings.Repeat(".", width-filled), done, total, r.Backend, r.DType, r.Model, r.Tokens)
	fmt.Fprint(w, "\x1b[K")
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
