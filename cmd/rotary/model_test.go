package main

import (
	"strings"
	"testing"
)

// TestDynamicRules: --dynamic names the three length rules, inspect says which framework and
// version each follows, and an unknown rule is a usage error.
func TestDynamicRules(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "dyn.json", []byte(`{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,
		"max_position_embeddings":8192,"rope_theta":10000,
		"rope_scaling":{"rope_type":"dynamic","factor":2,"original_max_position_embeddings":4096}}`))
	for rule, want := range map[string]string{
		"static": "vLLM 0.21 and earlier", "per-call": "Hugging Face", "max-trained": "vLLM 0.22 and later",
	} {
		code, out, stderr := runCLI(t, "inspect", cfg, "--dynamic", rule)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("--dynamic %s: exit %d, stderr %q; output lacks %q", rule, code, stderr, want)
		}
	}
	if code, _, stderr := runCLI(t, "inspect", cfg, "--dynamic", "hf"); code != 2 || !strings.Contains(stderr, "--dynamic") {
		t.Errorf("--dynamic hf: exit %d, stderr %q: want exit 2 naming --dynamic", code, stderr)
	}
}

// TestAssumedStyleWarning: apply and cache on an unknown model_type warn in one line that the
// pairing is assumed; naming it with --style silences the warning.
func TestAssumedStyleWarning(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "unknown.json", []byte(`{"model_type":"somebody_new","hidden_size":256,"num_attention_heads":2,"rope_theta":10000}`))
	out := dir + "/cache.safetensors"
	code, _, stderr := runCLI(t, "cache", "--config", cfg, "--positions", "4", "--out", out)
	if code != 0 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "somebody_new") || !strings.Contains(stderr, "--style") {
		t.Errorf("cache on an unknown model_type: exit %d, stderr %q: want one warning line naming it and --style", code, stderr)
	}
	code, _, stderr = runCLI(t, "cache", "--config", cfg, "--positions", "4", "--out", out, "--style", "neox")
	if code != 0 || stderr != "" {
		t.Errorf("--style neox: exit %d, stderr %q: want no warning", code, stderr)
	}
}
