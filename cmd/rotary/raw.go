package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rotary-go/rotary/internal/fileio"
	"github.com/rotary-go/rotary/tensor"
)

// rawUsage is the -h text of --raw.
const rawUsage = "a raw little-endian buffer as tensor `NAME=DTYPE:SHAPE:FILE` (e.g. out.query=BF16:16,32,128:q.bin; FILE must hold exactly the shape's bytes; repeatable)"

// rawSpec is one --raw: a tensor whose bytes a hardware harness dumped, row-major and
// little-endian, with no header.
type rawSpec struct {
	name  string
	dtype tensor.DType
	shape []int
	path  string
	text  string // as given, for errors
}

// rawFlags collects --raw values; each is checked as it is parsed.
type rawFlags []rawSpec

func (r *rawFlags) String() string { return "" }

func (r *rawFlags) Set(s string) error {
	spec, err := parseRawSpec(s)
	if err != nil {
		return err
	}
	*r = append(*r, spec)
	return nil
}

// parseRawSpec reads NAME=DTYPE:SHAPE:FILE. SHAPE is dimensions separated by ',' or 'x',
// optionally in brackets; FILE is the rest (it may hold ':').
func parseRawSpec(s string) (rawSpec, error) {
	spec := rawSpec{text: s}
	name, rest, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return spec, fmt.Errorf("want NAME=DTYPE:SHAPE:FILE")
	}
	dt, rest, ok := strings.Cut(rest, ":")
	if !ok {
		return spec, fmt.Errorf("want NAME=DTYPE:SHAPE:FILE")
	}
	shape, path, ok := strings.Cut(rest, ":")
	if !ok || path == "" {
		return spec, fmt.Errorf("want NAME=DTYPE:SHAPE:FILE")
	}
	d, err := tensor.ParseDType(dt)
	if err != nil {
		return spec, err
	}
	shape = strings.TrimSuffix(strings.TrimPrefix(shape, "["), "]")
	if shape == "" {
		return spec, fmt.Errorf("empty SHAPE (want dimensions such as 16,32,128)")
	}
	for _, f := range strings.FieldsFunc(shape, func(r rune) bool { return r == ',' || r == 'x' }) {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < 0 {
			return spec, fmt.Errorf("SHAPE %q: want non-negative integers separated by ',' or 'x'", shape)
		}
		spec.shape = append(spec.shape, v)
	}
	if len(spec.shape) == 0 {
		return spec, fmt.Errorf("SHAPE %q: want non-negative integers separated by ',' or 'x'", shape)
	}
	spec.name, spec.dtype, spec.path = name, d, path
	return spec, nil
}

// readRaw reads the buffer of spec. The file must be a regular file of exactly the shape's
// byte count; nothing is allocated before its size is known to match.
func readRaw(spec rawSpec) (tensor.Tensor, error) {
	n := tensor.NumElements(spec.shape)
	if n < 0 || int64(n) > tensor.MaxBytes/int64(spec.dtype.Size()) {
		return tensor.Tensor{}, usagef("--raw %s: shape %s of %v is larger than %d bytes", spec.text, tensor.ShapeString(spec.shape), spec.dtype, tensor.MaxBytes)
	}
	want := int64(n) * int64(spec.dtype.Size())
	f, size, err := fileio.Open(spec.path, -1)
	if err != nil {
		return tensor.Tensor{}, usagef("--raw %s: %v", spec.name, err)
	}
	defer f.Close()
	if size != want {
		return tensor.Tensor{}, usagef("--raw %s: %s is %d bytes, but %v %s needs exactly %d", spec.name, spec.path, size, spec.dtype, tensor.ShapeString(spec.shape), want)
	}
	t, err := tensor.New(spec.dtype, spec.shape...)
	if err != nil {
		return tensor.Tensor{}, usagef("--raw %s: %v", spec.name, err)
	}
	if err := tensor.ReadElements(f, 0, t, false); err != nil {
		return tensor.Tensor{}, usagef("--raw %s: %s: %v", spec.name, spec.path, err)
	}
	return t, nil
}

// addRaw reads every --raw into s.
func (s *inputSet) addRaw(specs []rawSpec) error {
	for _, spec := range specs {
		t, err := readRaw(spec)
		if err != nil {
			return err
		}
		if err := s.add(spec.name, t, spec.path+" (--raw)"); err != nil {
			return err
		}
	}
	return nil
}
