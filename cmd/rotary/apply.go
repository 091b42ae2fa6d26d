package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

const applyUsage = "(--config CONFIG.json | --model PRESET) --in IN [--in IN]... --out OUT.safetensors [--op NAME] [--layer N] [--style neox|gptj] [--rope main|indexer] [--strict] [--backend NAME] [--custom-ops SPEC]"

// applyOp is one operator `rotary apply --op NAME` runs on the tensors of --in.
type applyOp struct {
	name    string
	summary string
	// needsModel: the op takes its RoPE from --config/--model; otherwise tensors carry it.
	needsModel bool
	// modelOptional: the op reads --config/--model when one is given, and its flags say
	// everything otherwise.
	modelOptional bool
	// flags registers the op's own flags (every op's flags exist on every apply command line).
	flags func(fs *flag.FlagSet)
	// reads are the op flags the op reads, its own and those it shares with other ops; any other
	// op's flag given with it is refused (checkOpFlags) rather than recorded and ignored.
	reads []string
	// run computes the output tensors.
	run func(env *applyEnv) ([]safetensors.Tensor, error)
	// golden makes the op's inputs for rotary golden, named and shaped as run reads them, with
	// the op flags that describe them set through goldenGen.opFlag (TestGoldenEveryOp: every op
	// has one).
	golden func(g *goldenGen) ([]goldenInput, error)
}

// applyEnv is what an op gets: the input tensors and the parsed common options.
type applyEnv struct {
	inPath string
	inputs map[string]tensor.Tensor
	disp   *ops.Dispatcher
	spec   rotary.Spec // the chosen layer's spec, when the op needs a model
	model  *hf.Model   // the model, when the op read one (nil otherwise)
	layer  int         // --layer
	strict bool        // positions past max_position_embeddings are an error, not a warning
	stderr io.Writer   // warnings
}

// tensor returns input `name`, or a usage error naming it and the file.
func (e *applyEnv) tensor(name string) (tensor.Tensor, error) {
	t, ok := e.inputs[name]
	if !ok {
		return tensor.Tensor{}, usagef("%s: missing tensor %q", e.inPath, name)
	}
	return t, nil
}

var applyOps = map[string]*applyOp{}

// registerApplyOp adds an operator to `rotary apply --op`; each op's file calls it from init.
func registerApplyOp(name string, op *applyOp) {
	if _, dup := applyOps[name]; dup {
		panic("duplicate apply op " + name)
	}
	op.name = name
	applyOps[name] = op
}

// checkOpFlags refuses a flag of another op given (given reports which were) with op name.
func checkOpFlags(name string, given func(flag string) bool) error {
	op := applyOps[name]
	for _, f := range opFlagNames() {
		if !given(f) || slices.Contains(op.reads, f) {
			continue
		}
		var readers []string
		for _, n := range applyOpNames() {
			if slices.Contains(applyOps[n].reads, f) {
				readers = append(readers, n)
			}
		}
		return usagef("--%s: --op %s does not read it (it is a flag of %s)", f, name, strings.Join(readers, ", "))
	}
	return nil
}

// opFlagNames are the flags some op reads, sorted.
func opFlagNames() []string {
	var names []string
	for _, op := range applyOps {
		for _, f := range op.reads {
			if !slices.Contains(names, f) {
				names = append(names, f)
			}
		}
	}
	sort.Strings(names)
	return names
}

// lookupApplyOp finds an op by any name canonicalOp takes.
func lookupApplyOp(name string) (*applyOp, error) {
	canon, err := canonicalOp("--op", name)
	if err != nil {
		return nil, err
	}
	op, ok := applyOps[canon]
	if !ok { // TestEveryOpCovered keeps every registered op runnable by apply
		return nil, usagef("--op %s: rotary apply cannot run it", canon)
	}
	return op, nil
}

func applyOpNames() []string {
	names := make([]string, 0, len(applyOps))
	for n := range applyOps {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func runApply(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("apply", applyUsage, stderr)
	var m modelFlags
	m.register(fs.FlagSet)
	var in inFlags
	fs.Var(&in, "in", "input `IN` (tensors as the op names them): a safetensors file, a directory of .npy files or one .npy file; repeatable, the inputs merged ("+npyBF16Note+")")
	out := fs.String("out", "", "output `OUT.safetensors`")
	opName := fs.String("op", "rotary_embedding", "operator `NAME`: "+opVocabulary())
	var df dispatchFlags
	df.register(fs.FlagSet)
	for _, name := range applyOpNames() {
		if f := applyOps[name].flags; f != nil {
			f(fs.FlagSet)
		}
	}
	fs.help = applyHelp(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	op, err := lookupApplyOp(*opName)
	if err != nil {
		return err
	}
	if err := noArgs(fs.Args()); err != nil {
		return err
	}
	if err := requireFlag("in", in.String()); err != nil {
		return err
	}
	if err := requireFlag("out", *out); err != nil {
		return err
	}
	if err := checkSafetensorsOut(*out, ""); err != nil {
		return err
	}
	inPath := strings.Join(in, " + ")
	// A golden bundle says how it was made: its apply_args are the defaults of the flags. An
	// input that cannot be read is reported after the flags and the model, as for any input.
	inputs, readErr := readInputSet(in...)
	golden := readErr == nil && isGolden(inputs.metadata)
	recordedModel := golden && !flagGiven(fs.FlagSet, "config") && !flagGiven(fs.FlagSet, "model")
	var recordedNote string
	if golden {
		if recordedNote, err = applyGoldenDefaults(fs.FlagSet, inputs.metadata, inPath); err != nil {
			return err
		}
		if op, err = lookupApplyOp(*opName); err != nil {
			return err
		}
	}
	if err := checkOpFlags(op.name, func(f string) bool { return flagGiven(fs.FlagSet, f) }); err != nil {
		return err
	}
	disp, err := df.dispatcher()
	if err != nil {
		return err
	}
	env := &applyEnv{inPath: inPath, disp: disp, strict: m.strict, stderr: stderr, layer: m.layer}
	if op.needsModel || (op.modelOptional && (m.config != "" || m.preset != "")) {
		if golden {
			if err := checkGoldenConfig(&m, inputs.metadata); err != nil {
				if recordedModel && (m.config != "" || m.preset != "") {
					return usagef("%v (the model recorded in the golden's apply_args; give --config or --model)", err)
				}
				return err
			}
		}
		if env.model, env.spec, err = m.load(); err != nil {
			return err
		}
		if op.needsModel {
			warnModel(stderr, "apply", env.model)
			if !flagGiven(fs.FlagSet, "layer") {
				noteLayerKinds(stderr, "apply", m.layer, env.model, m.rope)
			}
		}
	} else if m.config != "" || m.preset != "" {
		return usagef("--op %s takes its cos/sin from the input tensors, not from --config/--model", *opName)
	}
	if readErr != nil {
		return readErr
	}
	env.inputs = inputs.tensors
	results, err := op.run(env)
	if err != nil {
		return err
	}
	if err := safetensors.WriteFile(*out, results, nil); err != nil {
		return usagef("--out: %v", err)
	}
	fmt.Fprint(stderr, recordedNote)
	if op.needsModel && env.spec.NoRoPE {
		fmt.Fprintf(stderr, "rotary apply: layer %d has no RoPE: query and key written unchanged\n", m.layer)
	}
	return nil
}

// embedding builds the model's embedding for one call at the given positions. It holds no
// cache rows: the rows a call reads are computed for its tokens (bit for bit what a cache would
// hold), so time and memory follow the token count, never the largest position. A position
// at or past max_position_embeddings is a warning (an error under --strict).
func (e *applyEnv) embedding(positions tensor.Tensor) (*rotary.Embedding, error) {
	if err := e.checkPositions(positions); err != nil {
		return nil, err
	}
	emb, err := rotary.New(e.spec, rotary.WithCacheLen(0), rotary.WithDispatcher(e.disp))
	if err != nil {
		return nil, usageError{err}
	}
	return emb, nil
}

// checkPositions warns about (or, under --strict, refuses) positions the model was not built
// for: vLLM sizes its cos/sin cache to max_position_embeddings (original × factor for YaRN and
// static dynamic NTK, which Spec.DefaultCacheLen mirrors) and would index past it.
func (e *applyEnv) checkPositions(positions tensor.Tensor) error {
	limit := int64(e.spec.DefaultCacheLen())
	if limit <= 0 || e.spec.NoRoPE || (positions.DType != tensor.I32 && positions.DType != tensor.I64) {
		return nil // no max to compare with, or no cos/sin to look up; bad positions are the op's to refuse
	}
	largest := int64(-1)
	for i := range positions.Len() {
		largest = max(largest, positions.Int64At(i))
	}
	if largest < limit {
		return nil
	}
	msg := fmt.Sprintf("positions: %d is at or past the model's %d positions (%s: vLLM's cos/sin cache has no row for it)", largest, limit, cacheLenSource(e.spec))
	if e.strict {
		return usagef("%s", msg)
	}
	fmt.Fprintf(e.stderr, "rotary apply: warning: %s; --strict makes this an error\n", msg)
	return nil
}

// cacheLenSource says where Spec.DefaultCacheLen's count comes from, in the config's terms.
func cacheLenSource(s rotary.Spec) string {
	n := s.DefaultCacheLen()
	switch {
	case s.DualChunk != nil && n == s.DualChunk.ChunkSize && n != s.MaxPositions:
		return "dual_chunk_attention_config's chunk_size"
	case n == s.MaxPositions:
		return "max_position_embeddings"
	}
	return fmt.Sprintf("original_max_position_embeddings %d × %s factor %g", s.OriginalMax(), s.Scaling.Type, s.Scaling.Factor)
}
