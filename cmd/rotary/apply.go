package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/rotary-go/rotary/golden"
	"github.com/rotary-go/rotary/safetensors"
)

const applyUsage = "(--config CONFIG.json | --model PRESET) --in IN [--in IN]... --out OUT.safetensors [--op NAME] [--layer N] [--style neox|gptj] [--rope main|indexer] [--strict] [--backend NAME] [--custom-ops SPEC]"

// registerOpFlags adds every op's parameters (golden.Op.Params) as flags of their names,
// defaults and usage: every op's flags exist on every apply and golden command line.
func registerOpFlags(fs *flag.FlagSet) {
	for _, name := range golden.Names() {
		op, _ := golden.Lookup(name)
		for _, p := range op.Params {
			registerParam(fs, p)
		}
	}
}

// registerParam adds one op parameter as a flag of its kind.
func registerParam(fs *flag.FlagSet, p golden.Param) {
	switch p.Kind {
	case golden.Int:
		n, _ := strconv.Atoi(p.Default) // a declared default parses
		fs.Int(p.Name, n, p.Usage)
	case golden.Float:
		f, _ := strconv.ParseFloat(p.Default, 64)
		fs.Float64(p.Name, f, p.Usage)
	case golden.OptFloat:
		fs.Var(new(optFloat), p.Name, p.Usage)
	case golden.Bool:
		b, _ := strconv.ParseBool(p.Default)
		fs.Bool(p.Name, b, p.Usage)
	default:
		fs.String(p.Name, p.Default, p.Usage)
	}
}

// opArgs are the op flags the command line gave (or a golden's apply_args set), as the op's
// golden.Args.
func opArgs(fs *flag.FlagSet) golden.Args {
	params := golden.ParamNames()
	args := golden.Args{}
	fs.Visit(func(f *flag.Flag) {
		if slices.Contains(params, f.Name) {
			args[f.Name] = f.Value.String()
		}
	})
	return args
}

// checkOpFlags refuses a flag of another op given (given reports which were) with op name.
func checkOpFlags(name string, given func(flag string) bool) error {
	op, _ := golden.Lookup(name)
	if err := op.CheckParams(given); err != nil {
		return usageError{err}
	}
	return nil
}

// lookupApplyOp finds an op by any name canonicalOp takes.
func lookupApplyOp(name string) (*golden.Op, error) {
	canon, err := canonicalOp("--op", name)
	if err != nil {
		return nil, err
	}
	op, ok := golden.Lookup(canon)
	if !ok { // TestEveryOpCovered keeps every registered op runnable by apply
		return nil, usagef("--op %s: rotary apply cannot run it", canon)
	}
	return op, nil
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
	registerOpFlags(fs.FlagSet)
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
	bundle := readErr == nil && golden.IsBundle(inputs.Metadata)
	recordedModel := bundle && !flagGiven(fs.FlagSet, "config") && !flagGiven(fs.FlagSet, "model")
	var recordedNote string
	if bundle {
		if recordedNote, err = applyGoldenDefaults(fs.FlagSet, inputs.Metadata, inPath); err != nil {
			return err
		}
		if op, err = lookupApplyOp(*opName); err != nil {
			return err
		}
	}
	if err := checkOpFlags(op.Name, func(f string) bool { return flagGiven(fs.FlagSet, f) }); err != nil {
		return err
	}
	disp, err := df.dispatcher()
	if err != nil {
		return err
	}
	call := golden.Call{Source: inPath, Dispatcher: disp, Strict: m.strict, Notes: prefixLines{stderr, "rotary apply: "}, Layer: m.layer, Args: opArgs(fs.FlagSet)}
	needsModel := op.Model == golden.ModelRequired
	if needsModel || (op.Model == golden.ModelOptional && (m.config != "" || m.preset != "")) {
		if bundle {
			err := m.pin()
			if err == nil {
				err = m.args().CheckConfig(inputs.Metadata)
			}
			if err != nil {
				if recordedModel && (m.config != "" || m.preset != "") {
					return usagef("%v (the model recorded in the golden's apply_args; give --config or --model)", err)
				}
				return usageError{err}
			}
		}
		if call.Model, call.Spec, err = m.load(); err != nil {
			return err
		}
		if needsModel {
			warnModel(stderr, "apply", call.Model)
			if !flagGiven(fs.FlagSet, "layer") {
				noteLayerKinds(stderr, "apply", m.layer, call.Model, m.rope)
			}
		}
	} else if m.config != "" || m.preset != "" {
		return usagef("--op %s takes its cos/sin from the input tensors, not from --config/--model", *opName)
	}
	if readErr != nil {
		return readErr
	}
	call.Inputs = inputs.Tensors
	results, err := golden.Run(op.Name, call)
	if err != nil {
		return usageError{err}
	}
	if err := safetensors.WriteFile(*out, results, nil); err != nil {
		return usagef("--out: %v", err)
	}
	fmt.Fprint(stderr, recordedNote)
	if needsModel && call.Spec.NoRoPE {
		fmt.Fprintf(stderr, "rotary apply: layer %d has no RoPE: query and key written unchanged\n", m.layer)
	}
	return nil
}

// prefixLines writes each line of a note, which the library writes whole, after prefix: the
// command's name.
type prefixLines struct {
	w      io.Writer
	prefix string
}

func (p prefixLines) Write(b []byte) (int, error) {
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if line == "" {
			continue
		}
		if _, err := io.WriteString(p.w, p.prefix+line); err != nil {
			return 0, err
		}
	}
	return len(b), nil
}
