package main

import (
	"strings"
	"testing"
)

// TestCheckMRoPECacheModeFlag: check takes npu_mrope's cache mode as --mrope-cache-mode, the
// name apply and golden give it (apply's --cache-mode is kv_rmsnorm_rope_cache's Norm, PA, …).
// --cache-mode still takes default or interleave, with the same findings and exit codes; a
// kv-cache mode or two disagreeing values are refused naming the flag.
func TestCheckMRoPECacheModeFlag(t *testing.T) {
	for _, c := range []struct {
		mode string
		code int
		bad  bool // the mrope-cache-mode finding
	}{
		{"default", 1, true}, // Qwen3-VL's interleaved MRoPE on cache_mode default
		{"interleave", 0, false},
	} {
		base := []string{"check", "--model", "qwen3-vl-8b", "--position-embedding-type", "mrope", "--positions-rows", "3", "--json"}
		code, stdout, stderr := runCLI(t, append(append([]string{}, base...), "--mrope-cache-mode", c.mode)...)
		if found := strings.Contains(stdout, `"mrope-cache-mode"`); code != c.code || found != c.bad {
			t.Errorf("--mrope-cache-mode %s: exit %d (want %d), finding %v (want %v)\n%s%s", c.mode, code, c.code, found, c.bad, stdout, stderr)
		}
		oldCode, oldOut, _ := runCLI(t, append(append([]string{}, base...), "--cache-mode", c.mode)...)
		if oldCode != code || oldOut != stdout {
			t.Errorf("--cache-mode %s: exit %d %s, want what --mrope-cache-mode gives: exit %d %s", c.mode, oldCode, oldOut, code, stdout)
		}
		if both, _, _ := runCLI(t, append(append([]string{}, base...), "--cache-mode", c.mode, "--mrope-cache-mode", c.mode)...); both != code {
			t.Errorf("--cache-mode and --mrope-cache-mode both %s: exit %d, want %d", c.mode, both, code)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--mrope-cache-mode", "chunked"}, `--mrope-cache-mode "chunked"`},
		{[]string{"--cache-mode", "chunked"}, `--cache-mode "chunked"`},
		{[]string{"--cache-mode", "PA"}, "--mrope-cache-mode"},
		{[]string{"--cache-mode", "Norm", "--op", "kv_rmsnorm_rope_cache"}, `--cache-mode "Norm"`},
		{[]string{"--cache-mode", "default", "--mrope-cache-mode", "interleave"}, "give one"},
		// --gguf compares two files: no launch flag applies, under either name.
		{[]string{"--gguf", "none.gguf", "--cache-mode", "default"}, "launch flags (--op, --mrope-cache-mode"},
		{[]string{"--gguf", "none.gguf", "--mrope-cache-mode", "interleave"}, "launch flags (--op, --mrope-cache-mode"},
	} {
		wantUsageLine(t, append([]string{"check", "--model", "qwen3-vl-8b"}, c.args...), c.want)
	}
	code, stdout, _ := runCLI(t, "check", "-h")
	if code != 0 || !strings.Contains(stdout, "[--mrope-cache-mode default|interleave]") || !strings.Contains(stdout, "-mrope-cache-mode ") {
		t.Errorf("check -h: exit %d, want --mrope-cache-mode in the usage line and the flags:\n%s", code, stdout)
	}
}
