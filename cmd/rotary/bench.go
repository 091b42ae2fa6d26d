package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rotary-go/rotary/bench"
	"github.com/rotary-go/rotary/golden"
	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/internal/fileio"
)

const benchUsage = "[--json] [--png FILE] [--model PRESET | --config C.json [--heads N] [--kv-heads N] | --model SHAPE,...] [--op NAME,...] [--backend NAME,...] [--dtype F32,BF16,F16] [--tokens 1,16,...] [--time D] [--custom-ops SPEC]"

func runBench(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench", benchUsage, stderr)
	asJSON := fs.Bool("json", false, "print one JSON object per figure instead of a table")
	png := fs.String("png", "", "also draw limit_ratio against tokens to `FILE` (PNG)")
	models := fs.String("model", "", "a model `preset` to time its q/k heads and head size (see 'rotary presets'), or comma-separated built-in shapes (default all: "+strings.Join(bench.ModelNames(), ", ")+")")
	config := fs.String("config", "", "time the q/k heads and head size of a model `config.json`")
	opsList := fs.String("op", "", "comma-separated `ops`, or all (default "+strings.Join(bench.DefaultOps, ",")+"): "+opVocabulary())
	backends := fs.String("backend", "", "comma-separated `backends`, or all (default "+strings.Join(bench.DefaultBackends, ",")+"; native times the reference kernels; known: "+strings.Join(bench.Backends(), ", ")+")")
	dtypes := fs.String("dtype", "", "comma-separated `dtypes` (default F32,BF16,F16)")
	tokens := fs.String("tokens", "", "comma-separated token `counts` (default 1,16,512,4096,16384)")
	minTime := fs.Duration("time", 100*time.Millisecond, "measured `time` per figure, op, copy and limit each")
	customOps := fs.String("custom-ops", "all", "op enable `SPEC` for the dispatchers")
	var heads, kvHeads int
	registerHeads(fs.FlagSet, &heads, &kvHeads, "with --model PRESET or --config: the timed")
	quiet := fs.Bool("quiet", false, "no progress bar on stderr (it is drawn only when stderr is a terminal)")
	fs.help = func() {
		fmt.Fprintf(fs.out, "usage: rotary bench %s\n", fs.usage)
		printFlags(fs.out, fs.FlagSet, nil)
		fmt.Fprint(fs.out, benchColumnsHelp)
	}
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
	if err := checkHeads(fs.FlagSet); err != nil {
		return err
	}
	lists := map[string]*string{"op": opsList, "backend": backends, "model": models, "dtype": dtypes, "tokens": tokens}
	for _, name := range []string{"op", "backend", "model", "dtype", "tokens"} {
		if err := checkList(name, *lists[name]); err != nil {
			return err
		}
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
	cfg := bench.Config{Ops: opNames, Backends: splitList(*backends), Time: *minTime, CustomOps: *customOps}
	if *config != "" || isPreset(*models) {
		var err error
		if cfg.Shape, err = benchShape(*config, *models); err != nil {
			return err
		}
		if heads > 0 {
			cfg.Shape.Heads = heads
		}
		if kvHeads > 0 {
			cfg.Shape.KVHeads = kvHeads
		}
	} else {
		if heads > 0 || kvHeads > 0 {
			return usagef("--heads, --kv-heads: a model's head counts, with --model PRESET or --config C.json (the built-in shapes %s keep theirs)", strings.Join(bench.ModelNames(), ", "))
		}
		cfg.Models = splitList(*models)
		if err := knownShapes(cfg.Models); err != nil {
			return err
		}
	}
	for _, d := range splitList(*dtypes) {
		dt, err := floatDType(d)
		if err != nil {
			return err
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
	// The PNG's file is opened before the run, so that a path it cannot be written to fails
	// before minutes of measuring; it is put in place only when everything succeeded.
	var pngFile *fileio.Replacement
	if *png != "" {
		if pngFile, err = fileio.Create(*png, 0o644); err != nil {
			return usagef("--png: %v", err)
		}
		defer pngFile.Abort()
	}
	enc := json.NewEncoder(stdout)
	w := columnWidths(cfg)
	if !*asJSON {
		fmt.Fprintf(stdout, "%-*s %-*s %-5s %-*s %6s %3s %12s %8s %11s %9s %6s %8s\n", w.op, "op", w.backend, "backend", "dtype", w.model, "model", "tokens", "thr", "ns/call", "GB/s", "limit_ratio", "limitGB/s", "ratio", "copyGB/s")
	}
	// The bar is a terminal's: in a file, its carriage returns and escapes are noise. It is
	// cleared before each row, which may go to the same terminal.
	bar := !*quiet && isTerminal(stderr)
	progress := func(done, total int, r bench.Result) {
		if bar {
			fmt.Fprint(stderr, "\r\x1b[K")
		}
		if *asJSON {
			enc.Encode(r)
		} else {
			fmt.Fprintf(stdout, "%-*s %-*s %-5s %-*s %6d %3d %12.0f %8.2f %11.3f %9.2f %6.3f %8.2f\n", w.op, r.Op, w.backend, r.Backend, r.DType, w.model, r.Model, r.Tokens, r.Threads, r.NsPerCall, r.GBps, r.LimitRatio, r.LimitGBps, r.Ratio, r.CopyGBps)
		}
		if bar {
			drawProgress(stderr, done, total, r)
		}
	}
	results, err := bench.Run(cfg, progress)
	if bar && total > 0 {
		fmt.Fprint(stderr, "\r\x1b[K")
	}
	if err != nil {
		return usageError{err}
	}
	if pngFile != nil {
		if err := bench.EncodePNG(pngFile, results); err != nil {
			return usagef("--png: %v", err)
		}
		if err := pngFile.Commit(); err != nil {
			return usagef("--png: %v", err)
		}
	}
	return nil
}

// benchColumnsHelp is what bench -h says about the figures (README, Benchmarks, says it at
// length).
const benchColumnsHelp = `
Columns (--json: the same figures under their JSON names):
  thr          threads the op ran on (JSON threads)
  ns/call      time of one call (JSON ns_per_call)
  GB/s         bytes the op must read and write per second (JSON gbps)
  limit_ratio  t(limit) / t(op): the limit is one pass that loads and stores exactly the op's
               bytes with no arithmetic, timed in the same run on the same threads; 1.0 is the
               op at the limit, 0.5 an op taking twice the time its memory traffic needs
  limitGB/s    the limit pass's rate (JSON limit_gbps)
  ratio        t(copy) / t(op): a copy of the same byte count into a separate buffer; it moves
               more memory than an in-place update, so it flatters in-place ops (JSON ratio)
  copyGB/s     the copy's rate (JSON copy_gbps)
Without --backend only the fast backend (cpu) is timed; --backend native or --backend all adds
the reference kernels.
`

// benchColumns are the widths of the table's name columns.
type benchColumns struct{ op, backend, model int }

// columnWidths sizes the name columns to the longest op, backend and model the run can
// print, so that a long name (apply_rotary_emb_thd_backward, cpu/avx512bf16, a preset's name)
// does not push its row out of line; the widths of the short default run are the least.
func columnWidths(cfg bench.Config) benchColumns {
	w := benchColumns{op: 16, backend: 10, model: 11}
	ops, backends, models := cfg.Names()
	for _, o := range ops {
		w.op = max(w.op, len(o))
	}
	for _, b := range backends {
		w.backend = max(w.backend, len(b))
	}
	for _, m := range models {
		w.model = max(w.model, len(m))
	}
	return w
}

// isTerminal reports whether w is a terminal (a character device), looking through the
// command's stderr wrapper.
func isTerminal(w io.Writer) bool {
	if c, ok := w.(commandStderr); ok {
		w = c.Writer
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// drawProgress redraws one status line: a bar, the count, and the figure just measured.
func drawProgress(w io.Writer, done, total int, r bench.Result) {
	const width = 30
	filled := done * width / total
	fmt.Fprintf(w, "\r[%s%s] %d/%d %s %s %s %d", strings.Repeat("#", filled), strings.Repeat(".", width-filled), done, total, r.Backend, r.DType, r.Model, r.Tokens)
	fmt.Fprint(w, "\x1b[K")
}

// checkList refuses a comma-separated flag value with an empty entry ("1,,2", ","): a typo
// that splitList would otherwise drop, or turn into the flag's default.
func checkList(flag, s string) error {
	if s == "" {
		return nil
	}
	for _, p := range strings.Split(s, ",") {
		if strings.TrimSpace(p) == "" {
			return usagef("--%s %q: an empty entry in the list", flag, s)
		}
	}
	return nil
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

// isPreset: --model names one model preset rather than built-in bench shapes. A name that is
// both (deepseek-v3, qwen3-8b) is the preset: the model's own shape is what was asked for.
func isPreset(name string) bool {
	if name == "" || strings.Contains(name, ",") {
		return false
	}
	_, err := hf.PresetJSON(name)
	return err == nil
}

// knownShapes refuses a --model list naming something other than built-in shapes with all
// that --model and --config take: bench.Config knows only its shapes, not presets.
func knownShapes(names []string) error {
	shapes := strings.Join(bench.ModelNames(), ", ")
	for _, m := range names {
		switch {
		case slices.Contains(bench.ModelNames(), m):
		case len(names) > 1 && isPreset(m):
			return usagef("--model %q: a preset is timed alone (--model %s); a list takes built-in shapes: %s", m, m, shapes)
		default:
			return usagef("--model %q: want a model preset (see 'rotary presets'), built-in shapes (%s), or --config C.json instead", m, shapes)
		}
	}
	return nil
}

// benchShape is the shape of the model of --config or --model PRESET (bench.ModelShape).
func benchShape(config, preset string) (*bench.Shape, error) {
	a := golden.ModelArgs{Config: config, Preset: preset}
	model, _, err := a.Load()
	if err != nil {
		return nil, usageError{err}
	}
	data, err := a.ConfigJSON()
	if err != nil {
		return nil, usageError{err}
	}
	shape, err := bench.ModelShape(preset, model, data)
	if err != nil {
		return nil, usageError{err}
	}
	return shape, nil
}
