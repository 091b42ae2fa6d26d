package main

import (
	"fmt"
	"io"

	"github.com/rotary-go/rotary/hf"
)

func runPresets(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("presets", "", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs.Args()); err != nil {
		return err
	}
	for _, name := range hf.PresetNames() {
		m, err := hf.Preset(name)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%-26s %-16s %s\n", name, m.ModelType, describeScaling(m.Spec))
	}
	return nil
}
