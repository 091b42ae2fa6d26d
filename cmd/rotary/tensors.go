package main

import (
	"errors"
	"strings"

	"github.com/rotary-go/rotary/golden"
	"github.com/rotary-go/rotary/tensor"
)

const npyBF16Note = "BF16 travels in .npy as its uint16 bits ('<u2'), and a uint16 .npy is read as BF16"

// inFlags collects the values of a repeatable input flag (apply --in).
type inFlags []string

func (f *inFlags) String() string { return strings.Join(*f, ",") }

func (f *inFlags) Set(s string) error {
	if s == "" {
		return errors.New("want a path")
	}
	*f = append(*f, s)
	return nil
}

// readInputSet is the one way the tool reads input tensors (golden.ReadFiles: safetensors
// files, .npy directories and files, merged); every error is a usage error (exit 2).
func readInputSet(paths ...string) (*golden.Set, error) {
	s, err := golden.ReadFiles(paths...)
	if err != nil {
		return nil, usageError{err}
	}
	return s, nil
}

// readInputs is readInputSet's tensors.
func readInputs(paths ...string) (map[string]tensor.Tensor, error) {
	s, err := readInputSet(paths...)
	if err != nil {
		return nil, err
	}
	return s.Tensors, nil
}
