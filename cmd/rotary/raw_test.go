package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/tensor"
)

// TestRawBuffers: --raw reads a headerless buffer of exactly the shape's bytes; a size that
// differs, a bad spec and a missing file are exit 2 with one line.
func TestRawBuffers(t *testing.T) {
	dir := t.TempDir()
	v := []float32{1, 2, 3, 4, 5, 6}
	a := writeTensors(t, dir, "a.safetensors", encodeAs(tensor.F32, "x", []int{2, 3}, v))
	raw := writeFile(t, dir, "x.bin", f32Bytes(v...))
	if code, out, stderr := runCLI(t, "diff", a, "--raw", "x=F32:2,3:"+raw); code != 0 {
		t.Errorf("exact: exit %d\n%s%s", code, out, stderr)
	}
	// A file name holding ':' is the rest of the spec.
	colon := writeFile(t, dir, "x:1.bin", f32Bytes(v...))
	if code, out, stderr := runCLI(t, "diff", a, "--raw", "x=float32:[6]:"+colon); code != 0 || !strings.Contains(out, "compared element by element") {
		t.Errorf("colon in FILE: exit %d\n%s%s", code, out, stderr)
	}
	for _, c := range []struct {
		spec, want string
	}{
		{"x=F32:2,4:" + raw, "is 24 bytes, but F32 [2,4] needs exactly 32"},
		{"x=F32:5:" + raw, "is 24 bytes, but F32 [5] needs exactly 20"},
		{"x=F32:2,3", "want NAME=DTYPE:SHAPE:FILE"},
		{"=F32:2,3:" + raw, "want NAME=DTYPE:SHAPE:FILE"},
		{"x=Q4:2,3:" + raw, "unknown dtype"},
		{"x=F32:2,-3:" + raw, "non-negative integers"},
		{"x=F32::" + raw, "empty SHAPE"},
		{"x=F32:4611686018427387904,4:" + raw, "larger than"},
		{"x=F32:2,3:" + filepath.Join(dir, "missing.bin"), "missing.bin"},
	} {
		code, _, stderr := runCLI(t, "diff", a, "--raw", c.spec)
		if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("--raw %s: exit %d stderr %q, want exit 2 and one line with %q", c.spec, code, stderr, c.want)
		}
	}
}
