package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/rotary-go/rotary/golden"
)

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
	used, err := setRecordedArgs(fs, metadata["apply_args"], func(name string) bool {
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
