package main

import (
	"errors"
	"io"

	"github.com/rotary-go/rotary/check"
	"github.com/rotary-go/rotary/gguf"
	"github.com/rotary-go/rotary/hf"
)

// inspectGGUF is inspect of a GGUF file: the spec llama.cpp rotates by, in inspect's form,
// and the GGUF facts it came from.
func inspectGGUF(m modelFlags, asJSON bool, stdout io.Writer) error {
	switch {
	case m.preset != "":
		return usagef("--model %s and %s: a GGUF file is the model; give one", m.preset, m.config)
	case m.as != "":
		return usagef("--as %s: a framework's reading of a config.json; a GGUF file's rules are llama.cpp's", m.as)
	case m.rope != "main":
		return usagef("--rope %s: a GGUF file has one RoPE", m.rope)
	case m.dynamic != "" && m.dynamic != "static", m.longrope != "" && m.longrope != "config", m.style != "":
		return usagef("--dynamic, --longrope-factor and --style are rules for reading a config; a GGUF file's are llama.cpp's")
	}
	f, err := gguf.ReadFile(m.config)
	if err != nil {
		return usageError{err}
	}
	r, err := check.InspectGGUF(f, m.layer)
	se, selection := errors.AsType[*hf.SelectionError](err)
	switch {
	case err == nil:
	case !selection:
		return usagef("%s: %v", m.config, err)
	case se.Arg == "rules": // no flag chose a rule
		return usageError{se.Err}
	default:
		return m.selectionError(err)
	}
	r.Source = m.config
	return writeInspect(stdout, r, asJSON)
}
