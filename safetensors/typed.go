package safetensors

import (
	"encoding/binary"
	"math"

	"github.com/rotary-go/rotary/internal/errs"
)

// elements checks that t has one of the dtypes in want and that its Data is
// consistent with its Shape, and returns the element count.
func (t Tensor) elements(want ...string) (int, error) {
	ok := false
	for _, d := range want {
		if t.DType == d {
			ok = true
			break
		}
	}
	if !ok {
		if len(want) == 1 {
			return 0, errs.Wrapf(ErrDType, "tensor %q has dtype %q, want %s", t.Name, t.DType, want[0])
		}
		return 0, errs.Wrapf(ErrDType, "tensor %q has dtype %q, want one of %v", t.Name, t.DType, want)
	}
	size, _ := ElemSize(t.DType)
	nbytes, ok := byteSize(t.Shape, size)
	if !ok {
		return 0, invalidf("tensor %q: shape %v is negative or overflows", t.Name, t.Shape)
	}
	if len(t.Data) != nbytes {
		return 0, invalidf("tensor %q: len(Data) = %d, but dtype %s and shape %v need %d bytes",
			t.Name, len(t.Data), t.DType, t.Shape, nbytes)
	}
	return nbytes / size, nil
}

// Float32s decodes an F32 tensor.
func (t Tensor) Float32s() ([]float32, error) {
	n, err := t.elements("F32")
	if err != nil {
		return nil, err
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(t.Data[4*i:]))
	}
	return v, nil
}

// Float64s decodes an F64 tensor.
func (t Tensor) Float64s() ([]float64, error) {
	n, err := t.elements("F64")
	if err != nil {
		return nil, err
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(t.Data[8*i:]))
	}
	return v, nil
}

// Uint16s returns the raw 16-bit elements of an F16, BF16, U16 or I16 tensor.
func (t Tensor) Uint16s() ([]uint16, error) {
	n, err := t.elements("F16", "BF16", "U16", "I16")
	if err != nil {
		return nil, err
	}
	v := make([]uint16, n)
	for i := range v {
		v[i] = binary.LittleEndian.Uint16(t.Data[2*i:])
	}
	return v, nil
}

// Int32s decodes an I32 tensor.
func (t Tensor) Int32s() ([]int32, error) {
	n, err := t.elements("I32")
	if err != nil {
		return nil, err
	}
	v := make([]int32, n)
	for i := range v {
		v[i] = int32(binary.LittleEndian.Uint32(t.Data[4*i:]))
	}
	return v, nil
}

// Int64s decodes an I64 tensor.
func (t Tensor) Int64s() ([]int64, error) {
	n, err := t.elements("I64")
	if err != nil {
		return nil, err
	}
	v := make([]int64, n)
	for i := range v {
		v[i] = int64(binary.LittleEndian.Uint64(t.Data[8*i:]))
	}
	return v, nil
}

// Int8s decodes an I8 tensor.
func (t Tensor) Int8s() ([]int8, error) {
	n, err := t.elements("I8")
	if err != nil {
		return nil, err
	}
	v := make([]int8, n)
	for i := range v {
		v[i] = int8(t.Data[i])
	}
	return v, nil
}

// The From* constructors copy shape and encode v; they do not check that len(v)
// matches shape (Write does).

// FromFloat32s returns an F32 tensor holding v.
func FromFloat32s(name string, shape []int, v []float32) Tensor {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return Tensor{Name: name, DType: "F32", Shape: copyShape(shape), Data: b}
}

// FromFloat64s returns an F64 tensor holding v.
func FromFloat64s(name string, shape []int, v []float64) Tensor {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return Tensor{Name: name, DType: "F64", Shape: copyShape(shape), Data: b}
}

// FromUint16s returns a tensor of the given 16-bit dtype (F16, BF16, U16 or I16)
// holding the raw elements v.
func FromUint16s(name, dtype string, shape []int, v []uint16) Tensor {
	b := make([]byte, 2*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint16(b[2*i:], x)
	}
	return Tensor{Name: name, DType: dtype, Shape: copyShape(shape), Data: b}
}

// FromInt32s returns an I32 tensor holding v.
func FromInt32s(name string, shape []int, v []int32) Tensor {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return Tensor{Name: name, DType: "I32", Shape: copyShape(shape), Data: b}
}

// FromInt64s returns an I64 tensor holding v.
func FromInt64s(name string, shape []int, v []int64) Tensor {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
	}
	return Tensor{Name: name, DType: "I64", Shape: copyShape(shape), Data: b}
}

// FromInt8s returns an I8 tensor holding v.
func FromInt8s(name string, shape []int, v []int8) Tensor {
	b := make([]byte, len(v))
	for i, x := range v {
		b[i] = byte(x)
	}
	return Tensor{Name: name, DType: "I8", Shape: copyShape(shape), Data: b}
}

func copyShape(shape []int) []int {
	return append([]int{}, shape...)
}
