package raw

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// writeF32s writes v as a raw little-endian buffer (the bytes safetensors holds it as).
func writeF32s(t *testing.T, path string, v ...float32) string {
	t.Helper()
	if err := os.WriteFile(path, safetensors.FromFloat32s("v", []int{len(v)}, v).Data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestParseSpec: the spellings of SHAPE, a FILE holding ':', and each malformed part named.
func TestParseSpec(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Spec
	}{
		{"q=BF16:16,32,128:q.bin", Spec{Name: "q", DType: tensor.BF16, Shape: []int{16, 32, 128}, Path: "q.bin"}},
		{"out.query=float32:[6]:dir/x:1.bin", Spec{Name: "out.query", DType: tensor.F32, Shape: []int{6}, Path: "dir/x:1.bin"}},
		{"k=I64:2x 3:k.bin", Spec{Name: "k", DType: tensor.I64, Shape: []int{2, 3}, Path: "k.bin"}},
		{"e=F32:0:e.bin", Spec{Name: "e", DType: tensor.F32, Shape: []int{0}, Path: "e.bin"}},
	} {
		got, err := ParseSpec(c.in)
		c.want.given = c.in
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseSpec(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"x=F32:2,3", "want NAME=DTYPE:SHAPE:FILE"},
		{"=F32:2,3:x.bin", "want NAME=DTYPE:SHAPE:FILE"},
		{"x", "want NAME=DTYPE:SHAPE:FILE"},
		{"x=F32", "want NAME=DTYPE:SHAPE:FILE"},
		{"x=F32:2:", "want NAME=DTYPE:SHAPE:FILE"},
		{"x=Q4:2,3:x.bin", "unknown dtype"},
		{"x=F32:2,-3:x.bin", "non-negative integers"},
		{"x=F32:2,y:x.bin", "non-negative integers"},
		{"x=F32:,:x.bin", "non-negative integers"},
		{"x=F32::x.bin", "empty SHAPE"},
		{"x=F32:[]:x.bin", "empty SHAPE"},
	} {
		if _, err := ParseSpec(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseSpec(%q): error %v, want %q", c.in, err, c.want)
		}
	}
}

// TestReadFile: a buffer of exactly the shape's bytes reads; another size, a shape past
// tensor.MaxBytes, a missing file and a directory are errors, and Spec.Read names the buffer.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	v := []float32{1, 2, 3, 4, 5, 6}
	path := writeF32s(t, filepath.Join(dir, "x.bin"), v...)
	got, err := ReadFile(path, tensor.F32, 2, 3)
	if err != nil || !reflect.DeepEqual(got.F32, v) || !reflect.DeepEqual(got.Shape, []int{2, 3}) {
		t.Fatalf("ReadFile: %v %v, %v", got.Shape, got.F32, err)
	}
	bits, err := ReadFile(path, tensor.BF16, 12)
	if err != nil || bits.Bits[1] != 0x3f80 { // 1.0's high half
		t.Errorf("BF16: %v, %v", bits.Bits, err)
	}
	empty := writeF32s(t, filepath.Join(dir, "empty.bin"))
	if e, err := ReadFile(empty, tensor.I8, 0, 4); err != nil || e.Len() != 0 {
		t.Errorf("empty: %v, %v", e, err)
	}
	for _, c := range []struct {
		path  string
		d     tensor.DType
		shape []int
		want  string
	}{
		{path, tensor.F32, []int{2, 4}, "is 24 bytes, but F32 [2,4] needs exactly 32"},
		{path, tensor.F64, []int{2}, "is 24 bytes, but F64 [2] needs exactly 16"},
		{path, tensor.F32, []int{1 << 62, 4}, "larger than"},
		{path, tensor.F32, []int{2, -3}, "want non-negative dimensions"},
		{path, tensor.Invalid, []int{6}, "dtype invalid"},
		{filepath.Join(dir, "missing.bin"), tensor.F32, []int{6}, "missing.bin"},
		{dir, tensor.F32, []int{6}, "not a regular file"},
	} {
		if _, err := ReadFile(c.path, c.d, c.shape...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadFile(%s, %v, %v): error %v, want %q", c.path, c.d, c.shape, err, c.want)
		}
	}
	for _, c := range []struct{ spec, want string }{
		{"x=F32:2,3:" + path, ""},
		{"x=F32:5:" + path, "x: " + path + " is 24 bytes, but F32 [5] needs exactly 20"},
		{"x=F32:4611686018427387904,4:" + path, "x=F32:4611686018427387904,4:" + path + ": shape [4611686018427387904,4] of F32 is larger than"},
	} {
		s, err := ParseSpec(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Read()
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want)) {
			t.Errorf("%s: error %v, want %q", c.spec, err, c.want)
		}
	}
	if _, err := (Spec{}).Read(); err == nil {
		t.Error("the zero Spec read")
	}
}
