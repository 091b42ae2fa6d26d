package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// TestInspectAs: inspect --as prints the spec as the framework derives it, and names the rule in
// a note; the flags that pick one rule still win over the dialect's.
func TestInspectAs(t *testing.T) {
	dir := t.TempDir()
	laguna := writeFile(t, dir, "laguna.json", []byte(`{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,
		"max_position_embeddings":8192,"rope_theta":500000,
		"rope_scaling":{"rope_type":"yarn","factor":64,"original_max_position_embeddings":4096,"attention_factor":1.0}}`))
	attention := func(args ...string) (float64, string) {
		t.Helper()
		code, out, stderr := runCLI(t, append([]string{"inspect", laguna, "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var r struct {
			AttentionFactor float64  `json:"attention_factor"`
			Notes           []string `json:"notes"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		return r.AttentionFactor, strings.Join(r.Notes, "\n")
	}
	if att, _ := attention(); att != 1 {
		t.Errorf("reference: attention factor %v, want 1", att)
	}
	att, notes := attention("--as", "sglang")
	if math.Abs(att-(0.1*math.Log(64)+1)) > 1e-15 || !strings.Contains(notes, "as sglang, yarn_attention_factor") {
		t.Errorf("--as sglang: attention factor %v, notes %q", att, notes)
	}

	dyn := writeFile(t, dir, "dyn.json", []byte(`{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,
		"max_position_embeddings":8192,"rope_theta":10000,"rope_scaling":{"rope_type":"dynamic","factor":2}}`))
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "static"},
		{[]string{"--as", "hf"}, "per-call"},
		{[]string{"--as", "vllm"}, "max-trained"},
		{[]string{"--as", "vllm", "--dynamic", "static"}, "static"},
	} {
		code, out, stderr := runCLI(t, append([]string{"inspect", dyn}, c.args...)...)
		if code != 0 || !strings.Contains(out, "length="+c.want) {
			t.Errorf("%v: exit %d, stderr %q, output lacks length=%s:\n%s", c.args, code, stderr, c.want, out)
		}
	}
	// vLLM v0.11's LongRoPE switch moves the spec's original length one on and pins the attention
	// factor: inspect says the factor is given, not derived from the moved length.
	code, out, stderr := runCLI(t, "inspect", "--model", "phi-3-mini-128k", "--as", "vllm-0.11")
	if code != 0 || !strings.Contains(out, "original=4097") || !strings.Contains(out, "attention factor as given") ||
		strings.Contains(out, "attention from factor") || !strings.Contains(out, "past 4096, not at it") {
		t.Errorf("phi-3 --as vllm-0.11: exit %d, stderr %q:\n%s", code, stderr, out)
	}
	code, out, stderr = runCLI(t, "inspect", "--model", "qwen3-8b", "--as", "tgi")
	if code != 2 || out != "" || !strings.Contains(stderr, "--as") || !strings.Contains(stderr, "vllm-0.11") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("--as tgi: exit %d, stdout %q, stderr %q: want exit 2, one line naming --as and the dialects", code, out, stderr)
	}
}

// TestApplyAs: apply --as rotates by the framework's rules, still in exact arithmetic: gpt-oss
// under llama.cpp's correction range (floored and ceiled), checked against the float64 rotation
// of the spec that dialect derives, and different from the reference's outputs.
func TestApplyAs(t *testing.T) {
	dir := t.TempDir()
	pos := []int64{0, 1, 4095, 4096, 100000, 131071}
	const D, heads = 64, 2
	x := randomHeads(len(pos)*heads*D, 7)
	in := writeTensors(t, dir, "in.safetensors",
		toFile("positions", tensor.FromI64(pos, len(pos))),
		encodeAs(tensor.F32, "query", []int{len(pos), heads, D}, x))
	outs := map[string][]float64{}
	for _, as := range []string{"", "llama.cpp"} {
		out := filepath.Join(dir, "out"+as+".safetensors")
		args := []string{"apply", "--model", "gpt-oss-20b", "--in", in, "--out", out}
		if as != "" {
			args = append(args, "--as", as)
		}
		if code, _, stderr := runCLI(t, args...); code != 0 {
			t.Fatalf("--as %q: exit %d: %s", as, code, stderr)
		}
		f, err := safetensors.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		q, ok := f.Get("query")
		if !ok {
			t.Fatal("no query in the output")
		}
		y := decode(t, q)
		d, err := hf.ParseDialect(as)
		if err != nil {
			t.Fatal(err)
		}
		m, err := hf.ParseOptions{Dialect: d}.Preset("gpt-oss-20b")
		if err != nil {
			t.Fatal(err)
		}
		xs := make([]float64, len(x))
		for i, v := range x {
			xs[i] = float64(v)
		}
		checkRotation(t, "gpt-oss --as "+as, tensor.F32, D, D, false, pos, xs, y, func(int64) ([]float64, float64) { return m.Spec.Frequencies(-1) })
		outs[as] = y
	}
	differ := 0
	for i := range outs[""] {
		if math.Abs(outs[""][i]-outs["llama.cpp"][i]) > 1e-3 {
			differ++
		}
	}
	if differ == 0 {
		t.Errorf("--as llama.cpp rotated gpt-oss as the reference does")
	}
}
