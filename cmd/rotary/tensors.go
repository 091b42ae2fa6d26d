package main

import (
	"errors"
	"os"
	"strings"

	"github.com/rotary-go/rotary/npy"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

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

// inputSet is the tensors of one or more inputs, merged.
type inputSet struct {
	tensors  map[string]tensor.Tensor
	order    []string          // names in the order their inputs list them, input by input
	from     map[string]string // name → the input it came from
	metadata map[string]string // the union of the inputs' metadata (the first input's value wins)
}

func newInputSet() *inputSet {
	return &inputSet{tensors: map[string]tensor.Tensor{}, from: map[string]string{}}
}

// add puts tensor name from source into the set; a name already there is an error naming
// both sources.
func (s *inputSet) add(name string, t tensor.Tensor, source string) error {
	if prev, dup := s.from[name]; dup {
		return usagef("tensor %q is in both %s and %s", name, prev, source)
	}
	s.tensors[name] = t
	s.from[name] = source
	s.order = append(s.order, name)
	return nil
}

func (s *inputSet) addMetadata(md map[string]string) {
	for k, v := range md {
		if s.metadata == nil {
			s.metadata = map[string]string{}
		}
		if _, ok := s.metadata[k]; !ok {
			s.metadata[k] = v
		}
	}
}

// readInputs reads the tensors of every path, merged and keyed by name (see readInputSet).
func readInputs(paths ...string) (map[string]tensor.Tensor, error) {
	s, err := readInputSet(paths...)
	if err != nil {
		return nil, err
	}
	return s.tensors, nil
}

// readInputSet is the one way the tool reads input tensors. Each path is a safetensors file,
// a directory of .npy files (one tensor per file, named by the file's stem; see readNPYDir),
// or a single .npy file (one tensor named by its stem). A name found in two inputs is an
// error naming both. Every error is a usage error (exit 2) naming the path.
func readInputSet(paths ...string) (*inputSet, error) {
	s := newInputSet()
	for _, p := range paths {
		if err := s.read(p); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *inputSet) read(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return readNPYDir(path, s)
	}
	if strings.HasSuffix(path, ".npy") {
		if npyStem(path) == "" {
			return usagef("%s: no stem to name its tensor (want NAME.npy)", path)
		}
		t, err := npy.ReadFile(path)
		if err != nil {
			return usageError{err}
		}
		return s.add(npyStem(path), t, path)
	}
	ts, md, err := safetensors.ReadTensors(path)
	if err != nil {
		return usageError{err}
	}
	for _, t := range ts {
		if err := s.add(t.Name, t.Tensor, path); err != nil {
			return err
		}
	}
	s.addMetadata(md)
	return nil
}
