package golden

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/npy"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// writeSafetensors writes tensors and metadata to dir/name.
func writeSafetensors(t *testing.T, dir, name string, md map[string]string, ts ...safetensors.Tensor) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := safetensors.WriteFile(p, ts, md); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReadFiles: a safetensors file, a .npy directory and a .npy file merge into one Set, in
// file order, with the first file's metadata winning; a tensor in two inputs is refused naming
// both, a failed ReadFile leaves the Set as it was.
func TestReadFiles(t *testing.T) {
	dir := t.TempDir()
	st := writeSafetensors(t, dir, "a.safetensors", map[string]string{"op": "mrope", "seed": "1"},
		safetensors.FromFloat32s("query", []int{2}, []float32{1, 2}), safetensors.FromFloat32s("key", []int{1}, []float32{3}))
	npyDir := filepath.Join(dir, "d")
	if err := npy.WriteDir(npyDir, map[string]tensor.Tensor{"out.query": tensor.FromF32([]float32{4}, 1)}, nil, map[string]string{"op": "other", "dtype": "F32"}); err != nil {
		t.Fatal(err)
	}
	one := filepath.Join(dir, "positions.npy")
	f, err := os.Create(one)
	if err != nil {
		t.Fatal(err)
	}
	if err := npy.Write(f, tensor.FromI64([]int64{0, 1}, 2)); err != nil {
		t.Fatal(err)
	}
	f.Close()

	s, err := ReadFiles(st, npyDir, one)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"query", "key", "out.query", "positions"}; !reflect.DeepEqual(s.Order, want) {
		t.Errorf("Order %v, want %v", s.Order, want)
	}
	if want := map[string]string{"op": "mrope", "seed": "1", "dtype": "F32"}; !reflect.DeepEqual(s.Metadata, want) {
		t.Errorf("Metadata %v, want %v", s.Metadata, want)
	}
	if q := s.Tensors["query"]; !reflect.DeepEqual(q.F32, []float32{1, 2}) {
		t.Errorf("query %v", q.F32)
	}
	if p := s.Tensors["positions"]; !reflect.DeepEqual(p.I64, []int64{0, 1}) {
		t.Errorf("positions %v", p.I64)
	}

	dup := writeSafetensors(t, dir, "dup.safetensors", nil, safetensors.FromFloat32s("a", []int{1}, []float32{0}), safetensors.FromFloat32s("positions", []int{1}, []float32{0}))
	for _, c := range []struct {
		paths []string
		want  string
	}{
		{[]string{st, st}, `tensor "query" is in both ` + st + " and " + st},
		{[]string{npyDir, st, npyDir}, `tensor "out.query" is in both ` + filepath.Join(npyDir, "out.query.npy") + " and " + filepath.Join(npyDir, "out.query.npy")},
		{[]string{one, dup}, `tensor "positions" is in both ` + one + " and " + dup},
	} {
		if _, err := ReadFiles(c.paths...); err == nil || err.Error() != c.want {
			t.Errorf("%v: error %v, want %q", c.paths, err, c.want)
		}
	}
	// dup's "a" is refused with its "positions": the Set is unchanged.
	before := len(s.Order)
	if err := s.ReadFile(dup); err == nil {
		t.Error("a duplicate name: no error")
	}
	if _, ok := s.Tensors["a"]; ok || len(s.Order) != before {
		t.Errorf("a failed ReadFile changed the Set: %v", s.Order)
	}
	if err := s.Add("x", tensor.FromF32([]float32{1}, 1), "x.bin (--raw)"); err != nil {
		t.Fatal(err)
	}
	if err := s.Add("x", tensor.FromF32([]float32{2}, 1), "y.bin"); err == nil || err.Error() != `tensor "x" is in both x.bin (--raw) and y.bin` {
		t.Errorf("Add of a name twice: %v", err)
	}
}

// TestReadFilesRefuses: what is no input is refused naming the path and what was expected.
func TestReadFilesRefuses(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	noStem := filepath.Join(dir, ".npy")
	if err := os.WriteFile(noStem, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.npy")
	if err := os.WriteFile(bad, []byte("not numpy"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.safetensors")
	for _, c := range []struct{ path, want string }{
		{empty, empty + ": a directory with no .npy files (want a safetensors file or a directory of .npy files)"},
		{noStem, noStem + ": no stem to name its tensor (want NAME.npy)"},
		{bad, bad},
		{missing, missing},
	} {
		if _, err := ReadFiles(c.path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.path, err, c.want)
		}
	}
	if s, err := ReadFiles(); err != nil || len(s.Tensors) != 0 || s.Metadata != nil {
		t.Errorf("no paths: %v, %v", s, err)
	}
}

// TestSetZeroValue: the zero Set takes tensors; a nil one is an error; a name the caller put
// in Tensors is not overwritten.
func TestSetZeroValue(t *testing.T) {
	var s Set
	if err := s.Add("q", tensor.FromF32([]float32{1}, 1), "here"); err != nil || len(s.Order) != 1 {
		t.Errorf("zero Set: %v, %v", err, s.Order)
	}
	var nilSet *Set
	if err := nilSet.Add("q", tensor.Tensor{}, "here"); err == nil {
		t.Error("nil Set Add: no error")
	}
	if err := nilSet.ReadFile("x.safetensors"); err == nil {
		t.Error("nil Set ReadFile: no error")
	}
	given := Set{Tensors: map[string]tensor.Tensor{"q": {}}}
	if err := given.Add("q", tensor.FromF32([]float32{1}, 1), "here"); err == nil || err.Error() != `tensor "q" is in both the Set and here` {
		t.Errorf("a name in Tensors: %v", err)
	}
}
