package golden

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/npy"
	"github.com/rotary-go/rotary/safetensors"

	"github.com/rotary-go/rotary/tensor"
)

// TestBatchPositions: [rows, B, S] is read as [rows, B·S], row b's tokens after row b−1's;
// other ranks pass unchanged.
func TestBatchPositions(t *testing.T) {
	p, err := BatchPositions(tensor.FromI64([]int64{0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32}, 2, 2, 3))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.Shape, []int{2, 6}) || p.Int64At(3) != 10 || p.Int64At(6) != 20 {
		t.Errorf("positions %v: at 3 %d, at 6 %d", p.Shape, p.Int64At(3), p.Int64At(6))
	}
	two, err := BatchPositions(tensor.FromI64([]int64{1, 2, 3}, 1, 3))
	if err != nil || !reflect.DeepEqual(two.Shape, []int{1, 3}) {
		t.Errorf("[1, 3]: %v, %v", two.Shape, err)
	}
}

// TestReadPositions: the forms ParsePositions knows, and files holding positions (safetensors,
// a .npy file, rotary positions' [rows, 1, T]); a file without them, or none, is an error
// naming --positions.
func TestReadPositions(t *testing.T) {
	dir := t.TempDir()
	st := filepath.Join(dir, "p.safetensors")
	if err := safetensors.WriteFile(st, []safetensors.Tensor{safetensors.FromInt64s("positions", []int{3, 1, 2}, []int64{0, 1, 0, 1, 0, 1})}, nil); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.safetensors")
	if err := safetensors.WriteFile(other, []safetensors.Tensor{safetensors.FromInt64s("ids", []int{2}, []int64{0, 1})}, nil); err != nil {
		t.Fatal(err)
	}
	np := filepath.Join(dir, "positions.npy")
	var buf bytes.Buffer
	if err := npy.Write(&buf, tensor.FromI64([]int64{7, 8, 9, 10}, 4)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(np, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ s, label string }{
		{"range", "range"}, {"range:5", "range:5"}, {"random:9", "random:9"},
		{st, "file:" + st}, {np, "file:" + np},
	} {
		if p, err := ReadPositions(c.s); err != nil || p.Label != c.label {
			t.Errorf("%s: %+v, %v; want label %s", c.s, p, err, c.label)
		}
	}
	for _, c := range []struct{ s, want string }{
		{"", "--positions: empty"},
		{"range:x", `--positions "range:x": want range:START`},
		{other, "--positions " + other + `: missing tensor "positions"`},
		{filepath.Join(dir, "absent.safetensors"), "--positions: "},
	} {
		if _, err := ReadPositions(c.s); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.s, err, c.want)
		}
	}
}

// TestDefaultOp: mrope for an MRoPE spec, rotary_embedding otherwise.
func TestDefaultOp(t *testing.T) {
	for name, want := range map[string]string{"qwen2-vl-7b": "mrope", "llama-3.1-8b": "rotary_embedding"} {
		m, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		_, spec, err := m.Load(0)
		if err != nil || DefaultOp(spec) != want {
			t.Errorf("%s: %q, %v; want %s", name, DefaultOp(spec), err, want)
		}
	}
}
