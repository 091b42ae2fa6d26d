package safetensors

import (
	"errors"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/tensor"
)

// TestTensorRoundTrip: every dtype tensor.Tensor holds goes to a file tensor and back bit for
// bit, and through Write and Parse too.
func TestTensorRoundTrip(t *testing.T) {
	nan := math.Float32frombits(0x7fc00001)
	cases := []tensor.Tensor{
		tensor.FromF32([]float32{1, -2.5, nan, float32(math.Inf(-1)), 0, 3e-45}, 2, 3),
		tensor.FromBits(tensor.BF16, []uint16{0x3f80, 0xffc1, 0x0001, 0x8000}, 4),
		tensor.FromBits(tensor.F16, []uint16{0x3c00, 0x7e01, 0x0001, 0xfc00}, 2, 1, 2),
		tensor.FromF64([]float64{math.Pi, -0, math.MaxFloat64}, 3),
		tensor.FromI32([]int32{math.MinInt32, -1, math.MaxInt32}, 3),
		tensor.FromI64([]int64{math.MinInt64, 7}, 2),
		tensor.FromI8([]int8{-128, 127}, 1, 2),
		{DType: tensor.U8, Shape: []int{3}, U8: []uint8{0, 128, 255}},
		tensor.FromF32(nil, 0, 5),
		tensor.FromF32([]float32{42}), // a scalar
	}
	for _, want := range cases {
		st, err := FromTensor("x", want)
		if err != nil {
			t.Fatalf("%v %v: %v", want.DType, want.Shape, err)
		}
		got, err := ToTensor(st)
		if err != nil {
			t.Fatalf("%v %v: %v", want.DType, want.Shape, err)
		}
		if got.DType != want.DType || !reflect.DeepEqual(append([]int{}, got.Shape...), append([]int{}, want.Shape...)) {
			t.Fatalf("got %v %v, want %v %v", got.DType, got.Shape, want.DType, want.Shape)
		}
		for i := range want.Len() {
			if g, w := bitsAt(got, i), bitsAt(want, i); g != w {
				t.Errorf("%v element %d: bits %#x, want %#x", want.DType, i, g, w)
			}
		}
		f, err := Parse(encode(t, []Tensor{st}, nil))
		if err != nil {
			t.Fatal(err)
		}
		back, err := ToTensor(f.Tensors[0])
		if err != nil || back.Len() != want.Len() || (want.Len() > 0 && bitsAt(back, want.Len()-1) != bitsAt(want, want.Len()-1)) {
			t.Errorf("%v through Write and Parse: %v", want.DType, err)
		}
	}
}

// bitsAt is element i's bit pattern, so NaN payloads and -0 compare exactly.
func bitsAt(t tensor.Tensor, i int) uint64 {
	switch t.DType {
	case tensor.F32:
		return uint64(math.Float32bits(t.F32[i]))
	case tensor.F16, tensor.BF16:
		return uint64(t.Bits[i])
	case tensor.F64:
		return math.Float64bits(t.F64[i])
	case tensor.U8:
		return uint64(t.U8[i])
	}
	return uint64(t.Int64At(i))
}

// TestToTensorOwnsMemory: the result does not alias the file's bytes.
func TestToTensorOwnsMemory(t *testing.T) {
	st := FromFloat32s("x", []int{2}, []float32{1, 2})
	got, err := ToTensor(st)
	if err != nil {
		t.Fatal(err)
	}
	st.Data[0], st.Data[1], st.Data[2], st.Data[3] = 0, 0, 0, 0
	st.Shape[0] = 9
	if got.F32[0] != 1 || got.Shape[0] != 2 {
		t.Errorf("ToTensor aliases its input: %v %v", got.F32, got.Shape)
	}
}

// TestToTensorStreamed: a streamed tensor decodes to the tensor it streams; one with Data too,
// or whose Stream writes another count or fails, is refused.
func TestToTensorStreamed(t *testing.T) {
	x := tensor.FromBits(tensor.BF16, []uint16{1, 2, 3, 0x7fc0, 5, 6}, 2, 3)
	st, err := Streamed("x", x)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ToTensor(st)
	if err != nil || !reflect.DeepEqual(got.Bits, x.Bits) || !reflect.DeepEqual(got.Shape, x.Shape) || got.DType != x.DType {
		t.Errorf("ToTensor(Streamed) = %v %v %v, %v; want %v", got.DType, got.Shape, got.Bits, err, x.Bits)
	}
	both := st
	both.Data = make([]byte, 12)
	if _, err := ToTensor(both); !errors.Is(err, ErrInvalid) {
		t.Errorf("Data and Stream: %v, want ErrInvalid", err)
	}
	short := st
	short.Stream = func(w io.Writer) error { _, err := w.Write(make([]byte, 4)); return err }
	if _, err := ToTensor(short); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `"x"`) {
		t.Errorf("a short Stream: %v, want ErrInvalid naming x", err)
	}
	failing := st
	failing.Stream = func(io.Writer) error { return io.ErrClosedPipe }
	if _, err := ToTensor(failing); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("a failing Stream: %v, want its error", err)
	}
}

// TestFromTensorViews: strided, offset and reversed views are written in their row-major
// order, not the backing slice's.
func TestFromTensorViews(t *testing.T) {
	back := []float32{0, 1, 2, 3, 4, 5}
	for _, c := range []struct {
		name string
		view tensor.Tensor
		want []float32
	}{
		{"transposed", tensor.Tensor{DType: tensor.F32, Shape: []int{3, 2}, Strides: []int{1, 3}, F32: back}, []float32{0, 3, 1, 4, 2, 5}},
		{"offset", tensor.Tensor{DType: tensor.F32, Shape: []int{2}, Offset: 4, F32: back}, []float32{4, 5}},
		{"reversed", tensor.Tensor{DType: tensor.F32, Shape: []int{3}, Strides: []int{-2}, Offset: 5, F32: back}, []float32{5, 3, 1}},
	} {
		st, err := FromTensor(c.name, c.view)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, _ := st.Float32s()
		if !reflect.DeepEqual(got, c.want) || !reflect.DeepEqual(st.Shape, c.view.Shape) {
			t.Errorf("%s: %v %v, want %v %v", c.name, got, st.Shape, c.want, c.view.Shape)
		}
	}
}

// TestConversionRefusals: unsupported dtypes and malformed tensors are errors naming the
// tensor, never panics.
func TestConversionRefusals(t *testing.T) {
	for _, c := range []struct {
		st   Tensor
		want error
	}{
		{Tensor{Name: "b", DType: "BOOL", Shape: []int{1}, Data: []byte{1}}, ErrDType},
		{Tensor{Name: "u", DType: "U16", Shape: []int{1}, Data: []byte{1, 2}}, ErrDType},
		{Tensor{Name: "e", DType: "", Shape: []int{1}, Data: []byte{1}}, ErrDType},
		{Tensor{Name: "short", DType: "F32", Shape: []int{2}, Data: []byte{1, 2, 3, 4}}, ErrInvalid},
		{Tensor{Name: "neg", DType: "F32", Shape: []int{-1}}, ErrInvalid},
		{Tensor{Name: "big", DType: "I64", Shape: []int{math.MaxInt / 2, 4}}, ErrInvalid},
	} {
		_, err := ToTensor(c.st)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.st.Name) {
			t.Errorf("ToTensor(%s): %v, want an error wrapping %v naming it", c.st.Name, err, c.want)
		}
	}
	for _, c := range []struct {
		name string
		t    tensor.Tensor
	}{
		{"absent", tensor.Tensor{}},
		{"unknown", tensor.Tensor{DType: 200, Shape: []int{1}}},
		{"outside", tensor.FromF32([]float32{1}, 2)},
		{"negative", tensor.FromF32([]float32{1}, -1)},
		{"strides", tensor.Tensor{DType: tensor.F32, Shape: []int{2}, Strides: []int{5}, F32: []float32{1, 2}}},
	} {
		_, err := FromTensor(c.name, c.t)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.name) {
			t.Errorf("FromTensor(%s): %v, want an error wrapping ErrInvalid naming it", c.name, err)
		}
	}
}
