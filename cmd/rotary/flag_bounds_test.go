package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/golden"
	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/safetensors"
)

// wantUsageLine fails unless the run refused with exit 2 and one stderr line naming want.
func wantUsageLine(t *testing.T, args []string, want string) {
	t.Helper()
	code, stdout, stderr := runCLI(t, args...)
	if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, want) || strings.Contains(stderr, "goroutine") {
		t.Errorf("%v: exit %d stderr %q: want exit 2 and one line naming %q", args, code, stderr, want)
	}
	// bench prints a table header before it measures; a refusal must come before it.
	if code == 2 && stdout != "" {
		t.Errorf("%v: refused but printed %q", args, stdout)
	}
}

// TestBenchRefusesNonPositive: a duration or count that cannot mean anything used to fall back
// to the default without a word, so a typo measured something other than what was asked.
func TestBenchRefusesNonPositive(t *testing.T) {
	// One small figure, so that a run that wrongly goes ahead stays quick.
	one := []string{"bench", "--quiet", "--op", "rotary_embedding", "--backend", "native", "--dtype", "F32"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--tokens", "1", "--time", "-1s"}, "--time"},
		{[]string{"--tokens", "1", "--time", "0"}, "--time"},
		{[]string{"--tokens", "1", "--time", "0s"}, "--time"},
		{[]string{"--tokens", "1", "--time", "-1ns"}, "--time"},
		{[]string{"--tokens", "1", "--time", "soon"}, "time"},
		{[]string{"--time", "1ms", "--tokens", "0"}, "--tokens"},
		{[]string{"--time", "1ms", "--tokens", "-16"}, "--tokens"},
		{[]string{"--time", "1ms", "--tokens", "1,-1"}, "--tokens"},
		{[]string{"--time", "1ms", "--tokens", "1.5"}, "--tokens"},
		{[]string{"--time", "1ms", "--tokens", "99999999999999999999"}, "--tokens"},
	} {
		wantUsageLine(t, append(append([]string{}, one...), c.args...), c.want)
	}
}

// TestCheckOp: --op names the fused op whose limits are checked; an unknown name used to pass as
// "ok", so a misspelt op silently skipped its checks.
func TestCheckOp(t *testing.T) {
	for _, op := range []string{"no_such_op", "npu_interleave_rop", "INTERLEAVE_ROPE", " interleave_rope"} {
		args := []string{"check", "--model", "llama-3.1-8b", "--op", op}
		wantUsageLine(t, args, "--op")
		_, _, stderr := runCLI(t, args...)
		for _, known := range []string{"interleave_rope", "npu_interleave_rope", "npu_rotary_mul", "rotary_embedding"} {
			if !strings.Contains(stderr, known) {
				t.Errorf("%v: %q does not list %s", args, stderr, known)
			}
		}
	}
	// Every name `rotary apply --op` takes names an op to check against.
	for _, op := range golden.Names() {
		if code, _, stderr := runCLI(t, "check", "--model", "gpt-j-6b", "--op", op); code != 0 {
			t.Errorf("check --op %s (apply's name): exit %d: %s", op, code, stderr)
		}
	}
	// rotary's name and torch_npu's are one op: the same findings.
	for _, pair := range [][2]string{
		{"interleave_rope", "npu_interleave_rope"},
		{"apply_rotary_emb", "npu_rotary_mul"},
		{"mrope", "npu_mrope"},
		{"kv_rmsnorm_rope_cache", "npu_kv_rmsnorm_rope_cache"},
	} {
		var got [2]string
		var codes [2]int
		for i, op := range pair {
			codes[i], got[i], _ = runCLI(t, "check", "--model", "llama-3.1-8b", "--cache-mode", "interleave", "--op", op, "--json")
		}
		if codes[0] != codes[1] || got[0] != got[1] {
			t.Errorf("--op %s: exit %d %s\n--op %s: exit %d %s", pair[0], codes[0], got[0], pair[1], codes[1], got[1])
		}
	}
	// The interleave_rope limits apply under rotary's name too.
	code, stdout, _ := runCLI(t, "check", "--model", "llama-3.1-8b", "--op", "interleave_rope", "--json")
	var found []string
	for _, o := range jsonLines(t, stdout) {
		found = append(found, o["code"].(string))
	}
	if code != 1 || !strings.Contains(strings.Join(found, " "), "interleave-rope-dim") {
		t.Errorf("check --op interleave_rope on llama: exit %d findings %v: want exit 1 and interleave-rope-dim", code, found)
	}
}

// TestLayerBounds: --layer picks a layer's RoPE; one past the model's layers used to print or
// write the RoPE of a layer that does not exist, and cache and apply share the flag.
func TestLayerBounds(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.safetensors")
	in := writeTensors(t, dir, "in.safetensors",
		safetensors.FromInt64s("positions", []int{2}, []int64{0, 1}),
		safetensors.FromFloat32s("query", []int{2, 32 * 128}, randomHeads(2*32*128, 1)))
	commands := map[string][]string{
		"inspect": {"inspect"},
		"cache":   {"cache", "--out", out, "--positions", "4"},
		"apply":   {"apply", "--in", in, "--out", out},
	}
	for name, cmd := range commands {
		for _, c := range []struct {
			model string
			layer string
			ok    bool
		}{
			{"gemma-3-4b", "0", true},
			{"gemma-3-4b", "33", true},
			{"gemma-3-4b", "34", false},
			{"gemma-3-4b", "9223372036854775807", false},
			{"gemma-3-4b", "-1", false},
			{"gemma-3-4b", "-9223372036854775808", false},
			{"llama-3.1-8b", "31", true},
			{"llama-3.1-8b", "32", false},
			{"llama-3.1-8b", "1000000", false},
		} {
			args := append(append([]string{}, cmd...), "--model", c.model, "--layer", c.layer)
			if name == "apply" && c.model != "llama-3.1-8b" {
				continue // the query above has llama's heads
			}
			if c.ok {
				if code, _, stderr := runCLI(t, args...); code != 0 {
					t.Errorf("%v: exit %d: %s", args, code, stderr)
				}
				continue
			}
			wantUsageLine(t, args, "--layer")
		}
	}
	// A config without num_hidden_layers takes its config class's default (LlamaConfig: 32);
	// a family without a config class has no bound to check against.
	for _, c := range []struct {
		preset string
		ok     bool
	}{{"llama-3.1-8b", false}, {"internlm3-8b-instruct", true}} {
		data, err := hf.PresetJSON(c.preset)
		if err != nil {
			t.Fatal(err)
		}
		var top map[string]any
		if err := json.Unmarshal(data, &top); err != nil {
			t.Fatal(err)
		}
		delete(top, "num_hidden_layers")
		data, _ = json.Marshal(top)
		cfg := writeFile(t, dir, c.preset+"-no-layers.json", data)
		args := []string{"inspect", "--config", cfg, "--layer", "1000"}
		if !c.ok {
			wantUsageLine(t, args, "the model has 32 layers")
			continue
		}
		if code, _, stderr := runCLI(t, args...); code != 0 {
			t.Errorf("%s without num_hidden_layers --layer 1000: exit %d: %s", c.preset, code, stderr)
		}
	}
}

// TestCPSizeBounds: --cp-size 0 used to run as 1 without a word.
func TestCPSizeBounds(t *testing.T) {
	const H, D, d, S = 2, 16, 8, 32
	xf, _ := extraF32("x", []int{12, H, D}, 1)
	dyf, _ := extraF32("dy", []int{12, H, D}, 2)
	cf, _ := extraF32("cos", []int{S, d}, 3)
	sf, _ := extraF32("sin", []int{S, d}, 4)
	cu := safetensors.FromInt32s("cu_seqlens", []int{3}, []int32{0, 8, 12})
	for _, size := range []string{"0", "-1", "-2"} {
		for _, c := range []struct {
			op string
			x  safetensors.Tensor
		}{{"apply_rotary_emb_thd", xf}, {"apply_rotary_emb_thd_backward", dyf}} {
			_, code, stderr := extraOpRun(t, []safetensors.Tensor{c.x, cf, sf, cu}, "--op", c.op, "--cp-size", size)
			if code != 2 || !strings.Contains(stderr, "--cp-size") {
				t.Errorf("%s --cp-size %s: exit %d stderr %q: want 2 naming --cp-size", c.op, size, code, stderr)
			}
		}
	}
	if _, code, stderr := extraOpRun(t, []safetensors.Tensor{xf, cf, sf, cu}, "--op", "apply_rotary_emb_thd", "--cp-size", "1"); code != 0 {
		t.Errorf("--cp-size 1: exit %d: %s", code, stderr)
	}
}
