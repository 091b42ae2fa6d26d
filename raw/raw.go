package raw

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rotary-go/rotary/internal/fileio"
	"github.com/rotary-go/rotary/tensor"
)

// Spec is one raw buffer: the tensor's name, dtype and shape, and the file holding its bytes.
type Spec struct {
	Name  string
	DType tensor.DType
	Shape []int
	Path  string

	given string // the text ParseSpec read, for errors
}

// ParseSpec reads NAME=DTYPE:SHAPE:FILE. DTYPE is any name tensor.ParseDType takes; SHAPE is
// non-negative dimensions separated by ',' or 'x', optionally in brackets ([16,32,128],
// 16x32x128); FILE is the rest, which may hold ':'. Errors say which part is wrong.
func ParseSpec(s string) (Spec, error) {
	spec := Spec{given: s}
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
		spec.Shape = append(spec.Shape, v)
	}
	if len(spec.Shape) == 0 {
		return spec, fmt.Errorf("SHAPE %q: want non-negative integers separated by ',' or 'x'", shape)
	}
	spec.Name, spec.DType, spec.Path = name, d, path
	return spec, nil
}

// Read reads s's buffer (ReadFile). Errors name the buffer: a shape too large to hold by the
// text ParseSpec read (its digits are the mistake), anything else by s.Name.
func (s Spec) Read() (tensor.Tensor, error) {
	if _, err := byteCount(s.DType, s.Shape); err != nil {
		label := s.given
		if label == "" {
			label = s.Name
		}
		return tensor.Tensor{}, fmt.Errorf("%s: %v", label, err)
	}
	t, err := ReadFile(s.Path, s.DType, s.Shape...)
	if err != nil {
		return tensor.Tensor{}, fmt.Errorf("%s: %v", s.Name, err)
	}
	return t, nil
}

// ReadFile reads the raw buffer at path as a contiguous tensor of dtype d and shape. The file
// must be a regular file of exactly the shape's byte count (at most tensor.MaxBytes); nothing
// is allocated before its size is known to match. Errors name the path where it matters.
func ReadFile(path string, d tensor.DType, shape ...int) (tensor.Tensor, error) {
	want, err := byteCount(d, shape)
	if err != nil {
		return tensor.Tensor{}, err
	}
	f, size, err := fileio.Open(path, -1)
	if err != nil {
		return tensor.Tensor{}, err
	}
	defer f.Close()
	if size != want {
		return tensor.Tensor{}, fmt.Errorf("%s is %d bytes, but %v %s needs exactly %d", path, size, d, tensor.ShapeString(shape), want)
	}
	t, err := tensor.New(d, slices.Clone(shape)...)
	if err != nil {
		return tensor.Tensor{}, err
	}
	if err := tensor.ReadElements(f, 0, t, false); err != nil {
		return tensor.Tensor{}, fmt.Errorf("%s: %v", path, err)
	}
	return t, nil
}

// byteCount is the byte count of a tensor of dtype d and shape, refused past tensor.MaxBytes.
func byteCount(d tensor.DType, shape []int) (int64, error) {
	size := d.Size()
	if size == 0 {
		return 0, fmt.Errorf("dtype %v: want one of a tensor's dtypes (F32, BF16, F16, F64, I64, I32, I8, U8)", d)
	}
	if slices.ContainsFunc(shape, func(n int) bool { return n < 0 }) {
		return 0, fmt.Errorf("shape %s: want non-negative dimensions", tensor.ShapeString(shape))
	}
	n := tensor.NumElements(shape)
	if n < 0 || int64(n) > tensor.MaxBytes/int64(size) {
		return 0, fmt.Errorf("shape %s of %v is larger than %d bytes", tensor.ShapeString(shape), d, tensor.MaxBytes)
	}
	return int64(n) * int64(size), nil
}
