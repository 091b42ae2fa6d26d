package main

import (
	"path/filepath"
	"testing"

	"github.com/rotary-go/rotary/npy"
	"github.com/rotary-go/rotary/tensor"
)

// TestApplyInputsMerged: --in given twice merges the inputs, in any of the formats; a name
// in two inputs is exit 2 naming both, and --out is not written.
func TestApplyInputsMerged(t *testing.T) {
	dir := t.TempDir()
	pos := tensor.FromI64([]int64{0, 3}, 2)
	q, _ := fromFile(encodeAs(tensor.F32, "query", []int{2, 1, 128}, randomHeads(256, 31)))
	whole := writeTensors(t, dir, "whole.safetensors", toFile("positions", pos), toFile("query", q))
	posOnly := writeTensors(t, dir, "pos.safetensors", toFile("positions", pos))
	qDir := filepath.Join(dir, "q")
	if err := npy.WriteDir(qDir, map[string]tensor.Tensor{"query": q}, nil, nil); err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(dir, "a.safetensors"), filepath.Join(dir, "b.safetensors")
	if code, _, stderr := runCLI(t, "apply", "--model", "llama-3.1-8b", "--in", whole, "--out", a); code != 0 {
		t.Fatalf("one input: exit %d %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "apply", "--model", "llama-3.1-8b", "--in", posOnly, "--in", qDir, "--out", b); code != 0 {
		t.Fatalf("two inputs: exit %d %s", code, stderr)
	}
	if code, out, stderr := runCLI(t, "diff", a, b, "--max-ulp", "0", "--atol", "0"); code != 0 {
		t.Errorf("the merged inputs give another result: exit %d\n%s%s", code, out, stderr)
	}
	out := filepath.Join(dir, "dup.safetensors")
	code, _, stderr := runCLI(t, "apply", "--model", "llama-3.1-8b", "--in", whole, "--in", qDir, "--out", out)
	wantOneLine(t, code, stderr, out, `tensor "query" is in both `+whole+" and "+filepath.Join(qDir, "query.npy"))
	code, _, stderr = runCLI(t, "apply", "--model", "llama-3.1-8b", "--in", posOnly, "--out", out)
	wantOneLine(t, code, stderr, out, posOnly+`: missing tensor "query"`)
}
