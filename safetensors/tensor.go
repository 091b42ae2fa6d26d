package safetensors

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"

	"github.com/rotary-go/rotary/internal/errs"
	"github.com/rotary-go/rotary/tensor"
)

// dtypes maps the file's dtype names to the element types tensor.Tensor holds; the file's
// BOOL, I16, U16, U32 and U64 have none.
var dtypes = map[string]tensor.DType{
	"F32": tensor.F32, "F16": tensor.F16, "BF16": tensor.BF16, "F64": tensor.F64,
	"I32": tensor.I32, "I64": tensor.I64, "I8": tensor.I8, "U8": tensor.U8,
}

// ToTensor decodes t into a contiguous tensor.Tensor with its own memory (nothing aliases
// t.Data) and a copy of t's shape. F16 and BF16 elements are kept as their bit patterns.
//
// A dtype tensor.Tensor has no type for (BOOL, I16, U16, U32, U64) is refused with an error
// wrapping ErrDType, and Data that does not match DType and Shape with one wrapping ErrInvalid;
// both name the tensor. A streamed tensor (Streamed, an op's output in a golden bundle) is
// decoded from the bytes its Stream writes (WriteData's count check and errors): a shape past
// tensor.MaxBytes is refused before the Stream runs, and a Stream writing past the shape's bytes
// at the first byte too many.
func ToTensor(t Tensor) (tensor.Tensor, error) {
	d, ok := dtypes[t.DType]
	if !ok {
		return tensor.Tensor{}, errs.Wrapf(ErrDType, "tensor %q: dtype %q has no tensor.DType (want F32, F16, BF16, F64, I32, I64, I8 or U8)", t.Name, t.DType)
	}
	if t.Stream != nil {
		if len(t.Data) != 0 {
			return tensor.Tensor{}, invalidf("tensor %q: both Data and Stream: want one", t.Name)
		}
		size, _ := ElemSize(t.DType)
		want, ok := byteSize(t.Shape, size)
		if !ok || int64(want) > tensor.MaxBytes {
			return tensor.Tensor{}, invalidf("tensor %q: dtype %s and shape %v: want at most %d bytes", t.Name, t.DType, t.Shape, tensor.MaxBytes)
		}
		b := &boundedBuffer{limit: want, name: t.Name}
		if err := t.WriteData(b); err != nil {
			return tensor.Tensor{}, err
		}
		if b.over != nil { // a Stream that went on past the refusal
			return tensor.Tensor{}, b.over
		}
		t.Data, t.Stream = b.Bytes(), nil
	}
	n, err := t.elements(t.DType)
	if err != nil {
		return tensor.Tensor{}, err
	}
	shape := copyShape(t.Shape)
	b := t.Data
	switch d {
	case tensor.F32:
		v := make([]float32, n)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return tensor.FromF32(v, shape...), nil
	case tensor.F16, tensor.BF16:
		v := make([]uint16, n)
		for i := range v {
			v[i] = binary.LittleEndian.Uint16(b[2*i:])
		}
		return tensor.FromBits(d, v, shape...), nil
	case tensor.F64:
		v := make([]float64, n)
		for i := range v {
			v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
		}
		return tensor.FromF64(v, shape...), nil
	case tensor.I32:
		v := make([]int32, n)
		for i := range v {
			v[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return tensor.FromI32(v, shape...), nil
	case tensor.I64:
		v := make([]int64, n)
		for i := range v {
			v[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
		}
		return tensor.FromI64(v, shape...), nil
	case tensor.I8:
		v := make([]int8, n)
		for i := range v {
			v[i] = int8(b[i])
		}
		return tensor.FromI8(v, shape...), nil
	}
	// U8, the last entry of dtypes.
	return tensor.Tensor{DType: tensor.U8, Shape: shape, U8: append([]uint8{}, b[:n]...)}, nil
}

// FromTensor encodes the elements of t, in row-major order of its shape, as a tensor called
// name. Any view is accepted: strided, offset or reversed views are gathered first. The
// result's Data and Shape are its own.
//
// The absent tensor, an unknown dtype and a view reaching outside its backing slice
// (tensor.Tensor.Check) are refused with an error wrapping ErrInvalid that names the tensor;
// a view whose copy tensor.New would refuse (past tensor.MaxBytes) is refused too. The name is
// not checked here: Write checks it with the others.
func FromTensor(name string, t tensor.Tensor) (Tensor, error) {
	t, n, err := writable(name, t)
	if err != nil {
		return Tensor{}, err
	}
	out := Tensor{Name: name, DType: t.DType.String(), Shape: copyShape(t.Shape), Data: make([]byte, n*t.DType.Size())}
	encodeElements(out.Data, t, 0, n)
	return out, nil
}

// Streamed is FromTensor without the copy: the result's Stream encodes t's elements as it is
// written, 64 KiB at a time, so that a tensor is never held twice. t must not change until
// then. A view that is not contiguous from its first element is gathered first, as FromTensor
// gathers it; the checks are FromTensor's.
func Streamed(name string, t tensor.Tensor) (Tensor, error) {
	t, n, err := writable(name, t)
	if err != nil {
		return Tensor{}, err
	}
	size := t.DType.Size()
	stream := func(w io.Writer) error {
		buf := make([]byte, min(n*size, 64<<10))
		for done := 0; done < n; {
			k := min(n-done, len(buf)/size)
			encodeElements(buf[:k*size], t, done, k)
			if _, err := w.Write(buf[:k*size]); err != nil {
				return err
			}
			done += k
		}
		return nil
	}
	return Tensor{Name: name, DType: t.DType.String(), Shape: copyShape(t.Shape), Stream: stream}, nil
}

// writable checks t for FromTensor and Streamed and makes it contiguous from its first
// element; n is its element count.
func writable(name string, t tensor.Tensor) (tensor.Tensor, int, error) {
	if t.IsZero() {
		return tensor.Tensor{}, 0, invalidf("tensor %q: the absent tensor (no dtype) cannot be written", name)
	}
	if _, ok := dtypes[t.DType.String()]; !ok {
		return tensor.Tensor{}, 0, invalidf("tensor %q: dtype %v cannot be written", name, t.DType)
	}
	if err := t.Check(name); err != nil {
		return tensor.Tensor{}, 0, invalidf("%v", err)
	}
	n := t.Len()
	if !t.Contiguous() || t.Offset != 0 {
		c := t.Clone()
		if c.IsZero() {
			return tensor.Tensor{}, 0, invalidf("tensor %q: shape %s of %v is too large to copy", name, tensor.ShapeString(t.Shape), t.DType)
		}
		t = c
	}
	return t, n, nil
}

// encodeElements writes elements from..from+n−1 of the contiguous t into b, little-endian.
func encodeElements(b []byte, t tensor.Tensor, from, n int) {
	switch t.DType {
	case tensor.F32:
		for i, x := range t.F32[from : from+n] {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
		}
	case tensor.F16, tensor.BF16:
		for i, x := range t.Bits[from : from+n] {
			binary.LittleEndian.PutUint16(b[2*i:], x)
		}
	case tensor.F64:
		for i, x := range t.F64[from : from+n] {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
		}
	case tensor.I32:
		for i, x := range t.I32[from : from+n] {
			binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
		}
	case tensor.I64:
		for i, x := range t.I64[from : from+n] {
			binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
		}
	case tensor.I8:
		for i, x := range t.I8[from : from+n] {
			b[i] = byte(x)
		}
	case tensor.U8:
		copy(b, t.U8[from:from+n])
	}
}

// boundedBuffer is a bytes.Buffer that takes at most limit bytes: a Stream writing more than its
// tensor's shape is refused at the first byte past it, not held.
type boundedBuffer struct {
	bytes.Buffer
	limit int
	name  string
	over  error // the refusal, once a write went past limit
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	if room := b.limit - b.Len(); len(p) > room {
		n, _ := b.Buffer.Write(p[:room])
		b.over = invalidf("tensor %q: Stream wrote more than the %d bytes of its dtype and shape", b.name, b.limit)
		return n, b.over
	}
	return b.Buffer.Write(p)
}
