package main

import (
	"fmt"
	"io"

	"github.com/rotary-go/rotary/check"
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
	names := hf.PresetNames()
	models := make([]*hf.Model, len(names))
	nameWidth, typeWidth := 0, 0
	for i, name := range names {
		m, err := hf.Preset(name)
		if err != nil {
			return err
		}
		models[i] = m
		nameWidth, typeWidth = max(nameWidth, len(name)), max(typeWidth, len(m.ModelType))
	}
	for i, m := range models {
		fmt.Fprintf(stdout, "%-*s %-*s %s\n", nameWidth, names[i], typeWidth, m.ModelType, check.SpecWords(m.Spec))
	}
	return nil
}
