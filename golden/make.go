package golden

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

const (
	// DefaultTokens is a bundle's token count when Options.Tokens is 0.
	DefaultTokens = 16
	// MaxTokens bounds Options.Tokens; maxElements bounds any one tensor of a bundle (1 GiB of
	// F32), so that a typo costs an error rather than the machine's memory.
	MaxTokens   = 1 << 20
	maxElements = 1 << 28
	// MaxHeads bounds Options.Heads and KVHeads: DeepSeek-V3 has 128 query heads; a count far
	// past any model's is a typo.
	MaxHeads = 1 << 12
	// stream is the PCG stream (its second seed word) of every bundle: "rotary" in ASCII.
	stream = 0x726f74617279
	// blockSize is the block size of the paged caches of kv_rmsnorm_rope_cache's PA modes.
	blockSize = 16
	// defaultKVLoraRank is Dv of kv_rmsnorm_rope_cache when the config has no kv_lora_rank
	// (DeepSeek-V2/V3's).
	defaultKVLoraRank = 512
)

// generator says how a bundle's values are drawn, in its metadata: a reader can rebuild the
// inputs without this package.
const generator = "math/rand/v2 PCG (DXSM) seeded (seed, 0x726f74617279), one Uint64 per draw in tensor order; " +
	"a value is (2·(u>>40)+1)/2^24 − 1, exact in float32, then rounded to the dtype (a 16-bit result of magnitude 1 becomes the largest below 1); " +
	"a random position is u mod limit; slots are a Fisher–Yates shuffle with u mod (i+1)"

// Model is the model a bundle's RoPE comes from.
type Model struct {
	// Name is the bundle's metadata "model": a preset's name or the config's model_type.
	Name string
	// JSON is the config.json the model was read from: its SHA-256 is the bundle's
	// config_sha256, and it gives the keys a spec does not carry (rms_norm_eps, kv_lora_rank).
	JSON []byte
	// Config is the config's path, recorded as the metadata "config" ("" for a preset).
	Config string
	// Source are the `rotary apply` flags that choose the model (["--model", "NAME"] or
	// ["--config", "PATH"]) and Flags the model flags after --layer, each "--name value" or
	// "--name=value": what apply_args record when the op reads the model.
	Source, Flags []string
	// Indexer: the RoPE is DeepSeek-V3.2's indexer's (hf.Model.Indexer), not the attention's.
	Indexer bool
	// Load returns the model and the RoPE of layer.
	Load func(layer int) (*hf.Model, rotary.Spec, error)
}

// Options say what bundle to make.
type Options struct {
	// Op is the op (a registry name or another stack's name for it); "" is rotary_embedding,
	// or mrope for an MRoPE model.
	Op    string
	Model Model
	Layer int
	DType tensor.DType // F32, BF16 or F16
	// Tokens is the token count; 0 is DefaultTokens, or a positions tensor's count.
	Tokens    int
	Seed      uint64
	Positions Positions // the zero value is range
	// Heads and KVHeads replace the model's head counts (0: the model's).
	Heads, KVHeads int
	// KVQuant is kv_rmsnorm_rope_cache's caches: none (or ""), sym or asym (int8).
	KVQuant string
	// Args are the op's parameters; those the inputs fix (--head-size, --rotary-mode, ...) are
	// set unless given.
	Args       Args
	Dispatcher *ops.Dispatcher // nil: ops.Default
	// DispatchFlags are the apply flags that chose Dispatcher (--backend, --custom-ops), for
	// apply_args.
	DispatchFlags []string
	// Notes receives one line per note, each ending in a newline (nil: dropped).
	Notes io.Writer
}

// Bundle is one golden bundle: the op's inputs, its outputs under out.NAME, and metadata
// (apply_args: the JSON list of flags after which `rotary apply --in BUNDLE` computes the
// outputs). The outputs are encoded as they are written (safetensors.Streamed): write the
// bundle (safetensors.Write, npy.WriteFiles) to read their bytes.
type Bundle struct {
	Tensors  []safetensors.Tensor
	Metadata map[string]string
	// Entry is what a suite's index lists; its File is a stem for the writer to complete.
	Entry IndexEntry
}

// IndexEntry is one bundle of a suite's index.json.
type IndexEntry struct {
	File      string `json:"file"`
	Op        string `json:"op"`
	Model     string `json:"model"`
	DType     string `json:"dtype"`
	Tokens    int    `json:"tokens"`
	Positions string `json:"positions"`
	Layer     int    `json:"layer"`
	LayerType string `json:"layer_type"`
	Seed      uint64 `json:"seed"`
}

// bundleCase is what varies between the bundles of a suite.
type bundleCase struct {
	dtype     tensor.DType
	tokens    int
	positions Positions
	layer     int
}

// Make makes one bundle: the op's inputs drawn from the seed, and its outputs computed by Run.
func Make(o Options) (Bundle, error) {
	if err := o.check(); err != nil {
		return Bundle{}, err
	}
	return o.bundle(bundleCase{dtype: o.DType, tokens: o.Tokens, positions: o.Positions, layer: o.Layer}, false)
}

// DefaultOp is the op of a bundle made without one: mrope for a spec with MRoPE sections,
// rotary_embedding for any other.
func DefaultOp(spec rotary.Spec) string {
	if spec.MRoPE != nil {
		return "mrope"
	}
	return "rotary_embedding"
}

// check refuses options no bundle has, and fills in the defaults.
func (o *Options) check() error {
	if o.Model.Load == nil {
		return fmt.Errorf("golden: Options.Model.Load: missing")
	}
	if o.Op == "" {
		_, spec, err := o.Model.Load(o.Layer)
		if err != nil {
			return err
		}
		o.Op = DefaultOp(spec)
	}
	op, ok := Lookup(o.Op)
	if !ok {
		return fmt.Errorf("--op %q: want one of %s", o.Op, strings.Join(Names(), ", "))
	}
	o.Op = op.Name
	if op.inputs == nil { // TestEveryOpMakesInputs keeps every op covered
		return fmt.Errorf("--op %s: rotary golden cannot make its inputs", o.Op)
	}
	if !o.DType.IsFloat() {
		return fmt.Errorf("--dtype %v: want F32, BF16 or F16", o.DType)
	}
	if o.Tokens < 0 || o.Tokens > MaxTokens {
		return fmt.Errorf("--tokens %d: want 1..%d", o.Tokens, MaxTokens)
	}
	for _, h := range []struct {
		name string
		n    int
	}{{"heads", o.Heads}, {"kv-heads", o.KVHeads}} {
		if h.n < 0 || h.n > MaxHeads {
			return fmt.Errorf("--%s %d: want a head count 1..%d", h.name, h.n, MaxHeads)
		}
	}
	switch o.KVQuant {
	case "":
		o.KVQuant = "none"
	case "none", "sym", "asym":
	default:
		return fmt.Errorf("--kv-quant %q: want none, sym or asym", o.KVQuant)
	}
	if o.KVQuant != "none" && o.Op != "kv_rmsnorm_rope_cache" {
		return fmt.Errorf("--kv-quant %s: only --op kv_rmsnorm_rope_cache has quantised caches", o.KVQuant)
	}
	args, err := o.Args.Normalize()
	if err != nil {
		return err
	}
	if err := op.CheckParams(args.given); err != nil {
		return err
	}
	o.Args = args
	if o.Positions.kind == "" {
		o.Positions = Positions{kind: "range", Label: "range"}
	}
	if o.Dispatcher == nil {
		o.Dispatcher = ops.Default
	}
	if o.Notes == nil {
		o.Notes = io.Discard
	}
	return nil
}

// bundle makes the bundle of case c; in a suite, the notes a suite's index replaces are left
// out.
func (o *Options) bundle(c bundleCase, suite bool) (Bundle, error) {
	model, spec, err := o.Model.Load(c.layer)
	if err != nil {
		return Bundle{}, err
	}
	if model == nil {
		return Bundle{}, fmt.Errorf("golden: Options.Model.Load(%d) returned no model", c.layer)
	}
	pos := c.positions
	if c.tokens == 0 {
		c.tokens = DefaultTokens
	}
	if pos.kind == "file" {
		n := pos.file.Shape[pos.file.Rank()-1]
		if o.Tokens != 0 && n != c.tokens {
			return Bundle{}, fmt.Errorf("--tokens %d: the positions file holds %d tokens", c.tokens, n)
		}
		c.tokens = n
	}
	g := &gen{o: o, c: c, pos: pos, model: model, spec: spec, disp: o.Dispatcher, rng: rand.NewPCG(o.Seed, stream),
		args: maps.Clone(o.Args)}
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
	op, _ := Lookup(o.Op)
	inputs, err := op.inputs(g)
	if err == nil {
		err = g.err
	}
	if err != nil {
		return Bundle{}, err
	}
	if (o.Heads > 0 || o.KVHeads > 0) && g.hq == 0 {
		return Bundle{}, fmt.Errorf("--heads, --kv-heads: --op %s's inputs have no heads to count", o.Op)
	}

	usesModel := op.Model == ModelRequired || (op.Model == ModelOptional && !o.Args.given("query-scale"))
	call := Call{Source: "golden inputs", Inputs: map[string]tensor.Tensor{}, Dispatcher: o.Dispatcher, Spec: spec, Layer: c.layer, Notes: o.Notes, Args: g.args}
	if usesModel {
		call.Model = model
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
	results, err := Run(o.Op, call)
	if err != nil {
		return Bundle{}, err
	}
	if op.Model == ModelRequired && spec.NoRoPE && !suite {
		fmt.Fprintf(o.Notes, "layer %d has no RoPE: the expected outputs equal the inputs\n", c.layer)
	}
	for _, r := range results {
		r.Name = OutPrefix + r.Name
		files = append(files, r)
	}
	layerType := o.layerKind(model, c.layer)
	meta := map[string]string{
		"rotary_version": Version(),
		"op":             o.Op,
		"model":          o.Model.Name,
		"config_sha256":  ConfigSum(o.Model.JSON),
		"dtype":          c.dtype.String(),
		"seed":           strconv.FormatUint(o.Seed, 10),
		"layer":          strconv.Itoa(c.layer),
		"layer_type":     layerType,
		"backend":        o.Dispatcher.Which(o.Op),
		"tokens":         strconv.Itoa(c.tokens),
		"positions":      pos.Label,
		"generator":      generator,
		"apply_args":     o.applyArgs(g, usesModel),
	}
	if o.Model.Config != "" {
		meta["config"] = o.Model.Config
	}
	if g.hq > 0 { // the inputs' head counts: the model's, or Heads and KVHeads
		meta["heads"], meta["kv_heads"] = strconv.Itoa(g.hq), strconv.Itoa(g.hk)
	}
	entry := IndexEntry{Op: o.Op, Model: o.Model.Name, DType: c.dtype.String(), Tokens: c.tokens, Positions: pos.Label, Layer: c.layer, LayerType: layerType, Seed: o.Seed}
	return Bundle{Tensors: files, Metadata: meta, Entry: entry}, nil
}

// applyArgs is the JSON array of the flags that make `rotary apply --in BUNDLE` compute the
// bundle's outputs: the op, the model and layer when the op reads one, the dispatch flags,
// and every op parameter given or chosen, sorted (a Bool one as --name=value: "--name false"
// would end the flags).
func (o *Options) applyArgs(g *gen, usesModel bool) string {
	args := []string{"--op", o.Op}
	if usesModel {
		args = append(args, o.Model.Source...)
		args = append(args, "--layer", strconv.Itoa(g.c.layer))
		args = append(args, o.Model.Flags...)
	}
	args = append(args, o.DispatchFlags...)
	var names []string
	for name := range g.args {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if p, _ := paramOf(name); p.Kind == Bool {
			args = append(args, "--"+name+"="+g.args[name])
		} else {
			args = append(args, "--"+name, g.args[name])
		}
	}
	js, _ := json.Marshal(args) // strings only: cannot fail
	return string(js)
}

// layerKind names layer l's kind among the model's layers (LayerKinds), or "all layers" for a
// model whose layers agree.
func (o *Options) layerKind(m *hf.Model, l int) string {
	for _, k := range LayerKinds(o.Model.base(m), m.NumLayers) {
		if slices.Contains(k.Layers, l) {
			return k.Name
		}
	}
	return "all layers"
}

// base is the model's RoPE before the per-layer rules: the attention's, or the indexer's.
func (mo Model) base(m *hf.Model) rotary.Spec {
	if mo.Indexer && m.Indexer != nil {
		return *m.Indexer
	}
	return m.Spec
}
