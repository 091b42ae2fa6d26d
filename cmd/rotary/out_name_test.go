package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSafetensorsOutNamedNPY: apply, cache, golden and positions write safetensors; an --out named .npy
// (any case) used to be written as safetensors that apply --in, verify, diff and show then
// refused as "not a .npy file". Now it is exit 2 naming --out, and nothing is written. golden
// --format npy still writes a directory of that name, which the readers take as a directory.
func TestSafetensorsOutNamedNPY(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "g.safetensors")
	if code, _, stderr := runCLI(t, "golden", "--model", "llama-3.1-8b", "--tokens", "2", "--out", in); code != 0 {
		t.Fatalf("golden: exit %d: %s", code, stderr)
	}
	for _, c := range []struct {
		args []string
		out  string
	}{
		{[]string{"apply", "--model", "llama-3.1-8b", "--in", in}, "a.npy"},
		{[]string{"cache", "--model", "llama-3.1-8b"}, "c.NPY"},
		{[]string{"cache", "--model", "llama-3.1-8b", "--gather", "range:2"}, "cg.npy"},
		{[]string{"golden", "--model", "llama-3.1-8b", "--tokens", "2"}, "g.npy"},
		{[]string{"positions", "--model", "qwen2-vl-7b", "--input-ids", "1,2,3"}, "pp.npy"},
	} {
		out := filepath.Join(dir, c.out)
		wantUsageLine(t, append(c.args, "--out", out), "--out "+out)
		if _, err := os.Lstat(out); err == nil {
			t.Errorf("%v: wrote %s", c.args, out)
		}
	}
	npyDir := filepath.Join(dir, "bundle.npy")
	if code, _, stderr := runCLI(t, "golden", "--model", "llama-3.1-8b", "--tokens", "2", "--format", "npy", "--out", npyDir); code != 0 {
		t.Fatalf("golden --format npy --out bundle.npy: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "verify", npyDir, in); code != 0 {
		t.Errorf("verify bundle.npy g.safetensors: exit %d: %s", code, stderr)
	}
}
