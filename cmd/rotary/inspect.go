package main

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"

	"github.com/rotary-go/rotary/check"
	"github.com/rotary-go/rotary/gguf"
	"github.com/rotary-go/rotary/hf"
)

const inspectUsage = "CONFIG.json | FILE.gguf | --model PRESET [--layer N] [--style neox|gptj] [--rope main|indexer] [--json]"

func runInspect(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("inspect", inspectUsage, stderr)
	var m modelFlags
	m.register(fs.FlagSet)
	asJSON := fs.Bool("json", false, "print JSON")
	// The config may come before or after the flags.
	var positional []string
	for len(args) > 0 {
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		args = fs.Args()
		if len(args) > 0 {
			positional = append(positional, args[0])
			args = args[1:]
		}
	}
	switch {
	case len(positional) > 1:
		return usagef("unexpected argument %q", positional[1])
	case len(positional) == 1 && m.config != "":
		return usagef("give the config once (as an argument or --config)")
	case len(positional) == 1:
		m.config = positional[0]
	}
	if gguf.IsFile(m.config) {
		return inspectGGUF(m, *asJSON, stdout)
	}
	if err := presetNotFile(m.config); err != nil {
		return err
	}
	model, sel, err := m.model()
	if err != nil {
		return err
	}
	r, err := check.Inspect(model, sel)
	if err != nil {
		return m.selectionError(err)
	}
	r.Source = m.config
	if m.preset != "" {
		r.Source = "preset " + m.preset
	}
	return writeInspect(stdout, r, *asJSON)
}

// writeInspect prints the report, as JSON under --json.
func writeInspect(stdout io.Writer, r *check.InspectReport, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	r.WriteText(stdout)
	return nil
}

// presetNotFile refuses a config path that is no file but a preset's name, saying how to name
// the preset; any other path is left to the loader's own error.
func presetNotFile(path string) error {
	if path == "" {
		return nil
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if _, err := hf.PresetJSON(path); err != nil {
		return nil
	}
	return usagef("%s: no such file, but a preset has that name: rotary inspect --model %s", path, path)
}
