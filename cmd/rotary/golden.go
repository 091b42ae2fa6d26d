package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/golden"
	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/npy"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

const goldenUsage = "(--model PRESET | --config C.json) [--op OP] [--dtype F32|BF16|F16] [--tokens N] [--seed S] [--layer L] [--heads N] [--kv-heads N] [--positions range|range:START|random|random:LIMIT|FILE] [--backend B] [--kv-quant none|sym|asym] [op flags as apply takes them] (--out G.safetensors | --suite DIR) [--format safetensors|npy]"

const (
	goldenDefaultTokens = 16
	// goldenMaxTokens bounds --tokens; goldenMaxElements bounds any one tensor of a bundle (1 GiB
	// of F32), so that a typo costs an error rather than the machine's memory.
	goldenMaxTokens   = 1 << 20
	goldenMaxElements = 1 << 28
	// goldenStream is the PCG stream (its second seed word) of every bundle: "rotary" in ASCII.
	goldenStream = 0x726f74617279
	// goldenBlockSize is the block size of the paged caches of kv_rmsnorm_rope_cache's PA modes.
	goldenBlockSize = 16
	// maxHeads bounds --heads and --kv-heads (golden's and bench's): DeepSeek-V3 has 128 query
	// heads; a count far past any model's is a typo.
	maxHeads = 1 << 12
	// goldenKVLoraRank is Dv of kv_rmsnorm_rope_cache when the config has no kv_lora_rank
	// (DeepSeek-V2/V3's).
	goldenKVLoraRank = 512
)

// goldenGenerator says how a bundle's values are drawn, in its metadata: a reader can rebuild
// the inputs without this tool.
const goldenGenerator = "math/rand/v2 PCG (DXSM) seeded (seed, 0x726f74617279), one Uint64 per draw in tensor order; " +
	"a value is (2·(u>>40)+1)/2^24 − 1, exact in float32, then rounded to the dtype (a 16-bit result of magnitude 1 becomes the largest below 1); " +
	"a random position is u mod limit; slots are a Fisher–Yates shuffle with u mod (i+1)"

// goldenOptions are the parsed command line shared by every bundle of a run.
type goldenOptions struct {
	m         modelFlags
	df        dispatchFlags
	fs        *flagSet
	op        string // the registry name
	seed      uint64
	tokens    int
	tokensSet bool
	layerSet  bool
	positions string
	format    string // safetensors or npy
	kvQuant   string // kv_rmsnorm_rope_cache's caches: none, sym or asym (int8)
	// heads, kvHeads override the model's head counts (0: the model's).
	heads, kvHeads int
	suite          bool // writing a suite: its index says what each layer is
	// opFlags and modelFlags are the names of the apply ops' own flags and of the model flags
	// apply shares; userSet the flags the command line gave.
	opFlags, modelFlags, userSet map[string]bool
	// modelName is the preset or the config's model_type; configSum the SHA-256 of its JSON.
	modelName, configSum string
	configJSON           []byte
	disp                 *ops.Dispatcher
	stderr               io.Writer
}

// goldenCase is what varies between the bundles of a suite.
type goldenCase struct {
	dtype     tensor.DType
	tokens    int
	positions string
	layer     int
}

// goldenBundle is one bundle: its tensors and metadata, and what its suite index lists.
type goldenBundle struct {
	tensors []safetensors.Tensor
	meta    map[string]string
	// positions and layerType as the metadata gives them, for the suite index.
	positions, layerType string
	tokens               int
}

func runGolden(args []string, stdout, stderr io.Writer) error {
	// Notes and warnings wait in a buffer until the output is written, so that a failed run
	// says one thing: its error.
	var notes bytes.Buffer
	o := &goldenOptions{stderr: &notes}
	fs := newFlags("golden", goldenUsage, stderr)
	o.fs = fs
	o.m.register(fs.FlagSet)
	o.modelFlags = map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { o.modelFlags[f.Name] = true })
	o.df.register(fs.FlagSet)
	opName := fs.String("op", "", "operator `NAME` from 'rotary ops' or another stack's name of it (default rotary_embedding; mrope for MRoPE models)")
	dtypeName := fs.String("dtype", "F32", "dtype `D` of the float tensors: F32, BF16 or F16")
	fs.IntVar(&o.tokens, "tokens", goldenDefaultTokens, "number of tokens `N`")
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
	o.opFlags = map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) {
		if !own[f.Name] {
			o.opFlags[f.Name] = true
		}
	})
	fs.help = func() {
		fmt.Fprintf(fs.out, "usage: rotary golden %s\n\n", fs.usage)
		printFlags(fs.out, fs.FlagSet, func(n string) bool { return own[n] })
		var names []string
		for n := range o.opFlags {
			names = append(names, "--"+n)
		}
		sort.Strings(names)
		fmt.Fprintf(fs.out, "\nand the ops' own flags, as 'rotary apply -h' lists them under each op: %s;\n"+
			"golden sets the ones its inputs fix (--head-size, --rotary-mode, --layout, ...) unless given, and records\n"+
			"all in the bundle's apply_args metadata, the flags after which apply --in G reproduces its out.* tensors.\n", strings.Join(names, ", "))
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	o.userSet = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { o.userSet[f.Name] = true })
	o.seed, o.tokensSet, o.layerSet = *seed, o.userSet["tokens"], o.userSet["layer"]
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
		if goldenMakers[canon] == nil { // TestGoldenEveryOp keeps every op covered
			return usagef("--op %s: rotary golden cannot make its inputs", canon)
		}
		o.op = canon
	}
	dtype, err := parseGoldenDType(*dtypeName)
	if err != nil {
		return err
	}
	if o.tokens < 1 || o.tokens > goldenMaxTokens {
		return usagef("--tokens %d: want 1..%d", o.tokens, goldenMaxTokens)
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
	if o.disp, err = o.df.dispatcher(); err != nil {
		return err
	}
	if err := o.readConfig(); err != nil {
		return err
	}
	model, spec, err := o.m.load()
	if err != nil {
		return err
	}
	if o.op == "" {
		o.op = "rotary_embedding"
		if spec.MRoPE != nil {
			o.op = "mrope"
		}
	}
	if err := checkOpFlags(o.op, func(f string) bool { return o.userSet[f] }); err != nil {
		return err
	}
	if *suite != "" {
		o.suite = true
		if err := o.writeSuite(*suite, dtype, model); err != nil {
			return err
		}
		warnModel(stderr, "golden", model)
		return writeNotes(stderr, notes.String())
	}
	b, err := o.bundle(goldenCase{dtype: dtype, tokens: o.tokens, positions: o.positions, layer: o.m.layer})
	if err != nil {
		return err
	}
	if o.format == "npy" {
		err = writeGoldenNPY("--out", *out, b)
	} else if err = safetensors.WriteFile(*out, b.tensors, b.meta); err != nil {
		err = usagef("--out: %v", err)
	}
	if err != nil {
		return err
	}
	warnModel(stderr, "golden", model)
	if !o.layerSet {
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

// writeGoldenNPY writes a bundle as a directory of .npy files (npy.WriteFiles: atomic, nothing
// left behind on error), the metadata in its __metadata__.json, from the bundle's own bytes.
func writeGoldenNPY(flagName, dir string, b goldenBundle) error {
	if err := npy.WriteFiles(dir, b.tensors, b.meta); err != nil {
		return usagef("%s: %v", flagName, err)
	}
	return nil
}

func parseGoldenDType(s string) (tensor.DType, error) {
	d, err := tensor.ParseDType(strings.ToUpper(s))
	if err != nil || !d.IsFloat() {
		return 0, usagef("--dtype %q: want F32, BF16 or F16", s)
	}
	return d, nil
}

// readConfig reads the JSON the model comes from, for its hash and for keys the model does not
// carry (kv_lora_rank).
func (o *goldenOptions) readConfig() error {
	var err error
	if o.configJSON, err = modelJSON(&o.m); err != nil {
		return err
	}
	o.modelName = o.m.preset
	o.configSum = configSum(o.configJSON)
	if o.modelName == "" {
		var top struct {
			ModelType string `json:"model_type"`
		}
		_ = json.Unmarshal(o.configJSON, &top) // hf has parsed it; a type it lacks is named below
		o.modelName = top.ModelType
	}
	return nil
}

// bundle makes one bundle: the op's inputs drawn from the seed, and its outputs computed by the
// same code `rotary apply --op` runs.
func (o *goldenOptions) bundle(c goldenCase) (goldenBundle, error) {
	o.m.layer = c.layer
	model, spec, err := o.m.load()
	if err != nil {
		return goldenBundle{}, err
	}
	pos, err := parseGoldenPositions(c.positions)
	if err != nil {
		return goldenBundle{}, err
	}
	if pos.kind == "file" {
		n := pos.file.Shape[pos.file.Rank()-1]
		if o.tokensSet && n != c.tokens {
			return goldenBundle{}, usagef("--tokens %d: the positions file holds %d tokens", c.tokens, n)
		}
		c.tokens = n
	}
	g := &goldenGen{o: o, c: c, pos: pos, model: model, spec: spec, rng: rand.NewPCG(o.seed, goldenStream), derived: map[string]string{}}
	defer g.resetDerived()
	g.limit = int64(spec.DefaultCacheLen())
	if g.limit <= 0 {
		g.limit = int64(spec.MaxPositions)
	}
	if g.limit <= 0 {
		g.limit = 4096 // no length in the config: a context every model has
	}
	if pos.limit > 0 {
		g.limit = pos.limit
	}
	inputs, err := goldenMakers[o.op](g)
	if err == nil {
		err = g.err
	}
	if err != nil {
		return goldenBundle{}, err
	}
	if (o.heads > 0 || o.kvHeads > 0) && g.hq == 0 {
		return goldenBundle{}, usagef("--heads, --kv-heads: --op %s's inputs have no heads to count", o.op)
	}

	op, _ := golden.Lookup(o.op)
	usesModel := op.Model == golden.ModelRequired || (op.Model == golden.ModelOptional && !o.userSet["query-scale"])
	call := golden.Call{Source: "golden inputs", Inputs: map[string]tensor.Tensor{}, Dispatcher: o.disp, Spec: spec, Layer: c.layer,
		Notes: prefixLines{o.stderr, "rotary golden: "}, Args: golden.Args{}}
	if usesModel {
		call.Model = model
	}
	for name := range o.opFlags {
		if o.userSet[name] || g.derived[name] != "" {
			call.Args[name] = o.fs.Lookup(name).Value.String()
		}
	}
	var files []safetensors.Tensor
	for _, in := range inputs {
		// Encoded (copied) before the op runs: the rotations work in place.
		st, err := safetensors.FromTensor(in.name, in.t)
		if err != nil {
			st = safetensors.Tensor{Name: in.name} // refused by the writer, naming it
		}
		files = append(files, st)
		call.Inputs[in.name] = in.t
	}
	results, err := golden.Run(o.op, call)
	if err != nil {
		return goldenBundle{}, usageError{err}
	}
	if op.Model == golden.ModelRequired && spec.NoRoPE && !o.suite {
		fmt.Fprintf(o.stderr, "rotary golden: layer %d has no RoPE: the expected outputs equal the inputs\n", c.layer)
	}
	for _, r := range results {
		r.Name = "out." + r.Name
		files = append(files, r)
	}
	layerType := layerKindOf(model, o.m.rope, c.layer)
	meta := map[string]string{
		"rotary_version": buildVersion(),
		"op":             o.op,
		"model":          o.modelName,
		"config_sha256":  o.configSum,
		"dtype":          c.dtype.String(),
		"seed":           strconv.FormatUint(o.seed, 10),
		"layer":          strconv.Itoa(c.layer),
		"layer_type":     layerType,
		"backend":        o.disp.Which(o.op),
		"tokens":         strconv.Itoa(c.tokens),
		"positions":      pos.label,
		"generator":      goldenGenerator,
		"apply_args":     o.applyArgs(g, usesModel),
	}
	if o.m.config != "" {
		meta["config"] = o.m.config
	}
	if g.hq > 0 { // the inputs' head counts: the model's, or --heads and --kv-heads
		meta["heads"], meta["kv_heads"] = strconv.Itoa(g.hq), strconv.Itoa(g.hk)
	}
	return goldenBundle{tensors: files, meta: meta, positions: pos.label, layerType: layerType, tokens: c.tokens}, nil
}

// applyArgs is the JSON array of the flags that make `rotary apply --in BUNDLE` compute the
// bundle's outputs: the op, the model and layer when the op reads one, and every op flag given or
// chosen.
func (o *goldenOptions) applyArgs(g *goldenGen, usesModel bool) string {
	args := []string{"--op", o.op}
	add := func(name, value string) {
		// A boolean flag takes its value only as --name=value: "--name false" would end the flags.
		if b, ok := o.fs.Lookup(name).Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			args = append(args, "--"+name+"="+value)
			return
		}
		args = append(args, "--"+name, value)
	}
	if usesModel {
		if o.m.config != "" {
			add("config", o.m.config)
		} else {
			add("model", o.m.preset)
		}
		add("layer", strconv.Itoa(g.c.layer))
		var names []string
		for name := range o.modelFlags {
			if o.userSet[name] && name != "config" && name != "model" && name != "layer" {
				names = append(names, name)
			}
		}
		sort.Strings(names)
		for _, name := range names {
			add(name, o.fs.Lookup(name).Value.String())
		}
	}
	for _, name := range []string{"backend", "custom-ops"} {
		if o.userSet[name] {
			add(name, o.fs.Lookup(name).Value.String())
		}
	}
	var names []string
	for name := range o.opFlags {
		if o.userSet[name] || g.derived[name] != "" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		add(name, o.fs.Lookup(name).Value.String())
	}
	js, _ := json.Marshal(args) // strings only: cannot fail
	return string(js)
}

// goldenPositions is a parsed --positions.
type goldenPositions struct {
	kind  string // range, random or file
	start int64  // range: the first position
	limit int64  // random: positions lie below it (0: the model's cache length)
	file  tensor.Tensor
	label string
}

func parseGoldenPositions(s string) (goldenPositions, error) {
	switch {
	case s == "range" || s == "random":
		return goldenPositions{kind: s, label: s}, nil
	case strings.HasPrefix(s, "random:"):
		v, err := strconv.ParseInt(strings.TrimPrefix(s, "random:"), 10, 64)
		if err != nil || v < 1 || v > math.MaxInt32 {
			return goldenPositions{}, usagef("--positions %q: want random:N with N an integer 1..%d", s, math.MaxInt32)
		}
		return goldenPositions{kind: "random", limit: v, label: s}, nil
	case strings.HasPrefix(s, "range:"):
		v, err := strconv.ParseInt(strings.TrimPrefix(s, "range:"), 10, 64)
		if err != nil || v < 0 || v > math.MaxInt32 {
			return goldenPositions{}, usagef("--positions %q: want range:START with START an integer 0..%d", s, math.MaxInt32)
		}
		return goldenPositions{kind: "range", start: v, label: s}, nil
	case s == "":
		return goldenPositions{}, usagef("--positions: empty (want range, range:START, random, random:LIMIT or a file)")
	}
	in, err := readInputs(s)
	if err != nil {
		return goldenPositions{}, usagef("--positions: %v", err)
	}
	t, ok := in["positions"]
	if !ok {
		return goldenPositions{}, usagef("--positions %s: missing tensor %q", s, "positions")
	}
	if t.Rank() == 3 && t.Shape[1] == 1 { // rotary positions' [rows, 1, T], as apply reads it
		t.Shape = []int{t.Shape[0], t.Shape[2]}
	}
	if t.Rank() == 3 && t.Shape[1] > 1 {
		return goldenPositions{}, usagef("--positions %s: positions %s hold a batch of %d sequences: a bundle is one sequence, [rows, 1, T] (rotary positions with one row of input ids)", s, tensor.ShapeString(t.Shape), t.Shape[1])
	}
	if (t.DType != tensor.I64 && t.DType != tensor.I32) || (t.Rank() != 1 && t.Rank() != 2) || t.Len() == 0 {
		return goldenPositions{}, usagef("--positions %s: positions %v %s: want I64 or I32, [T], [rows, T] or [rows, 1, T], T ≥ 1", s, t.DType, tensor.ShapeString(t.Shape))
	}
	return goldenPositions{kind: "file", file: t, label: "file:" + s}, nil
}

// goldenMakers make each op's inputs, named and shaped as its run reads them, with the op
// flags that describe them set through goldenGen.opFlag (TestGoldenEveryOp: every op has one).
var goldenMakers = map[string]func(g *goldenGen) ([]goldenInput, error){}

// goldenInput is one named input tensor of a bundle.
type goldenInput struct {
	name string
	t    tensor.Tensor
}

// goldenGen draws one bundle's inputs. Allocation errors are sticky (err), so that the makers
// read as the list of their tensors.
type goldenGen struct {
	o       *goldenOptions
	c       goldenCase
	pos     goldenPositions
	model   *hf.Model
	spec    rotary.Spec
	rng     *rand.PCG
	limit   int64             // random positions lie in [0, limit)
	hq, hk  int               // the head counts heads gave the inputs (0: none asked)
	derived map[string]string // op flags golden chose for this bundle
	err     error
}

// opFlag is op flag name's value: the command line's when given, else value, which is set so
// that the op reads it and applyArgs records it.
func (g *goldenGen) opFlag(name, value string) string {
	f := g.o.fs.Lookup(name)
	if g.o.userSet[name] {
		return f.Value.String()
	}
	if err := f.Value.Set(value); err != nil && g.err == nil {
		g.err = usagef("--%s %q: %v", name, value, err)
	}
	g.derived[name] = value
	return value
}

// flag is op flag name's value as the op reads it.
func (g *goldenGen) flag(name string) string { return g.o.fs.Lookup(name).Value.String() }

// flagInt is an integer op flag's value.
func (g *goldenGen) flagInt(name string) int {
	n, _ := strconv.Atoi(g.flag(name)) // an int flag prints an integer
	return n
}

// resetDerived gives the flags golden chose back their defaults before the next bundle.
func (g *goldenGen) resetDerived() {
	for name := range g.derived {
		f := g.o.fs.Lookup(name)
		_ = f.Value.Set(f.DefValue) // a default always parses
	}
}

// elements checks the size of a tensor whose tokens dimension is --tokens before it is made.
func (g *goldenGen) elements(name string, shape ...int) int {
	n := shapeElements(shape)
	if n < 0 && g.err == nil {
		g.err = usagef("--tokens %d: %s %v would hold more than %d elements", g.c.tokens, name, shape, goldenMaxElements)
	}
	return n
}

// shapeElements is the element count of shape, or −1 past goldenMaxElements.
func shapeElements(shape []int) int {
	n := 1
	for _, d := range shape {
		if d < 0 || (d > 0 && n > goldenMaxElements/d) {
			return -1
		}
		n *= d
	}
	if n > goldenMaxElements {
		return -1
	}
	return n
}

// uniform draws one value in (−1, 1) on the grid (2k+1)/2^24 − 1, which float32 holds exactly.
func (g *goldenGen) uniform() float32 {
	k := g.rng.Uint64() >> 40
	return float32((float64(2*k+1) - (1 << 24)) / (1 << 24))
}

// intn draws an integer in [0, n).
func (g *goldenGen) intn(n int64) int64 { return int64(g.rng.Uint64() % uint64(n)) }

// values is a tensor of uniform values in the bundle's dtype.
func (g *goldenGen) values(name string, shape ...int) tensor.Tensor {
	n := g.elements(name, shape...)
	if n < 0 {
		return tensor.Tensor{}
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = g.uniform()
	}
	return g.cast(v, shape...)
}

// round rounds float32 values to the bundle's dtype, to nearest, ties to even.
func (g *goldenGen) round(v []float32, shape ...int) tensor.Tensor {
	if g.c.dtype == tensor.F32 {
		return tensor.FromF32(v, shape...)
	}
	bits := make([]uint16, len(v))
	_, _ = tensor.FromFloat32s(g.c.dtype, bits, v) // a 16-bit dtype and equal lengths: cannot fail
	return tensor.FromBits(g.c.dtype, bits, shape...)
}

// cast rounds random values to the bundle's dtype, keeping them inside (−1, 1): a value that
// rounds to ±1 becomes the largest magnitude below 1.
func (g *goldenGen) cast(v []float32, shape ...int) tensor.Tensor {
	d := g.c.dtype
	if d == tensor.F32 {
		return tensor.FromF32(v, shape...)
	}
	below := float32(1 - 1.0/256) // BF16's largest value below 1
	if d == tensor.F16 {
		below = 1 - 1.0/2048
	}
	bits := make([]uint16, len(v))
	for i, x := range v {
		b := tensor.FromFloat32(d, x)
		if r := tensor.ToFloat32(d, b); math.Abs(float64(x)) < 1 && math.Abs(float64(r)) >= 1 {
			b = tensor.FromFloat32(d, float32(math.Copysign(float64(below), float64(x))))
		}
		bits[i] = b
	}
	return tensor.FromBits(d, bits, shape...)
}

// positions is the bundle's positions, [T] for rows ≤ 1 or [rows, T]; a file's are used as
// given.
func (g *goldenGen) positions(rows int) tensor.Tensor {
	if g.pos.kind == "file" {
		return g.pos.file.Clone()
	}
	T := g.c.tokens
	r := max(rows, 1)
	if g.elements("positions", r, T) < 0 {
		return tensor.Tensor{}
	}
	v := make([]int64, r*T)
	for i := range v {
		if g.pos.kind == "random" {
			v[i] = g.intn(g.limit)
		} else {
			v[i] = g.pos.start + int64(i%T)
		}
	}
	if rows <= 1 {
		return tensor.FromI64(v, T)
	}
	return tensor.FromI64(v, r, T)
}

// positionRows is the row count of the model's positions: one per MRoPE section, else 1.
func (g *goldenGen) positionRows() int {
	if m := g.spec.MRoPE; m != nil {
		return len(m.Sections)
	}
	return 1
}

// heads is the inputs' query and key/value head counts: --heads and --kv-heads, else the
// model's.
func (g *goldenGen) heads() (hq, hk int) {
	hq, hk = max(g.model.NumHeads, 1), g.model.NumKVHeads
	if hk <= 0 {
		hk = hq
	}
	if g.o.heads > 0 {
		hq = g.o.heads
	}
	if g.o.kvHeads > 0 {
		hk = g.o.kvHeads
	}
	g.hq, g.hk = hq, hk
	return hq, hk
}

// registerHeads adds --heads and --kv-heads, which replace a model's head counts (golden's
// inputs, bench's shapes); of is whose counts they set.
func registerHeads(fs *flag.FlagSet, heads, kvHeads *int, of string) {
	fs.IntVar(heads, "heads", 0, of+" query head count `N` instead of the model's (a tensor-parallel shard's)")
	fs.IntVar(kvHeads, "kv-heads", 0, of+" key/value head count `N` instead of the model's (a shard's; 1 for MLA's one shared k_pe head, DeepSeek's [T,1,64])")
}

// checkHeads refuses a --heads or --kv-heads the command line gave outside 1..maxHeads.
func checkHeads(fs *flag.FlagSet) error {
	for _, name := range []string{"heads", "kv-heads"} {
		if !flagGiven(fs, name) {
			continue
		}
		if n, _ := strconv.Atoi(fs.Lookup(name).Value.String()); n < 1 || n > maxHeads {
			return usagef("--%s %d: want a head count 1..%d", name, n, maxHeads)
		}
	}
	return nil
}

// embedding is the layer's RoPE, for the ops that take cos/sin as tensors.
func (g *goldenGen) embedding() (*rotary.Embedding, error) {
	if g.spec.NoRoPE {
		return nil, usagef("--layer %d: the layer has no RoPE, so --op %s has no cos/sin to take", g.c.layer, g.o.op)
	}
	emb, err := rotary.New(g.spec, rotary.WithCacheLen(0), rotary.WithDispatcher(g.o.disp))
	if err != nil {
		return nil, usageError{err}
	}
	return emb, nil
}

// gathered is the cos/sin of the positions as rotary_embedding would use them (Embedding.Gather:
// the table the call's largest position picks, MRoPE sections mixed).
func (g *goldenGen) gathered(positions tensor.Tensor) (*rotary.CosSin, error) {
	if g.err != nil {
		return nil, g.err
	}
	emb, err := g.embedding()
	if err != nil {
		return nil, err
	}
	if g.spec.DualChunk != nil {
		return nil, usagef("--op %s: dual-chunk models map positions per query variant, so there is no one cos/sin per token (use --op rotary_embedding)", g.o.op)
	}
	cs := new(rotary.CosSin)
	if err := emb.Gather(positions, cs); err != nil {
		return nil, usagef("--positions: %v", err)
	}
	return cs, nil
}

// table is the cos/sin of positions 0..rows−1 as one call whose largest position is rows−1
// (which picks the same LongRoPE table and dynamic-NTK length as the bundle's positions).
func (g *goldenGen) table(rows int64) (*rotary.CosSin, error) {
	if g.err != nil {
		return nil, g.err
	}
	if rows < 1 || shapeElements([]int{int(min(rows, math.MaxInt32)), g.spec.RotaryDim}) < 0 {
		g.err = usagef("--positions %s: --op %s would hold cos/sin tables of %d rows (up to the largest position) × %d, more than %d elements", g.pos.label, g.o.op, rows, g.spec.RotaryDim, goldenMaxElements)
		return nil, g.err
	}
	v := make([]int64, rows)
	for i := range v {
		v[i] = int64(i)
	}
	return g.gathered(tensor.FromI64(v, int(rows)))
}

// fullWidth is the gathered cos and sin at full rotary width in style's pairing, rounded to the
// bundle's dtype, in shape (CosSin.FullWidth: the cos/sin the explicit-cos/sin ops take).
func (g *goldenGen) fullWidth(cs *rotary.CosSin, style rotary.Style, shape ...int) (cos, sin tensor.Tensor, err error) {
	cos, sin = tensor.Zeros(g.c.dtype, shape...), tensor.Zeros(g.c.dtype, shape...)
	if err := cs.FullWidth(style, cos, sin); err != nil {
		return cos, sin, usagef("--op %s: %v", g.o.op, err)
	}
	return cos, sin, nil
}

// maxPosition is the largest value of checked-shape positions.
func maxPosition(p tensor.Tensor) int64 {
	m := int64(0)
	for i := range p.Len() {
		m = max(m, p.Int64At(i))
	}
	return m
}

// rotaryModeOf is --rotary-mode's name of the spec's pairing.
func rotaryModeOf(s rotary.Spec) string {
	if s.Style == rotary.GPTJ {
		return "interleave"
	}
	return "half"
}

// layerKindOf names layer l's kind among the model's layers (layerGroups), or "all layers"
// for a model whose layers agree.
func layerKindOf(m *hf.Model, ropeName string, l int) string {
	spec := m.Spec
	if ropeName == "indexer" && m.Indexer != nil {
		spec = *m.Indexer
	}
	for _, g := range layerGroups(spec, m.NumLayers) {
		if slices.Contains(g.layers, l) {
			return g.name
		}
	}
	return "all layers"
}
