package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

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

func runOps(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("ops", "[--custom-ops SPEC] [--backend NAME] [--json]", stderr)
	var df dispatchFlags
	df.register(fs.FlagSet)
	asJSON := fs.Bool("json", false, "print JSON, one object per op")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs.Args()); err != nil {
		return err
	}
	d, err := df.dispatcher()
	if err != nil {
		return err
	}
	rows := d.Table()
	if *asJSON {
		enc := json.NewEncoder(stdout)
		for _, r := range rows {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	}
	fmt.Fprintf(stdout, "%-28s %-8s %-24s %s\n", "op", "enabled", "backends", "serves")
	for _, r := range rows {
		b := strings.Join(r.Backends, ",")
		if r.Override != "" {
			b += " (override: " + r.Override + ")"
		}
		fmt.Fprintf(stdout, "%-28s %-8t %-24s %s\n", r.Op, r.Enabled, b, r.Serves)
	}
	fmt.Fprintf(stdout, "\nbackend %s, custom ops %q\n", d.Backend(), df.customOps)
	return nil
}
