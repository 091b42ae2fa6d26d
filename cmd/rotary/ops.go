package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/rotary-go/rotary/backend/cpu"
	"github.com/rotary-go/rotary/ops"
)

// dispatchFlags are --backend and --custom-ops, shared by the commands that run ops.
type dispatchFlags struct {
	backend, customOps string
}

func (f *dispatchFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.backend, "backend", ops.Auto, "backend `NAME` that runs enabled ops: auto (best available) or a name from 'rotary ops'")
	fs.StringVar(&f.customOps, "custom-ops", "all", "which ops run their custom backend, vLLM style: all, none, +name, -name, comma-separated `SPEC`")
}

func (f *dispatchFlags) dispatcher() (*ops.Dispatcher, error) {
	d, err := ops.NewDispatcher(f.customOps, f.backend)
	if err != nil {
		return nil, usageError{err}
	}
	return d, nil
}

// canonicalOp is the one reading of an op name every command shares (apply, check, bench,
// ops): a registry name from 'rotary ops', or another stack's name for the same op
// (ops.Canonical: torch_npu's npu_rotary_mul, npu_mrope, npu_interleave_rope, ...). The error of
// an unknown name is a usage error naming the flag and listing every name taken.
func canonicalOp(flagName, name string) (string, error) {
	if canon, ok := ops.Canonical(name); ok {
		return canon, nil
	}
	return "", usagef("%s %q: want %s", flagName, name, opVocabulary())
}

// opVocabulary lists the names canonicalOp takes, for errors and -h texts.
func opVocabulary() string {
	return "one of " + strings.Join(ops.Names(), ", ") + " (or another stack's name: " + strings.Join(aliasNames(), ", ") + ")"
}

// aliasNames are the names canonicalOp takes besides the registry's, sorted, each with the op
// it names.
func aliasNames() []string {
	var out []string
	for alias, canon := range ops.Aliases() {
		out = append(out, alias+" = "+canon)
	}
	sort.Strings(out)
	return out
}

func runOps(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("ops", "[--custom-ops SPEC] [--backend NAME] [--json] [OP ...]", stderr)
	var df dispatchFlags
	df.register(fs.FlagSet)
	asJSON := fs.Bool("json", false, "print JSON, one object per op")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	// Positional names pick rows, in the vocabulary every command takes.
	var only []string
	for _, a := range fs.Args() {
		canon, err := canonicalOp("op", a)
		if err != nil {
			return err
		}
		only = append(only, canon)
	}
	d, err := df.dispatcher()
	if err != nil {
		return err
	}
	rows := d.Table()
	if only != nil {
		rows = slices.DeleteFunc(rows, func(r ops.Status) bool { return !slices.Contains(only, r.Op) })
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		for _, r := range rows {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	}
	opWidth, backendsWidth := len("op"), len("backends")
	backends := make([]string, len(rows))
	for i, r := range rows {
		backends[i] = strings.Join(r.Backends, ",")
		if r.Override != "" {
			backends[i] += " (override: " + r.Override + ")"
		}
		opWidth, backendsWidth = max(opWidth, len(r.Op)), max(backendsWidth, len(backends[i]))
	}
	fmt.Fprintf(stdout, "%-*s %-8s %-*s %s\n", opWidth, "op", "enabled", backendsWidth, "backends", "serves")
	for i, r := range rows {
		fmt.Fprintf(stdout, "%-*s %-8t %-*s %s\n", opWidth, r.Op, r.Enabled, backendsWidth, backends[i], r.Serves)
	}
	fmt.Fprintf(stdout, "\nbackend %s, custom ops %q\n", d.Backend(), df.customOps)
	impls := cpu.Implementations()
	fmt.Fprintf(stdout, "cpu kernel set %s (this machine runs %s", cpu.Active(), strings.Join(impls, ", "))
	if len(impls) > 1 {
		fmt.Fprint(stdout, "; rotary bench --backend cpu/NAME times one")
	}
	fmt.Fprintln(stdout, ")")
	fmt.Fprintf(stdout, "other stacks' names every --op takes: %s\n", strings.Join(aliasNames(), ", "))
	return nil
}
