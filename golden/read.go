package golden

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rotary-go/rotary/npy"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// Set is named tensors read from safetensors and .npy files, merged: a bundle or a candidate,
// whichever format the harness that wrote it uses. The zero Set is empty and ready for Add and
// ReadFile.
type Set struct {
	// Tensors holds the tensors by name.
	Tensors map[string]tensor.Tensor
	// Order is the tensors' names in the order their files list them, file by file.
	Order []string
	// Metadata is the union of the files' metadata: where two give a key, the first one's value.
	Metadata map[string]string
	sources  map[string]string // name → where it came from
}

// ReadFiles reads every path into one Set (Set.ReadFile), merged in order. A name found in two
// paths is an error naming both; every error names the path at fault.
func ReadFiles(paths ...string) (*Set, error) {
	s := &Set{}
	for _, p := range paths {
		if err := s.ReadFile(p); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// member is one tensor of a file before it joins a Set.
type member struct {
	name   string
	t      tensor.Tensor
	source string
}

// ReadFile adds the tensors and metadata of path to s. path is a safetensors file, a
// directory of .npy files (npy.ReadDir: each file a tensor named by its stem, sourced to the
// file; the metadata from npy.MetadataFile) or a single NAME.npy file (the tensor NAME). A
// name s already holds is an error naming both sources; on any error s is unchanged.
func (s *Set) ReadFile(path string) error {
	if s == nil {
		return errNilSet
	}
	var (
		members []member
		md      map[string]string
	)
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		d, err := npy.ReadDir(path)
		if errors.Is(err, npy.ErrNoFiles) {
			return fmt.Errorf("%s: a directory with no .npy files (want a safetensors file or a directory of .npy files)", path)
		}
		if err != nil {
			return err
		}
		for _, name := range d.Names {
			members = append(members, member{name, d.Tensors[name], filepath.Join(path, name+".npy")})
		}
		md = d.Metadata
	} else if strings.HasSuffix(path, ".npy") {
		stem := strings.TrimSuffix(filepath.Base(path), ".npy")
		if stem == "" {
			return fmt.Errorf("%s: no stem to name its tensor (want NAME.npy)", path)
		}
		t, err := npy.ReadFile(path)
		if err != nil {
			return err
		}
		members = []member{{stem, t, path}}
	} else {
		ts, m, err := safetensors.ReadTensors(path)
		if err != nil {
			return err
		}
		for _, t := range ts {
			members = append(members, member{t.Name, t.Tensor, path})
		}
		md = m
	}
	for _, m := range members {
		if err := s.free(m.name, m.source); err != nil {
			return err
		}
	}
	for _, m := range members {
		s.put(m)
	}
	for k, v := range md {
		if s.Metadata == nil {
			s.Metadata = map[string]string{}
		}
		if _, ok := s.Metadata[k]; !ok {
			s.Metadata[k] = v
		}
	}
	return nil
}

// Add puts tensor t into s as name, from source (a path, or what the caller calls where it
// came from). A name s already holds is an error naming both sources, and leaves s unchanged.
func (s *Set) Add(name string, t tensor.Tensor, source string) error {
	if s == nil {
		return errNilSet
	}
	if err := s.free(name, source); err != nil {
		return err
	}
	s.put(member{name, t, source})
	return nil
}

var errNilSet = errors.New("golden: the Set is nil: make one with ReadFiles or &Set{}")

// free refuses name when s holds it already: two inputs giving one tensor.
func (s *Set) free(name, source string) error {
	if _, dup := s.Tensors[name]; dup {
		prev, ok := s.sources[name]
		if !ok {
			prev = "the Set" // put there by the caller, not by Add or ReadFile
		}
		return fmt.Errorf("tensor %q is in both %s and %s", name, prev, source)
	}
	return nil
}

func (s *Set) put(m member) {
	if s.Tensors == nil {
		s.Tensors = map[string]tensor.Tensor{}
	}
	if s.sources == nil {
		s.sources = map[string]string{}
	}
	s.Tensors[m.name] = m.t
	s.sources[m.name] = m.source
	s.Order = append(s.Order, m.name)
}
