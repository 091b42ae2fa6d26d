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
