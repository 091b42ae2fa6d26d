package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/golden"
)

// TestApplyGoldenDefaults: `apply --in GOLDEN --out X` with no other flag takes the bundle's
// recorded apply_args (model or config, layer, op and its flags) and reproduces out.* bit for
// bit, saying on stderr what it used; flags given override the record.
func TestApplyGoldenDefaults(t *testing.T) {
	dir := t.TempDir()
	cfg := presetConfig(t, dir, "qwen3-8b")
	for _, c := range []struct {
		name string
		args []string
		want string // in the stderr note
	}{
		{"preset", []string{"--model", "llama-3.1-8b", "--dtype", "BF16", "--tokens", "3"}, "--model llama-3.1-8b --layer 0"},
		{"config", []string{"--config", cfg, "--tokens", "2", "--positions", "random"}, "--config " + cfg},
		{"op flags", []string{"--model", "qwen2.5-vl-7b", "--tokens", "2"}, "--mrope-section 16,24,24"},
		{"layer", []string{"--model", "gemma-3-4b", "--layer", "5", "--tokens", "2", "--positions", "range:100"}, "--layer 5"},
		{"no model", []string{"--model", "glm-4-9b", "--op", "npu_rotary_mul", "--layout", "BNSD", "--tokens", "2"}, "--layout BNSD"},
		{"npy", []string{"--model", "phi-2", "--tokens", "2", "--format", "npy"}, "--model phi-2"},
	} {
		g := filepath.Join(dir, c.name+".safetensors")
		if slices := c.args; len(slices) > 0 && slices[len(slices)-1] == "npy" {
			g = filepath.Join(dir, c.name)
		}
		goldenRun(t, append(c.args, "--out", g)...)
		stderr := goldenApplyWithNPY(t, g)
		if !strings.Contains(stderr, "golden bundle: used its recorded") || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: apply's stderr %q: want a note of the recorded args used, with %q", c.name, stderr, c.want)
		}
	}

	// Flags given win: the Gemma 3 bundle is of a full layer (5); --layer 0 is a sliding one.
	out := filepath.Join(dir, "override.safetensors")
	code, _, stderr := runCLI(t, "apply", "--in", filepath.Join(dir, "layer.safetensors"), "--out", out, "--layer", "0")
	if code != 0 || strings.Contains(stderr, "--layer 5") {
		t.Fatalf("apply --layer 0 on a layer-5 bundle: exit %d, stderr %q: want --layer 0 used", code, stderr)
	}
	if same(t, out, filepath.Join(dir, "layer.safetensors")) {
		t.Errorf("apply --layer 0 on a layer-5 Gemma 3 bundle wrote the layer-5 outputs")
	}
	// Another op takes none of the recorded op's flags: the model of a rotary_embedding bundle
	// is not handed to an op that takes cos/sin as tensors.
	code, _, stderr = runCLI(t, "apply", "--in", filepath.Join(dir, "preset.safetensors"), "--out", out, "--op", "npu_rotary_mul")
	if code != 2 || strings.Contains(stderr, "--config/--model") || !strings.Contains(stderr, "missing tensor") {
		t.Errorf("apply --op npu_rotary_mul on a rotary_embedding bundle: exit %d, %q: want the op's missing input named", code, stderr)
	}
}

// goldenApplyWithNPY is goldenApplyWith with no flags for a safetensors bundle, or, for an npy
// directory, apply's own comparison through diff.
func goldenApplyWithNPY(t *testing.T, g string) string {
	t.Helper()
	if !strings.HasSuffix(g, ".safetensors") {
		out := filepath.Join(t.TempDir(), "applied.safetensors")
		code, _, stderr := runCLI(t, "apply", "--in", g, "--out", out)
		if code != 0 {
			t.Fatalf("apply on %s: exit %d: %s", g, code, stderr)
		}
		if code, stdout, stderr := runCLI(t, "verify", "--ulp", "0", "--atol", "0", g, out); code != 0 {
			t.Fatalf("apply on %s: verify exit %d: %s%s", g, code, stdout, stderr)
		}
		return stderr
	}
	return goldenApplyWith(t, g)
}

// same reports whether apply's output equals the bundle's out.* tensors bit for bit.
func same(t *testing.T, applied, bundle string) bool {
	t.Helper()
	code, _, _ := runCLI(t, "verify", "--ulp", "0", "--atol", "0", "--explain=false", bundle, applied)
	return code == 0
}

// TestApplyGoldenConfigChanged: a bundle's config that changed since (the recorded path, or one
// given) is refused naming both hashes; so is another preset.
func TestApplyGoldenConfigChanged(t *testing.T) {
	dir := t.TempDir()
	cfg := presetConfig(t, dir, "qwen3-8b")
	g := filepath.Join(dir, "g.safetensors")
	goldenRun(t, "--config", cfg, "--tokens", "2", "--out", g)
	recorded := golden.ConfigSum(mustRead(t, cfg))
	js := strings.Replace(string(mustRead(t, cfg)), `"rope_theta": 1000000`, `"rope_theta": 500000`, 1)
	if js == string(mustRead(t, cfg)) {
		t.Fatalf("qwen3-8b's config has no rope_theta 1000000 to change")
	}
	other := writeFile(t, dir, "other.json", []byte(js))
	changed := golden.ConfigSum([]byte(js))
	out := filepath.Join(dir, "out.safetensors")
	for _, c := range []struct {
		name  string
		setup func()
		args  []string
		want  []string
	}{
		{"given", nil, []string{"--config", other}, []string{changed, recorded}},
		{"preset", nil, []string{"--model", "llama-3.1-8b"}, []string{recorded, "llama-3.1-8b"}},
		{"recorded path changed", func() { writeFile(t, dir, "qwen3-8b.json", []byte(js)) }, nil, []string{changed, recorded, "recorded"}},
	} {
		if c.setup != nil {
			c.setup()
		}
		code, _, stderr := runCLI(t, append([]string{"apply", "--in", g, "--out", out}, c.args...)...)
		if code != 2 {
			t.Errorf("%s: exit %d, want 2 (%s)", c.name, code, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: stderr %q lacks %q", c.name, stderr, w)
			}
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: --out written on a refusal", c.name)
		}
	}
}
