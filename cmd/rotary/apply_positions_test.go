package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// TestApplyLargePositionCost: apply's time and memory follow the number of tokens, not the
// largest position. One token at a position near the end of a long-context model used to build
// every cache row below it (qwen2.5-7b-instruct-1m: 1,010,000 rows, about 500 MB).
func TestApplyLargePositionCost(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		model string
		op    string
		pos   int64
	}{
		{"qwen2.5-7b-instruct-1m", "rotary_embedding", 1009999},
		{"qwen3-8b", "qk_rmsnorm_rope", 40959},
		{"llama-3.1-8b", "rotary_embedding", 131071},
	} {
		ts := []safetensors.Tensor{
			toFile("positions", tensor.FromI64([]int64{c.pos}, 1)),
			encodeAs(tensor.F32, "query", []int{1, 1, 128}, randomHeads(128, 1)),
		}
		if c.op == "qk_rmsnorm_rope" {
			ts = append(ts, encodeAs(tensor.F32, "q_weight", []int{128}, randomHeads(128, 2)))
		}
		in := writeTensors(t, dir, c.model+".in.safetensors", ts...)
		out := filepath.Join(dir, c.model+".out.safetensors")
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		code, _, stderr := runCLI(t, "apply", "--model", c.model, "--op", c.op, "--in", in, "--out", out)
		runtime.ReadMemStats(&after)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.model, code, stderr)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
			t.Errorf("%s %s, one token at %d: allocated %d MB, want memory that follows the tokens", c.model, c.op, c.pos, alloc>>20)
		}
	}
}

// TestApplyPositionsPastMax: a position at or past max_position_embeddings is a one-line warning
// (vLLM's cache would be indexed out of range there), and an error under --strict.
func TestApplyPositionsPastMax(t *testing.T) {
	dir := t.TempDir()
	in := writeTensors(t, dir, "in.safetensors",
		toFile("positions", tensor.FromI64([]int64{3, 131072}, 2)),
		encodeAs(tensor.BF16, "query", []int{2, 1, 128}, randomHeads(256, 3)))
	out := filepath.Join(dir, "out.safetensors")
	code, _, stderr := runCLI(t, "apply", "--model", "llama-3.1-8b", "--in", in, "--out", out)
	if code != 0 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "131072") || !strings.Contains(stderr, "max_position_embeddings") {
		t.Errorf("position past the max: exit %d, stderr %q: want exit 0 and one warning line naming the position and max_position_embeddings", code, stderr)
	}
	strictOut := filepath.Join(dir, "strict.safetensors")
	code, _, stderr = runCLI(t, "apply", "--model", "llama-3.1-8b", "--strict", "--in", in, "--out", strictOut)
	if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "131072") {
		t.Errorf("--strict: exit %d, stderr %q: want exit 2 and one line naming the position", code, stderr)
	}
	if fileExists(strictOut) {
		t.Errorf("--strict: the refused call wrote %s", strictOut)
	}
	inside := writeTensors(t, dir, "inside.safetensors",
		toFile("positions", tensor.FromI64([]int64{0, 131071}, 2)),
		encodeAs(tensor.BF16, "query", []int{2, 1, 128}, randomHeads(256, 3)))
	code, _, stderr = runCLI(t, "apply", "--model", "llama-3.1-8b", "--strict", "--in", inside, "--out", out)
	if code != 0 || stderr != "" {
		t.Errorf("positions inside the max under --strict: exit %d, stderr %q", code, stderr)
	}
}

func fileExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// TestApplyPositionsInsideScaledCache: for YaRN vLLM sizes its cos/sin cache original ×
// factor, past max_position_embeddings when the config gives the original there; positions
// inside it are neither warned about nor refused.
func TestApplyPositionsInsideScaledCache(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "yarn.json", []byte(`{"model_type":"qwen2","hidden_size":1024,"num_attention_heads":8,
		"max_position_embeddings":32768,"rope_theta":1000000,
		"rope_scaling":{"rope_type":"yarn","factor":4,"original_max_position_embeddings":32768}}`))
	in := writeTensors(t, dir, "in.safetensors", toFile("positions", tensor.FromI64([]int64{40000}, 1)),
		encodeAs(tensor.F32, "query", []int{1, 1, 128}, randomHeads(128, 4)))
	code, _, stderr := runCLI(t, "apply", "--config", cfg, "--strict", "--in", in, "--out", filepath.Join(dir, "out.safetensors"))
	if code != 0 || stderr != "" {
		t.Errorf("position 40000 inside vLLM's 131072-row cache: exit %d, stderr %q", code, stderr)
	}
	in = writeTensors(t, dir, "past.safetensors", toFile("positions", tensor.FromI64([]int64{131072}, 1)),
		encodeAs(tensor.F32, "query", []int{1, 1, 128}, randomHeads(128, 4)))
	code, _, stderr = runCLI(t, "apply", "--config", cfg, "--strict", "--in", in, "--out", filepath.Join(dir, "out2.safetensors"))
	if code != 2 || !strings.Contains(stderr, "131072") {
		t.Errorf("position 131072 past the cache under --strict: exit %d, stderr %q", code, stderr)
	}
}
