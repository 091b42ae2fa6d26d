package main

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestEmptyListEntries: an empty entry in a comma-separated flag, or an empty op name given
// explicitly, is refused (exit 2, naming the flag), not dropped or turned into the default.
func TestEmptyListEntries(t *testing.T) {
	out := filepath.Join(t.TempDir(), "g.safetensors")
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"bench", "--tokens", "1,,2", "--time", "1ms"}, "--tokens"},
		{[]string{"bench", "--model", ",", "--time", "1ms"}, "--model"},
		{[]string{"bench", "--dtype", "F32,", "--time", "1ms"}, "--dtype"},
		{[]string{"bench", "--op", ",rotary_embedding", "--time", "1ms"}, "--op"},
		{[]string{"bench", "--backend", "cpu,,native", "--time", "1ms"}, "--backend"},
		{[]string{"golden", "--op", "", "--model", "llama-3.1-8b", "--out", out}, "--op"},
	} {
		code, stdout, errOut := runCLI(t, c.args...)
		if code != 2 || stdout != "" || !strings.Contains(errOut, c.flag) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q: want exit 2 naming %s", c.args, code, stdout, errOut, c.flag)
		}
	}
}

// TestGoldenChecksBeforeBuilding: golden refuses a context-parallel size or rank the op would
// refuse before it builds inputs sized by them: --cp-size 65537 cost 2 GB of inputs first.
func TestGoldenChecksBeforeBuilding(t *testing.T) {
	out := filepath.Join(t.TempDir(), "g.safetensors")
	for _, args := range [][]string{
		{"golden", "--op", "apply_rotary_emb_thd", "--cp-size", "65537", "--model", "llama-3.1-8b", "--out", out},
		{"golden", "--op", "apply_rotary_emb_thd", "--cp-size", "4", "--cp-rank", "4", "--model", "llama-3.1-8b", "--out", out},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		code, _, errOut := runCLI(t, args...)
		runtime.ReadMemStats(&after)
		if code != 2 || !strings.Contains(errOut, "cp_") {
			t.Errorf("%v: exit %d, stderr %q: want exit 2 naming cp_size or cp_rank", args, code, errOut)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
			t.Errorf("%v: allocated %d bytes before refusing", args, got)
		}
	}
}

// TestBenchNoBarOffTerminal: with stderr not a terminal (a file, a pipe, the tests' buffer),
// bench writes no progress bar: no carriage returns or escapes in what is kept.
func TestBenchNoBarOffTerminal(t *testing.T) {
	code, out, errOut := runCLI(t, "bench", "--op", "rotary_embedding", "--backend", "cpu", "--dtype", "F32", "--tokens", "1", "--model", "llama-3-8b", "--time", "1ms")
	if code != 0 || !strings.Contains(out, "rotary_embedding") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if strings.ContainsAny(errOut, "\r\x1b") {
		t.Errorf("stderr holds the bar's control characters: %q", errOut)
	}
}
