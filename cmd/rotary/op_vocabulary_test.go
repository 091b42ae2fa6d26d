package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/golden"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/safetensors"
)

// TestOpVocabulary: apply, golden, check, bench and ops read --op (ops: its arguments) through the one
// canonicalOp, so every registry name and every alias (torch_npu's npu_rotary_mul, ...) names
// the same op in each, and an unknown name is the same refusal everywhere.
func TestOpVocabulary(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.safetensors")
	for _, name := range ops.NamesWithAliases() {
		canon, ok := ops.Canonical(name)
		if !ok {
			t.Fatalf("NamesWithAliases lists %q, which Canonical refuses", name)
		}
		code, stdout, stderr := runCLI(t, "ops", "--json", name)
		objs := jsonLines(t, stdout)
		if code != 0 || len(objs) != 1 || objs[0]["op"] != canon {
			t.Errorf("ops %s: exit %d rows %v (%s): want the one row of %s", name, code, objs, stderr, canon)
		}
		if code, _, stderr := runCLI(t, "check", "--model", "gpt-j-6b", "--op", name); code == 2 {
			t.Errorf("check --op %s: exit 2: %s", name, stderr)
		}
		// The op is found: what apply refuses is the missing input, not the name.
		args := []string{"apply", "--op", name, "--in", missing, "--out", filepath.Join(dir, "out.safetensors")}
		if op, _ := golden.Lookup(canon); op.Model == golden.ModelRequired {
			args = append(args, "--model", "gpt-j-6b")
		}
		code, _, stderr = runCLI(t, args...)
		if code != 2 || strings.Contains(stderr, "--op") || !strings.Contains(stderr, "missing.safetensors") {
			t.Errorf("apply --op %s: exit %d %q: want the missing --in named, not --op", name, code, stderr)
		}
		bundle := filepath.Join(dir, "g.safetensors")
		gargs := []string{"golden", "--model", "gpt-j-6b", "--op", name, "--tokens", "2", "--out", bundle}
		if canon == ops.QueryScale.Name() {
			gargs = append(gargs, "--query-scale", "llama4") // GPT-J has no rule of its own
		}
		if code, _, stderr := runCLI(t, gargs...); code != 0 {
			t.Errorf("golden --op %s: exit %d: %s", name, code, stderr)
		} else if f, err := safetensors.ReadFile(bundle); err != nil || f.Metadata["op"] != canon {
			t.Errorf("golden --op %s: bundle op %q (%v), want %s", name, f.Metadata["op"], err, canon)
		}
		code, stdout, stderr = runCLI(t, "bench", "--json", "--quiet", "--op", name, "--backend", "native", "--dtype", "F32", "--tokens", "1", "--time", "1ms")
		if code != 0 {
			t.Errorf("bench --op %s: exit %d: %s", name, code, stderr)
			continue
		}
		figures := jsonLines(t, stdout)
		if len(figures) == 0 {
			t.Errorf("bench --op %s: no figures", name)
		}
		for _, o := range figures {
			if o["op"] != canon {
				t.Errorf("bench --op %s measured %v, want %s", name, o["op"], canon)
			}
		}
	}
	for _, bad := range []string{"no_such_op", "NPU_ROTARY_MUL", "npu_rotary_mull"} {
		for _, args := range [][]string{
			{"apply", "--model", "gpt-j-6b", "--op", bad, "--in", missing, "--out", filepath.Join(dir, "out.safetensors")},
			{"check", "--model", "gpt-j-6b", "--op", bad},
			{"bench", "--quiet", "--op", bad},
			{"ops", bad},
			{"golden", "--model", "gpt-j-6b", "--op", bad, "--out", filepath.Join(dir, "bad.safetensors")},
		} {
			wantUsageLine(t, args, bad)
			_, _, stderr := runCLI(t, args...)
			for _, known := range ops.NamesWithAliases() {
				if !strings.Contains(stderr, known) {
					t.Errorf("%v: %q does not list %s", args, stderr, known)
				}
			}
		}
	}
	// The example: rotary's name and torch_npu's find the same errors.
	for _, name := range []string{"interleave_rope", "npu_interleave_rope"} {
		code, stdout, _ := runCLI(t, "check", "--model", "llama-3.1-8b", "--op", name, "--json")
		if n := len(jsonLines(t, stdout)); code != 1 || n != 2 {
			t.Errorf("check --op %s on llama-3.1-8b: exit %d, %d findings: want exit 1 and the two interleave_rope errors", name, code, n)
		}
	}
}
