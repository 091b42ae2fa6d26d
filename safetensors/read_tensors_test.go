package safetensors

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rotary-go/rotary/tensor"
)

// TestReadTensors: a file read decoded gives what ReadFile then ToTensor gives, tensor by
// tensor in file order, with the metadata; a dtype without a tensor.DType and a file cut short
// are errors, the latter wrapping nothing that panics.
func TestReadTensors(t *testing.T) {
	in := []Tensor{
		FromFloat32s("f", []int{2, 3}, []float32{1, -2, 3.5, 0, 1e-40, -0}),
		FromUint16s("h", "BF16", []int{3}, []uint16{0x3f80, 0x7fc0, 0x8000}),
		FromInt64s("p", []int{2}, []int64{-1, 1 << 62}),
		FromInt8s("q", []int{2}, []int8{-128, 127}),
		FromFloat64s("s", nil, []float64{2.5}),
	}
	path := filepath.Join(t.TempDir(), "a.safetensors")
	md := map[string]string{"op": "x"}
	if err := WriteFile(path, in, md); err != nil {
		t.Fatal(err)
	}
	got, gotMD, err := ReadTensors(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(f.Tensors) || !reflect.DeepEqual(gotMD, md) {
		t.Fatalf("%d tensors, metadata %v", len(got), gotMD)
	}
	for i, st := range f.Tensors {
		want, err := ToTensor(st)
		if err != nil {
			t.Fatal(err)
		}
		g := got[i].Tensor
		same := got[i].Name == st.Name && g.DType == want.DType && tensor.ShapeString(g.Shape) == tensor.ShapeString(want.Shape) && g.Len() == want.Len()
		for j := 0; same && j < want.Len(); j++ {
			same = g.Float64At(j) == want.Float64At(j) || g.Float64At(j) != g.Float64At(j) && want.Float64At(j) != want.Float64At(j)
			same = same && g.Int64At(j) == want.Int64At(j)
		}
		if !same {
			t.Errorf("%s: %+v, want %+v", st.Name, got[i], want)
		}
	}
	b, _ := os.ReadFile(path)
	short := filepath.Join(t.TempDir(), "short.safetensors")
	os.WriteFile(short, b[:len(b)-3], 0o644)
	if _, _, err := ReadTensors(short); err == nil {
		t.Error("a file cut short: no error")
	}
	boolFile := filepath.Join(t.TempDir(), "bool.safetensors")
	if err := WriteFile(boolFile, []Tensor{{Name: "m", DType: "BOOL", Shape: []int{2}, Data: []byte{0, 1}}}, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadTensors(boolFile); !errors.Is(err, ErrDType) {
		t.Errorf("BOOL: %v, want ErrDType", err)
	}
}

// TestStreamed: a tensor written by Streamed is byte for byte what FromTensor writes, across
// dtypes, a strided view and a tensor larger than one 64 KiB chunk; refusals are FromTensor's.
func TestStreamed(t *testing.T) {
	big := make([]float32, 40000)
	for i := range big {
		big[i] = float32(i) * 0.5
	}
	strided := tensor.FromF32([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	strided.Shape, strided.Strides = []int{3, 2}, []int{1, 3} // the transpose
	for name, x := range map[string]tensor.Tensor{
		"big":     tensor.FromF32(big, 200, 200),
		"bf16":    tensor.FromBits(tensor.BF16, []uint16{1, 2, 3}, 3),
		"i64":     tensor.FromI64([]int64{-5, 7}, 2),
		"strided": strided,
	} {
		a, err := FromTensor(name, x)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Streamed(name, x)
		if err != nil {
			t.Fatal(err)
		}
		var wa, ws bytes.Buffer
		if err := Write(&wa, []Tensor{a}, nil); err != nil {
			t.Fatal(err)
		}
		if err := Write(&ws, []Tensor{s}, nil); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(wa.Bytes(), ws.Bytes()) {
			t.Errorf("%s: Streamed writes other bytes than FromTensor", name)
		}
	}
	if _, err := Streamed("z", tensor.Tensor{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("the absent tensor: %v", err)
	}
}
