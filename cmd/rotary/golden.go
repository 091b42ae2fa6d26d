package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/rotary-go/rotary/golden"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

const goldenUsage = "(--model PRESET | --config C.json) [--op OP] [--dtype F32|BF16|F16] [--tokens N] [--seed S] [--layer L] [--heads N] [--kv-heads N] [--positions range|range:START|random|random:LIMIT|FILE] [--backend B] [--kv-quant none|sym|asym] [op flags as apply takes them] (--out G.safetensors | --suite DIR) [--format safetensors|npy]"

// goldenOptions are the parsed command line shared by every bundle of a run.
type goldenOptions struct {
	m         modelFlags
	df        dispatchFlags
	fs        *flagSet
	op        string // the registry name
	seed      uint64
	tokens    int
	positions string
	format    string // safetensors or npy
	kvQuant   string // kv_rmsnorm_rope_cache's caches: none, sym or asym (int8)
	// heads, kvHeads override the model's head counts (0: the model's).
	heads, kvHeads int
	// modelFlags are the names of the model flags apply shares; userSet the flags the command
	// line gave.
	modelFlags, userSet map[string]bool
}

func runGolden(args []string, stdout, stderr io.Writer) error {
	// Notes and warnings wait in a buffer until the output is written, so that a failed run
	// says one thing: its error.
	var notes bytes.Buffer
	o := &goldenOptions{}
	fs := newFlags("golden", goldenUsage, stderr)
	o.fs = fs
	o.m.register(fs.FlagSet)
	o.modelFlags = map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { o.modelFlags[f.Name] = true })
	o.df.register(fs.FlagSet)
	opName := fs.String("op", "", "operator `NAME` from 'rotary ops' or another stack's name of it (default rotary_embedding; mrope for MRoPE models)")
	dtypeName := fs.String("dtype", "F32", "dtype `D` of the float tensors: F32, BF16 or F16")
	fs.IntVar(&o.tokens, "tokens", golden.DefaultTokens, "number of tokens `N`")
	seed := fs.Uint64("seed", 0, "seed `S` of the random values (the same seed gives the same bytes)")
	fs.StringVar(&o.positions, "positions", "range", "positions: range (0..N−1), range:START (START..START+N−1), random (seeded, below the model's cache length), random:LIMIT (below LIMIT), or a `FILE` (safetensors, .npy) holding one sequence's positions: [T], [rows,T] or rotary positions' [rows,1,T]")
	out := fs.String("out", "", "output bundle `G.safetensors`")
	suite := fs.String("suite", "", "write a suite of bundles and index.json into `DIR` instead of one --out")
	fs.StringVar(&o.kvQuant, "kv-quant", "none", "kv_rmsnorm_rope_cache caches: none (the bundle's dtype), sym (int8 with per-channel k_rope_scale, c_kv_scale) or asym (and k_rope_offset, c_kv_offset); `MODE`")
	registerHeads(fs.FlagSet, &o.heads, &o.kvHeads, "the inputs'")
	fs.StringVar(&o.format, "format", "safetensors", "bundle `format`: safetensors, or npy (--out names a directory of NAME.npy files, one per tensor, and __metadata__.json; BF16 as uint16 bits)")
	own := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { own[f.Name] = true })
	registerOpFlags(fs.FlagSet)
	fs.help = func() {
		fmt.Fprintf(fs.out, "usage: rotary golden %s\n\n", fs.usage)
		printFlags(fs.out, fs.FlagSet, func(n string) bool { return own[n] })
		var names []string
		for _, n := range golden.ParamNames() {
			names = append(names, "--"+n)
		}
		fmt.Fprintf(fs.out, "\nand the ops' own flags, as 'rotary apply -h' lists them under each op: %s;\n"+
			"golden sets the ones its inputs fix (--head-size, --rotary-mode, --layout, ...) unless given, and records\n"+
			"all in the bundle's apply_args metadata, the flags after which apply --in G reproduces its out.* tensors.\n", strings.Join(names, ", "))
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	o.userSet = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { o.userSet[f.Name] = true })
	o.seed = *seed
	if err := noArgs(fs.Args()); err != nil {
		return err
	}
	if o.userSet["op"] && *opName == "" {
		return usagef("--op \"\": want an op name (without --op, rotary_embedding, or mrope for MRoPE models)")
	}
	if *opName != "" {
		canon, err := canonicalOp("--op", *opName)
		if err != nil {
			return err
		}
		if _, ok := golden.Lookup(canon); !ok { // TestEveryOpCovered keeps every op covered
			return usagef("--op %s: rotary golden cannot make its inputs", canon)
		}
		o.op = canon
	}
	dtype, err := floatDType(*dtypeName)
	if err != nil {
		return err
	}
	if o.tokens < 1 || o.tokens > golden.MaxTokens {
		return usagef("--tokens %d: want 1..%d", o.tokens, golden.MaxTokens)
	}
	if err := checkHeads(fs.FlagSet); err != nil {
		return err
	}
	if o.kvQuant != "none" && o.kvQuant != "sym" && o.kvQuant != "asym" {
		return usagef("--kv-quant %q: want none, sym or asym", o.kvQuant)
	}
	if o.kvQuant != "none" && o.op != "kv_rmsnorm_rope_cache" {
		return usagef("--kv-quant %s: only --op kv_rmsnorm_rope_cache has quantised caches", o.kvQuant)
	}
	if o.format != "safetensors" && o.format != "npy" {
		return usagef("--format %q: want safetensors or npy", o.format)
	}
	switch {
	case *out != "" && *suite != "":
		return usagef("--out and --suite: give one, not both")
	case *out == "" && *suite == "":
		return usagef("--out: missing (or --suite DIR)")
	}
	if o.format == "safetensors" && *out != "" {
		if err := checkSafetensorsOut(*out, ", or give --format npy for a directory of .npy files"); err != nil {
			return err
		}
	}
	disp, err := o.df.dispatcher()
	if err != nil {
		return err
	}
	recorded, err := o.m.args().Model()
	if err != nil {
		return usageError{err}
	}
	model, spec, err := o.m.load()
	if err != nil {
		return err
	}
	if o.op == "" {
		o.op = golden.DefaultOp(spec)
	}
	if err := checkOpFlags(o.op, func(f string) bool { return o.userSet[f] }); err != nil {
		return err
	}
	lo, err := o.library(dtype, disp, recorded, &notes)
	if err != nil {
		return err
	}
	if *suite != "" {
		// Each flag the command line left open varies.
		bundles, err := golden.Suite(lo, golden.Vary{DType: !o.userSet["dtype"], Tokens: !o.userSet["tokens"], Layer: !o.userSet["layer"], Positions: !o.userSet["positions"]})
		if err == nil {
			err = golden.WriteSuite(*suite, bundles, o.format)
		}
		if err != nil {
			return usageError{err}
		}
		warnModel(stderr, "golden", model)
		return writeNotes(stderr, notes.String())
	}
	b, err := golden.Make(lo)
	if err != nil {
		return usageError{err}
	}
	if err := b.WriteFile(*out, o.format); err != nil {
		return usagef("--out: %v", err)
	}
	warnModel(stderr, "golden", model)
	if !o.userSet["layer"] {
		noteLayerKinds(stderr, "golden", o.m.layer, model, o.m.rope)
	}
	return writeNotes(stderr, notes.String())
}

// writeNotes writes each distinct line of notes once, in order: a suite's bundles repeat the op
// code's lines (a layer without RoPE, a layer not scaled).
func writeNotes(w io.Writer, notes string) error {
	seen := map[string]bool{}
	for _, line := range strings.SplitAfter(notes, "\n") {
		if line == "" || seen[line] {
			continue
		}
		seen[line] = true
		if _, err := io.WriteString(w, line); err != nil {
			return err
		}
	}
	return nil
}

// floatDType reads --dtype, of every command that takes one.
func floatDType(s string) (tensor.DType, error) {
	d, err := tensor.ParseDType(s)
	if err != nil || !d.IsFloat() {
		return 0, usagef("--dtype %q: want F32, BF16 or F16", s)
	}
	return d, nil
}

// library is the command line as golden.Options: the model with the model flags given, the op's
// parameters given, the positions (golden.ReadPositions).
func (o *goldenOptions) library(dtype tensor.DType, disp *ops.Dispatcher, model golden.Model, notes io.Writer) (golden.Options, error) {
	var names []string
	for name := range o.modelFlags {
		if o.userSet[name] && name != "config" && name != "model" && name != "layer" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	model.Flags = recordedFlags(o.fs.FlagSet, names)
	var dispatch []string
	for _, name := range []string{"backend", "custom-ops"} {
		if o.userSet[name] {
			dispatch = append(dispatch, name)
		}
	}
	pos, err := golden.ReadPositions(o.positions)
	if err != nil {
		return golden.Options{}, usageError{err}
	}
	lo := golden.Options{Op: o.op, Model: model, Layer: o.m.layer, DType: dtype, Seed: o.seed, Positions: pos,
		Heads: o.heads, KVHeads: o.kvHeads, KVQuant: o.kvQuant, Args: opArgs(o.fs.FlagSet), Dispatcher: disp,
		DispatchFlags: recordedFlags(o.fs.FlagSet, dispatch), Notes: prefixLines{notes, "rotary golden: "}}
	if o.userSet["tokens"] {
		lo.Tokens = o.tokens
	}
	return lo, nil
}

// recordedFlags are the named flags of fs with their values, as apply_args record them (a
// boolean flag as --name=value: "--name false" would end the flags).
func recordedFlags(fs *flag.FlagSet, names []string) []string {
	var out []string
	for _, name := range names {
		f := fs.Lookup(name)
		if isBoolFlag(f) {
			out = append(out, "--"+name+"="+f.Value.String())
			continue
		}
		out = append(out, "--"+name, f.Value.String())
	}
	return out
}

// registerHeads adds --heads and --kv-heads, which replace a model's head counts (golden's
// inputs, bench's shapes); of is whose counts they set.
func registerHeads(fs *flag.FlagSet, heads, kvHeads *int, of string) {
	fs.IntVar(heads, "heads", 0, of+" query head count `N` instead of the model's (a tensor-parallel shard's)")
	fs.IntVar(kvHeads, "kv-heads", 0, of+" key/value head count `N` instead of the model's (a shard's; 1 for MLA's one shared k_pe head, DeepSeek's [T,1,64])")
}

// checkHeads refuses a --heads or --kv-heads the command line gave outside 1..golden.MaxHeads.
func checkHeads(fs *flag.FlagSet) error {
	for _, name := range []string{"heads", "kv-heads"} {
		if !flagGiven(fs, name) {
			continue
		}
		if n, _ := strconv.Atoi(fs.Lookup(name).Value.String()); n < 1 || n > golden.MaxHeads {
			return usagef("--%s %d: want a head count 1..%d", name, n, golden.MaxHeads)
		}
	}
	return nil
}
