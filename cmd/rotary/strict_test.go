package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const typoConfig = `{"model_type": "llama", "hidden_size": 1024, "num_attention_heads": 8, "num_hidden_layers": 2,
	"rope_theta": 500000, "max_position_embeddings": 131072,
	"rope_scaling": {"rope_type": "yarn", "factor": 4, "orginal_max_position_embeddings": 32768}}`

// TestStrictUnreadKeys: inspect and check warn about a rope key nobody reads, naming the closest
// known key; --strict refuses the config (exit 2, nothing written) on every command that reads
// one.
func TestStrictUnreadKeys(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "config.json", []byte(typoConfig))
	const want = "did you mean original_max_position_embeddings?"
	if code, out, errOut := runCLI(t, "inspect", cfg); code != 0 || !strings.Contains(out, "warning:") || !strings.Contains(out, want) {
		t.Errorf("inspect: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, _ := runCLI(t, "check", "--config", cfg); code != 0 || !strings.Contains(out, "warning [unread-key]") || !strings.Contains(out, want) {
		t.Errorf("check: exit %d\n%s", code, out)
	}
	strictRefuses(t, cfg, want)
	// A config whose keys are all read passes --strict.
	if code, _, errOut := runCLI(t, "inspect", "--strict", "--model", "llama-3.1-8b"); code != 0 {
		t.Errorf("inspect --strict on a preset: exit %d, %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "check", "--strict", "--model", "qwen3-vl-8b"); code != 0 {
		t.Errorf("check --strict on a preset: exit %d, %s", code, errOut)
	}
	// An assumed pairing is a guess too.
	unknown := writeFile(t, dir, "unknown.json", []byte(unknownConfig))
	if code, _, errOut := runCLI(t, "inspect", "--strict", unknown); code != 2 || !strings.Contains(errOut, "pairing assumed") {
		t.Errorf("inspect --strict unknown model_type: exit %d, %q", code, errOut)
	}
	if code, _, errOut := runCLI(t, "inspect", "--strict", "--style", "neox", unknown); code != 0 {
		t.Errorf("inspect --strict --style neox: exit %d, %q", code, errOut)
	}
}

// TestStrictHFFails: a config transformers main cannot run (here a Phi config whose two rotary
// fractions PhiAttention and its linear init read apart) is a warning of inspect and check,
// naming the class that fails, and --strict refuses it (exit 2) on every command.
func TestStrictHFFails(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "config.json", []byte(`{"model_type": "phi", "hidden_size": 2048, "num_attention_heads": 32, "num_hidden_layers": 2,
		"partial_rotary_factor": 0.5, "rope_parameters": {"rope_type": "linear", "factor": 2, "rope_theta": 10000, "partial_rotary_factor": 0.25}}`))
	const want = "transformers main cannot run this config: PhiAttention.forward raises a shape mismatch"
	if code, out, errOut := runCLI(t, "inspect", cfg); code != 0 || !strings.Contains(out, "warning:") || !strings.Contains(out, want) {
		t.Errorf("inspect: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, _ := runCLI(t, "inspect", "--json", cfg); code != 0 || !strings.Contains(out, want) {
		t.Errorf("inspect --json: exit %d\n%s", code, out)
	}
	if code, out, _ := runCLI(t, "check", "--config", cfg); code != 0 || !strings.Contains(out, "warning [hf-fails]") || !strings.Contains(out, want) {
		t.Errorf("check: exit %d\n%s", code, out)
	}
	strictRefuses(t, cfg, want)
}

// strictRefuses checks that every command reading config file cfg refuses it under --strict:
// exit 2, nothing on stdout, nothing written, and a stderr line saying want.
func strictRefuses(t *testing.T, cfg, want string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out.safetensors")
	for _, args := range [][]string{
		{"inspect", "--strict", cfg},
		{"inspect", "--strict", "--json", cfg},
		{"check", "--strict", "--config", cfg},
		{"cache", "--strict", "--config", cfg, "--positions", "4", "--out", out},
		{"golden", "--strict", "--config", cfg, "--tokens", "2", "--out", out},
		{"apply", "--strict", "--config", cfg, "--in", cfg, "--out", out},
	} {
		code, stdout, errOut := runCLI(t, args...)
		if code != 2 || stdout != "" || !strings.Contains(errOut, "--strict") || !strings.Contains(errOut, want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q: want exit 2 saying %q", args, code, stdout, errOut, want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%v: wrote %s", args, out)
		}
	}
}

// TestAssumedPairingNamesTheStyle: for an unknown MLA model_type, inspect, check and the other
// commands say GPT-J was assumed on the rope part and name --style neox as the override.
func TestAssumedPairingNamesTheStyle(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "config.json", []byte(`{"model_type": "acme_mla", "hidden_size": 7168, "num_attention_heads": 128,
		"num_hidden_layers": 4, "rope_theta": 10000, "kv_lora_rank": 512, "qk_rope_head_dim": 64}`))
	const want = "gptj pairing assumed"
	if code, out, _ := runCLI(t, "check", "--config", cfg); code != 0 || !strings.Contains(out, "warning [model-type]") || !strings.Contains(out, want) || !strings.Contains(out, "--style neox") {
		t.Errorf("check: exit %d\n%s", code, out)
	}
	if code, out, _ := runCLI(t, "inspect", cfg); code != 0 || !strings.Contains(out, want) || !strings.Contains(out, "rotary dim:            64") {
		t.Errorf("inspect: exit %d\n%s", code, out)
	}
	if code, _, errOut := runCLI(t, "cache", "--config", cfg, "--positions", "2", "--out", filepath.Join(dir, "c.safetensors")); code != 0 || !strings.Contains(errOut, want) {
		t.Errorf("cache: exit %d, stderr %q", code, errOut)
	}
}

// TestConfigDirectory: every command that takes --config takes a model directory too.
func TestConfigDirectory(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "config.json", []byte(typoConfig))
	out := filepath.Join(t.TempDir(), "o.safetensors")
	for _, args := range [][]string{
		{"inspect", dir},
		{"inspect", "--config", dir},
		{"check", "--config", dir},
		{"cache", "--config", dir, "--positions", "4", "--out", out},
		{"golden", "--config", dir, "--tokens", "2", "--out", out},
	} {
		if code, _, errOut := runCLI(t, args...); code != 0 {
			t.Errorf("%v: exit %d, %s", args, code, errOut)
		}
	}
	if code, _, errOut := runCLI(t, "inspect", t.TempDir()); code != 2 || !strings.Contains(errOut, "config.json") {
		t.Errorf("a directory without config.json: exit %d, %q", code, errOut)
	}
}

// TestVersion: rotary version and --version print the module version and the Go version.
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, errOut := runCLI(t, args...)
		if code != 0 || !strings.HasPrefix(out, "rotary ") || !strings.Contains(out, "go1.") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
	if code, _, _ := runCLI(t, "version", "extra"); code != 2 {
		t.Errorf("version extra: exit %d, want 2", code)
	}
}

// TestFlagHints: a mistyped flag names the closest defined one, and a duration without its unit
// says what form is wanted.
func TestFlagHints(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"inspect", "--modle", "llama-3.1-8b"}, "did you mean --model?"},
		{[]string{"cache", "--positons", "5"}, "did you mean --positions?"},
		{[]string{"bench", "--time", "5"}, "such as 300ms"},
	} {
		if code, _, errOut := runCLI(t, c.args...); code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, errOut, c.want)
		}
	}
	if _, _, errOut := runCLI(t, "inspect", "--zzzzzz"); strings.Contains(errOut, "did you mean") {
		t.Errorf("a flag near nothing got a suggestion: %q", errOut)
	}
}
