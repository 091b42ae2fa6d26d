package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/golden"
	"github.com/rotary-go/rotary/hf"
)

// A golden bundle's metadata records how `rotary apply` reproduces its outputs: apply_args, the
// JSON list of flags rotary golden wrote (each "--name value", booleans "--name=value"), and
// config_sha256, the SHA-256 of the config JSON the model came from.
const (
	metaApplyArgs = "apply_args"
	metaConfigSum = "config_sha256"
	metaModel     = "model"
)

// isGolden reports whether metadata is a golden bundle's: it records apply_args, the model and
// its config's hash.
func isGolden(metadata map[string]string) bool {
	return metadata[metaApplyArgs] != "" && metadata[metaModel] != "" && metadata[metaConfigSum] != ""
}

// setRecordedArgs sets on fs the flags of a golden's apply_args for which take returns true, as
// fs.Parse would from a command line, and returns them as recorded. A flag take wants that fs
// does not define is an error: the bundle asks for something this command cannot do.
func setRecordedArgs(fs *flag.FlagSet, applyArgs string, take func(name string) bool) ([]string, error) {
	flags, readErr := golden.ReadApplyArgs(applyArgs, func(name string) bool { return isBoolFlag(fs.Lookup(name)) })
	var used []string
	for _, f := range flags {
		if !take(f.Name) {
			continue
		}
		if fs.Lookup(f.Name) == nil {
			return nil, fmt.Errorf("the golden's apply_args: flag --%s is not one this rotary takes", f.Name)
		}
		if err := fs.Set(f.Name, f.Value); err != nil {
			return nil, fmt.Errorf("the golden's apply_args: --%s %q: %v", f.Name, f.Value, err)
		}
		used = append(used, f.Text)
	}
	if readErr != nil {
		return nil, readErr
	}
	return used, nil
}

func isBoolFlag(f *flag.Flag) bool {
	if f == nil {
		return false
	}
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// goldenModelFlags reads the model flags of a golden's apply_args (the op's own flags, which
// the explained ops do not have, are skipped).
func goldenModelFlags(applyArgs string) (*modelFlags, error) {
	fs := flag.NewFlagSet("apply_args", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	m := new(modelFlags)
	m.register(fs)
	if _, err := setRecordedArgs(fs, applyArgs, func(name string) bool { return fs.Lookup(name) != nil }); err != nil {
		return nil, err
	}
	return m, nil
}

// applyGoldenDefaults makes a golden bundle's recorded apply_args the defaults of apply's flags:
// a flag the command line gave wins, and --config and --model count as one choice (either given
// replaces the recorded one); an --op other than the recorded one takes none of them. It returns the stderr line that says which it used, for a run
// that succeeds.
func applyGoldenDefaults(fs *flag.FlagSet, metadata map[string]string, inPath string) (string, error) {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if given["op"] {
		// The recorded flags are the recorded op's: another op asked for takes none of them.
		if op, err := canonicalOp("--op", fs.Lookup("op").Value.String()); err != nil || op != metadata["op"] {
			return "", nil
		}
	}
	modelGiven := given["config"] || given["model"]
	used, err := setRecordedArgs(fs, metadata[metaApplyArgs], func(name string) bool {
		if name == "config" || name == "model" {
			return !modelGiven
		}
		return !given[name]
	})
	if err != nil {
		return "", usagef("--in %s: %v", inPath, err)
	}
	if len(used) == 0 {
		return "", nil
	}
	return fmt.Sprintf("rotary apply: --in %s is a golden bundle: used its recorded %s (flags given override them)\n", inPath, strings.Join(used, " ")), nil
}

// modelJSON is the config JSON m's model comes from (--config's file, or the preset's), for its
// hash: what golden records as config_sha256.
func modelJSON(m *modelFlags) ([]byte, error) {
	switch {
	case m.config != "" && m.preset != "":
		return nil, usagef("--config and --model: give one, not both")
	case m.config != "":
		b, err := readConfig(m.config)
		if err != nil {
			return nil, usagef("--config: %v", err)
		}
		return b, nil
	case m.preset != "":
		b, err := hf.PresetJSON(m.preset)
		if err != nil {
			return nil, usagef("--model: %v", err)
		}
		return b, nil
	}
	return nil, usagef("--config: missing (or --model PRESET)")
}

// checkGoldenConfig refuses a model whose config is not the one a golden bundle was made from:
// its outputs would differ from the bundle's, silently.
func checkGoldenConfig(m *modelFlags, metadata map[string]string) error {
	b, err := modelJSON(m)
	if err != nil {
		return err
	}
	want := metadata[metaConfigSum]
	if got := golden.ConfigSum(b); got != want {
		what := "--model " + m.preset
		if m.config != "" {
			what = "--config " + m.config
		}
		return usagef("%s: its config's sha256 is %s, the golden bundle's config_sha256 %s (model %s): not the config the bundle was made from", what, got, want, metadata[metaModel])
	}
	return nil
}

// recordedModel is the model of a golden's apply_args as apply loads it, model flags and all,
// and the recorded layer: explain.GoldenCase's Model for verify.
func recordedModel(applyArgs string) (golden.Model, int, error) {
	m, err := goldenModelFlags(applyArgs)
	if err != nil {
		return golden.Model{}, 0, err
	}
	return golden.Model{Load: loadAt(*m)}, m.layer, nil
}

// loadAt is golden.Model's Load for the model m's flags choose: m.load at the layer asked for.
func loadAt(m modelFlags) func(layer int) (*hf.Model, rotary.Spec, error) {
	return func(layer int) (*hf.Model, rotary.Spec, error) {
		m.layer = layer
		return m.load()
	}
}
