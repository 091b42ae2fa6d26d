package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// jsonLines decodes output made of one JSON object per line.
func jsonLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var objs []map[string]any
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil || m == nil {
			t.Fatalf("line %q is not a JSON object: %v", line, err)
		}
		objs = append(objs, m)
	}
	return objs
}

func TestCheckExitCodes(t *testing.T) {
	dir := t.TempDir()
	llama := presetConfig(t, dir, "llama-3.1-8b")
	var ds map[string]any
	js, err := hf.PresetJSON("deepseek-v3")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(js, &ds); err != nil {
		t.Fatal(err)
	}
	ds["max_position_embeddings"] = 131072
	js, _ = json.Marshal(ds)
	yarnWarning := writeFile(t, dir, "deepseek-warn.json", js)
	notJSON := writeFile(t, dir, "bad.json", []byte("{model_type"))

	for _, c := range []struct {
		name     string
		args     []string
		code     int
		findings []string // codes the --json output must hold
	}{
		{"clean preset", []string{"--model", "llama-3.1-8b"}, 0, nil},
		{"clean config file", []string{"--config", llama}, 0, nil},
		{"clean mrope launch", []string{"--model", "qwen3-vl-8b", "--position-embedding-type", "mrope", "--positions-rows", "3", "--cache-mode", "interleave"}, 0, nil},
		{"warning only", []string{"--config", yarnWarning}, 0, []string{"yarn-factor"}},
		{"rotary mode half on gpt-j", []string{"--model", "gpt-j-6b", "--rotary-mode", "half"}, 1, []string{"rotary-mode"}},
		{"mrope on the rope branch", []string{"--model", "qwen3-vl-8b", "--position-embedding-type", "rope"}, 1, []string{"mrope-on-rope-branch"}},
		{"fused rope and fusion on mrope", []string{"--model", "qwen2-vl-7b", "--use-fused-rotary-pos-emb", "--apply-rope-fusion"}, 1, []string{"fused-rope-with-mrope", "rope-fusion-with-mrope"}},
		{"position rows on llama", []string{"--config", llama, "--positions-rows", "3"}, 1, []string{"position-rows"}},
		{"interleave rope on llama", []string{"--model", "llama-3.1-8b", "--op", "npu_interleave_rope"}, 1, []string{"interleave-rope-dim", "interleave-rope-style"}},
		{"config not JSON", []string{"--config", notJSON}, 1, []string{"config-json"}},
		{"missing config", nil, 2, nil},
		{"config file absent", []string{"--config", filepath.Join(dir, "nope.json")}, 2, nil},
		{"unknown preset", []string{"--model", "no-such-model"}, 2, nil},
		{"config and model", []string{"--config", llama, "--model", "llama-3.1-8b"}, 2, nil},
		{"bad cache mode", []string{"--model", "qwen3-vl-8b", "--cache-mode", "chunked"}, 2, nil},
		{"bad position embedding type", []string{"--model", "llama-3.1-8b", "--position-embedding-type", "alibi"}, 2, nil},
		{"rows not a number", []string{"--model", "llama-3.1-8b", "--positions-rows", "three"}, 2, nil},
		{"unknown flag", []string{"--model", "llama-3.1-8b", "--no-such-flag"}, 2, nil},
		{"stray argument", []string{"--model", "llama-3.1-8b", "extra"}, 2, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, asJSON := range []bool{false, true} {
				args := append([]string{"check"}, c.args...)
				if asJSON {
					args = append(args, "--json")
				}
				code, stdout, stderr := runCLI(t, args...)
				if code != c.code {
					t.Fatalf("%v: exit %d, want %d (stdout %q stderr %q)", args, code, c.code, stdout, stderr)
				}
				if strings.Contains(stderr, "goroutine") || strings.Contains(stderr, "panic") {
					t.Fatalf("%v: a panic: %s", args, stderr)
				}
				if code == 2 {
					// One line that names the command (flag errors: see TestFlagErrorsOneLine).
					lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
					if stdout != "" || !strings.HasPrefix(lines[len(lines)-1], "rotary check: ") {
						t.Errorf("%v: stdout %q stderr %q: want nothing on stdout, a 'rotary check:' line on stderr", args, stdout, stderr)
					}
					continue
				}
				if !asJSON {
					if code == 0 && len(c.findings) == 0 && !strings.Contains(stdout, "ok") {
						t.Errorf("%v: clean check printed %q", args, stdout)
					}
					for _, f := range c.findings {
						if !strings.Contains(stdout, "["+f+"]") {
							t.Errorf("%v: output lacks [%s]: %s", args, f, stdout)
						}
					}
					continue
				}
				objs := jsonLines(t, stdout)
				var got []string
				for _, o := range objs {
					for _, k := range []string{"severity", "code", "what", "why", "fix"} {
						if s, ok := o[k].(string); !ok || s == "" {
							t.Errorf("%v: finding %v lacks %s", args, o, k)
						}
					}
					got = append(got, o["code"].(string))
					if code == 0 && o["severity"] == "error" {
						t.Errorf("%v: exit 0 with an error finding %v", args, o)
					}
				}
				for _, f := range c.findings {
					if !slices.Contains(got, f) {
						t.Errorf("%v: JSON findings %v lack %s", args, got, f)
					}
				}
				if len(c.findings) == 0 && len(objs) != 0 {
					t.Errorf("%v: findings %v on a clean check", args, got)
				}
			}
		})
	}
}

// TestFlagErrorsOneLine: the command-line contract says bad usage is one clear line on stderr; a flag the
// flag package rejects must not add the usage text before it.
func TestFlagErrorsOneLine(t *testing.T) {
	for _, args := range [][]string{
		{"check", "--model", "llama-3.1-8b", "--positions-rows", "three"},
		{"check", "--model", "llama-3.1-8b", "--no-such-flag"},
		{"ops", "--no-such-flag"},
		{"apply", "--model", "llama-3.1-8b", "--layer", "x"},
	} {
		code, _, stderr := runCLI(t, args...)
		if code != 2 || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q: want exit 2 and one line", args, code, stderr)
		}
	}
}

func TestCheckEveryPresetClean(t *testing.T) {
	for _, name := range hf.PresetNames() {
		code, stdout, stderr := runCLI(t, "check", "--model", name, "--json")
		if code != 0 {
			t.Errorf("%s: exit %d: %s%s", name, code, stdout, stderr)
		}
		for _, o := range jsonLines(t, stdout) {
			if o["severity"] == "error" {
				t.Errorf("%s: error finding %v", name, o)
			}
		}
	}
}

func TestOpsJSON(t *testing.T) {
	for _, c := range []struct {
		spec, backend string
		enabled       func(op string) bool
	}{
		{"all", "auto", func(string) bool { return true }},
		{"none", "auto", func(string) bool { return false }},
		{"none,+rotary_embedding", "auto", func(op string) bool { return op == "rotary_embedding" }},
		{"all,-mrope", "native", func(op string) bool { return op != "mrope" }},
	} {
		code, stdout, stderr := runCLI(t, "ops", "--json", "--custom-ops", c.spec, "--backend", c.backend)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.spec, code, stderr)
		}
		objs := jsonLines(t, stdout)
		var names []string
		for _, o := range objs {
			op, _ := o["op"].(string)
			names = append(names, op)
			backends, ok := o["backends"].([]any)
			if !ok || len(backends) == 0 {
				t.Errorf("%s: %s: backends %v", c.spec, op, o["backends"])
			}
			var bs []string
			for _, b := range backends {
				s, _ := b.(string)
				bs = append(bs, s)
			}
			if !slices.Contains(bs, ops.Native) || !slices.IsSorted(bs) {
				t.Errorf("%s: %s: backends %v: want sorted, with native", c.spec, op, bs)
			}
			enabled, ok := o["enabled"].(bool)
			if !ok || enabled != c.enabled(op) {
				t.Errorf("%s: %s: enabled %v, want %v", c.spec, op, o["enabled"], c.enabled(op))
			}
			serves, _ := o["serves"].(string)
			if !enabled || c.backend == ops.Native {
				if serves != ops.Native {
					t.Errorf("%s backend %s: %s serves %q, want native", c.spec, c.backend, op, serves)
				}
			} else if !slices.Contains(bs, serves) {
				t.Errorf("%s: %s serves %q, not one of %v", c.spec, op, serves, bs)
			}
		}
		if !slices.Equal(names, ops.Names()) {
			t.Errorf("%s: ops %v, want %v", c.spec, names, ops.Names())
		}
		for _, n := range []string{"rotary_embedding", "rotary_embedding_gathered", "mrope", "apply_rotary_emb", "apply_rotary_emb_backward"} {
			if !slices.Contains(names, n) {
				t.Errorf("%s: ops --json lacks %s", c.spec, n)
			}
		}
	}
	for _, args := range [][]string{
		{"ops", "--json", "--custom-ops", "all,none"},
		{"ops", "--json", "--custom-ops", "rotary_embedding"},
		{"ops", "--json", "--backend", "tpu"},
	} {
		if code, stdout, stderr := runCLI(t, args...); code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d stdout %q stderr %q: want 2, nothing on stdout, one line on stderr", args, code, stdout, stderr)
		}
	}
}

// TestApplyCustomOpsBitIdentical: which ops are enabled and which backend serves them must not
// change a single bit of the output: the native kernels and every backend compute the same
// rounded products.
func TestApplyCustomOpsBitIdentical(t *testing.T) {
	dir := t.TempDir()
	cfg := presetConfig(t, dir, "llama-3.1-8b")
	m, err := hf.Preset("llama-3.1-8b")
	if err != nil {
		t.Fatal(err)
	}
	D := m.Spec.HeadSize
	const T, H, K = 37, 32, 8
	for _, c := range []struct {
		name string
		pos  []int64
	}{
		// Positions within max_position_embeddings: op rotary_embedding on the cached table.
		{"cached", func() []int64 {
			p := make([]int64, T)
			for i := range p {
				p[i] = int64(i*3571) % 131072
			}
			return p
		}()},
		// A position past it: the per-call gathered path.
		{"past the cache", func() []int64 {
			p := make([]int64, T)
			for i := range p {
				p[i] = int64(i * 9973)
			}
			p[T-1] = 1<<20 - 1
			return p
		}()},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := writeTensors(t, dir, c.name+".in.safetensors",
				safetensors.FromInt64s("positions", []int{T}, c.pos),
				encodeAs(tensor.BF16, "query", []int{T, H, D}, randomHeads(T*H*D, 11)),
				encodeAs(tensor.BF16, "key", []int{T, K * D}, randomHeads(T*K*D, 12)))
			runs := [][]string{
				{"--custom-ops", "none"},
				{"--custom-ops", "all", "--backend", "native"},
				{"--custom-ops", "none,+rotary_embedding"},
				{"--custom-ops", "all"},
				{"--custom-ops", "none,+rotary_embedding", "--backend", "native"},
			}
			var first []byte
			for i, extra := range runs {
				out := filepath.Join(dir, c.name+"."+strings.Join(extra, "_")+".out.safetensors")
				args := append([]string{"apply", "--config", cfg, "--in", in, "--out", out}, extra...)
				if code, stdout, stderr := runCLI(t, args...); code != 0 {
					t.Fatalf("%v: exit %d: %s%s", extra, code, stdout, stderr)
				}
				data, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				if i == 0 {
					first = data
					f, err := safetensors.ReadFile(out)
					if err != nil {
						t.Fatal(err)
					}
					inF, err := safetensors.ReadFile(in)
					if err != nil {
						t.Fatal(err)
					}
					for _, name := range []string{"query", "key"} {
						got, ok1 := f.Get(name)
						src, ok2 := inF.Get(name)
						if !ok1 || !ok2 || got.DType != "BF16" || !slices.Equal(got.Shape, src.Shape) {
							t.Fatalf("%s: output %+v", name, got.Shape)
						}
						if bytes.Equal(got.Data, src.Data) {
							t.Errorf("%s: output equals input: nothing rotated", name)
						}
					}
					continue
				}
				if !bytes.Equal(data, first) {
					t.Errorf("%v: output differs from --custom-ops none", extra)
				}
			}
		})
	}
}
