package main

// The .npy interchange (package npy) as the commands read it: a directory of .npy files is
// an input like a safetensors file, its tensors and metadata merged into the input set.

import (
	"errors"
	"path/filepath"
	"strings"

	"github.com/rotary-go/rotary/npy"
)

const npyBF16Note = "BF16 travels in .npy as its uint16 bits ('<u2'), and a uint16 .npy is read as BF16"

func npyStem(path string) string { return strings.TrimSuffix(filepath.Base(path), ".npy") }

// readNPYDir adds the .npy files of dir to s, each named by its stem and sourced to its file,
// and their metadata (see npy.ReadDir). A directory with no .npy file is refused as no input.
func readNPYDir(dir string, s *inputSet) error {
	d, err := npy.ReadDir(dir)
	if errors.Is(err, npy.ErrNoFiles) {
		return usagef("%s: a directory with no .npy files (want a safetensors file or a directory of .npy files)", dir)
	}
	if err != nil {
		return usageError{err}
	}
	for _, name := range d.Names {
		if err := s.add(name, d.Tensors[name], filepath.Join(dir, name+".npy")); err != nil {
			return err
		}
	}
	s.addMetadata(d.Metadata)
	return nil
}
