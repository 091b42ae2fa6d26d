package main

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"

	"github.com/rotary-go/rotary/check"
	"github.com/rotary-go/rotary/gguf"
	"github.com/rotary-go/rotary/golden"
	"github.com/rotary-go/rotary/hf"
)

const checkUsage = "--config CONFIG.json | --model PRESET [--style neox|gptj] [--strict] [--position-embedding-type rope|mrope] [--use-fused-rotary-pos-emb] [--apply-rope-fusion] [--positions-rows N] [--mrope-cache-mode default|interleave] [--rotary-mode half|interleave] [--op NAME] [--json] | --frameworks[=LIST] [-v] | --precision | --gguf FILE.gguf"

func runCheck(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("check", checkUsage, stderr)
	config := fs.String("config", "", "model `config.json`")
	preset := fs.String("model", "", "embedded model `preset` instead of --config")
	var l check.Launch
	var style string
	registerStyle(fs.FlagSet, &style)
	var strict bool
	registerStrict(fs.FlagSet, &strict)
	fs.StringVar(&l.PositionEmbeddingType, "position-embedding-type", "", "Megatron position_embedding_type: `rope` or mrope")
	fs.BoolVar(&l.UseFusedRotaryPosEmb, "use-fused-rotary-pos-emb", false, "MindSpeed's fused plain-RoPE flag is set")
	fs.BoolVar(&l.ApplyRoPEFusion, "apply-rope-fusion", false, "Megatron/Bridge apply_rope_fusion is set")
	fs.IntVar(&l.PositionRows, "positions-rows", 0, "rows `N` of the positions tensor passed (1, 3 or 4)")
	fs.StringVar(&l.CacheMode, "mrope-cache-mode", "", "npu_mrope cache_mode: `default` or interleave (apply's and golden's name)")
	// check's old name for it; apply's --cache-mode is kv_rmsnorm_rope_cache's mode, whose
	// values (Norm, PA, …) never meet npu_mrope's, so default and interleave stay unambiguous.
	oldCacheMode := fs.String("cache-mode", "", "the old name of --mrope-cache-mode: `default` or interleave only")
	fs.StringVar(&l.RotaryMode, "rotary-mode", "", "pair layout of the launch: `half` or interleave")
	fs.StringVar(&l.Op, "op", "", "fused op `NAME` the launch calls: "+opVocabulary())
	asJSON := fs.Bool("json", false, "print one JSON object per finding")
	var fw frameworksFlag
	fs.Var(&fw, "frameworks", "instead of the contract checks: every rule on which the framework dialects ("+dialectNames()+", or =LIST of them) read the config differently, with its numeric consequence; exit 1 when two rotate differently beyond float32 noise")
	verbose := fs.Bool("v", false, "with --frameworks: list every rule a dialect was not verified for, not only those that read this config in more than one way")
	ggufPath := fs.String("gguf", "", "instead of the contract checks: every way the RoPE llama.cpp derives from `FILE.gguf` differs from the config's, with its numeric consequence; exit 1 when they rotate differently beyond float32 noise")
	precisionFlag := fs.Bool("precision", false, "instead of the contract checks: how far angles computed in float32 drift from the exact ones at the original and max length, in radians and bf16 ULPs")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fw.takeList(fs.Args())); err != nil {
		return err
	}
	// Before --gguf, which refuses every launch flag, so that the old name is refused too.
	if err := mropeCacheMode(&l.CacheMode, *oldCacheMode); err != nil {
		return err
	}
	if *verbose && !fw.on {
		return usagef("-v lists the rules --frameworks did not compare: give it with --frameworks")
	}
	var data []byte
	var err error
	switch {
	case *config != "" && *preset != "":
		return usagef("--config and --model: give one, not both")
	case *config != "":
		if data, err = readConfig(*config); err != nil {
			return usagef("--config: %v", err)
		}
	case *preset != "":
		if data, err = hf.PresetJSON(*preset); err != nil {
			return usageError{err}
		}
	default:
		return usagef("--config: missing (or --model PRESET)")
	}
	opts, err := golden.ModelArgs{Style: style}.Options()
	if err != nil {
		return usageError{err}
	}
	l.Style = opts.Style
	source := *config
	if *preset != "" {
		source = "preset " + *preset
	}
	if *ggufPath != "" {
		if fw.on || *precisionFlag {
			return usagef("--gguf, --frameworks and --precision: give one")
		}
		return checkGGUF(*ggufPath, data, source, opts, l, *asJSON, stdout)
	}
	switch {
	case fw.on && *precisionFlag:
		return usagef("--frameworks and --precision: give one")
	case fw.on:
		return runCheckFrameworks(data, source, opts, fw, *verbose, *asJSON, stdout)
	case *precisionFlag:
		return runCheckPrecision(data, source, opts, *asJSON, stdout)
	}
	switch l.PositionEmbeddingType {
	case "", "rope", "mrope":
	default:
		return usagef("--position-embedding-type %q: want rope or mrope", l.PositionEmbeddingType)
	}
	if l.Op != "" {
		if l.Op, err = canonicalOp("--op", l.Op); err != nil {
			return err
		}
	}
	findings := check.Config(data, l)
	if f, guess := check.Guess(findings); strict && guess {
		return usagef("--strict: %s", f.What)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		for _, f := range findings {
			if err := enc.Encode(f); err != nil {
				return err
			}
		}
	} else {
		for _, f := range findings {
			fmt.Fprintln(stdout, f)
		}
		if len(findings) == 0 {
			fmt.Fprintln(stdout, "ok: no contract problems found")
		}
	}
	if check.HasErrors(findings) {
		return errProblems
	}
	return nil
}

// mropeCacheMode checks --mrope-cache-mode (mode) and its old name --cache-mode (old), and
// sets mode from old when only that was given.
func mropeCacheMode(mode *string, old string) error {
	switch {
	case old == "":
	case old != "default" && old != "interleave":
		return usagef("--cache-mode %q: check takes npu_mrope's cache mode, default or interleave (as --mrope-cache-mode, apply's name); kv_rmsnorm_rope_cache's Norm, PA, … have nothing to check", old)
	case *mode != "" && *mode != old:
		return usagef("--cache-mode %s and --mrope-cache-mode %s: give one (--cache-mode is its old name)", old, *mode)
	default:
		*mode = old
	}
	switch *mode {
	case "", "default", "interleave":
		return nil
	}
	return usagef("--mrope-cache-mode %q: want default or interleave", *mode)
}

// writeReport writes one of check's whole-config reports (--frameworks, --gguf, --precision):
// with asJSON as one indented JSON object, with <, > and & in its strings written as
// themselves (no \u003c escapes: the report is read by people and tools, not embedded in
// HTML), else as text writes it. It is errProblems when the report is not ok.
func writeReport(w io.Writer, asJSON bool, report any, text func(io.Writer), ok bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(report); err != nil {
			return err
		}
	} else {
		text(w)
	}
	if !ok {
		return errProblems
	}
	return nil
}

// checkGGUF is check --gguf: the GGUF file at path against the config (data); exit 1 when they
// rotate differently beyond float32 noise.
func checkGGUF(path string, data []byte, source string, opts hf.ParseOptions, l check.Launch, asJSON bool, stdout io.Writer) error {
	l.Style = nil // --style names the config's pairing, which applies here too
	if !reflect.ValueOf(l).IsZero() {
		return usagef("--gguf compares the RoPE of two files; the launch flags (--op, --mrope-cache-mode, ...) do not apply")
	}
	cfg, err := opts.Parse(data)
	if err != nil {
		return usagef("--config: %v", err)
	}
	gr, err := readGGUFRoPE(path)
	if err != nil {
		return err
	}
	r, err := check.GGUF(gr, cfg)
	if err != nil {
		return usageError{err}
	}
	r.GGUF, r.Config = path, source
	return writeReport(stdout, asJSON, r, r.WriteText, r.Alike)
}

// readGGUFRoPE reads a GGUF file and derives its RoPE as llama.cpp does.
func readGGUFRoPE(path string) (*gguf.RoPE, error) {
	f, err := gguf.ReadFile(path)
	if err != nil {
		return nil, usageError{err}
	}
	r, err := f.RoPE()
	if err != nil {
		return nil, usagef("%s: %v", path, err)
	}
	return r, nil
}

// runCheckPrecision is check --precision, on the config's spec.
func runCheckPrecision(data []byte, source string, opts hf.ParseOptions, asJSON bool, stdout io.Writer) error {
	m, err := opts.Parse(data)
	if err != nil {
		return usageError{err}
	}
	if m.Spec.NoRoPE {
		return usagef("--precision: the model's layer 0 has no RoPE")
	}
	r, err := check.Precision(m.Spec)
	if err != nil {
		return err
	}
	r.Source = source
	return writeReport(stdout, asJSON, r, r.WriteText, true)
}
