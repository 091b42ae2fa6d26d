//go:build linux

package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPeakRSS runs commands whose output or input claim is large in a child process and holds
// each to a peak RSS that does not grow with what they write or what a header claims: the
// README's "memory bounded by the input's real size and the work asked for". The child reports
// its address space's high-water mark (VmHWM in /proc/self/status), which starts afresh at
// exec; ru_maxrss would not, and counts the parent's pages the child shared before it.
func TestPeakRSS(t *testing.T) {
	if args := os.Getenv("ROTARY_TEST_RSS_ARGS"); args != "" {
		var a []string
		if err := json.Unmarshal([]byte(args), &a); err != nil {
			os.Exit(99)
		}
		code := run(a, io.Discard, io.Discard)
		status, _ := os.ReadFile("/proc/self/status")
		for _, line := range strings.Split(string(status), "\n") {
			if strings.HasPrefix(line, "VmHWM:") {
				os.Stdout.WriteString(line + "\n")
			}
		}
		os.Exit(code)
	}
	if testing.Short() || raceEnabled {
		t.Skip("writes some hundreds of MiB; the race detector's memory is its own")
	}
	dir := t.TempDir()
	// A GGUF header claiming 20 million key/values, in a sparse file big enough to hold them.
	hostile := filepath.Join(dir, "hostile.gguf")
	head := []byte("GGUF")
	head = binary.LittleEndian.AppendUint32(head, 3)
	head = binary.LittleEndian.AppendUint64(head, 0)
	head = binary.LittleEndian.AppendUint64(head, 20_000_000)
	if err := os.WriteFile(hostile, head, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(hostile, 256<<20); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.safetensors")
	// Two 40 MiB golden bundles (Llama 3.1 8B, 2048 tokens, BF16: 20 MiB of inputs, 20 of
	// outputs), the second at positions one further on.
	g1, g2 := filepath.Join(dir, "g1.safetensors"), filepath.Join(dir, "g2.safetensors")
	for i, g := range []string{g1, g2} {
		args := []string{"golden", "--model", "llama-3.1-8b", "--tokens", "2048", "--dtype", "BF16", "--positions", fmt.Sprint("range:", 100+i), "--out", g}
		if code := run(args, io.Discard, io.Discard); code != 0 {
			t.Fatalf("%v: exit %d", args, code)
		}
	}
	for _, c := range []struct {
		name  string
		args  []string
		code  int
		maxMB int64
	}{
		// Baseline: the test binary itself, for scale.
		{"presets", []string{"presets"}, 0, 64},
		// A 384 MiB table (2^22 rows of 24) and 2 × 192 MiB of gathered BF16 rows.
		{"cache --positions", []string{"cache", "--model", "gpt-neox-20b", "--positions", "4194304", "--out", out}, 0, 96},
		{"cache --gather", []string{"cache", "--model", "gpt-neox-20b", "--gather", "range:4194304", "--dtype", "BF16", "--out", out}, 0, 96},
		{"inspect hostile gguf", []string{"inspect", hostile}, 2, 64},
		{"golden cp_size 65537", []string{"golden", "--op", "apply_rotary_emb_thd", "--cp-size", "65537", "--model", "llama-3.1-8b", "--out", out}, 2, 64},
		// Reading a 40 MiB bundle holds its tensors once; outputs are encoded as they are
		// written (the 20 MiB of apply's; golden's 40 MiB after the 20 MiB of inputs it must
		// copy before rotating them in place).
		{"show", []string{"show", g1}, 0, 40 + 24},
		{"apply --in GOLDEN", []string{"apply", "--in", g1, "--out", out}, 0, 40 + 24},
		{"golden 2048 tokens", []string{"golden", "--model", "llama-3.1-8b", "--tokens", "2048", "--dtype", "BF16", "--out", out}, 0, 40 + 20 + 40},
		{"diff", []string{"diff", g1, g2}, 1, 80 + 24},
		{"verify --explain=false", []string{"verify", "--explain=false", g1, g2}, 1, 80 + 24},
		// explain recomputes the 20 MiB of outputs under each reading: the garbage the
		// collector has not reclaimed yet comes on top.
		{"verify", []string{"verify", g1, g2}, 1, 3*80 + 32},
	} {
		args, _ := json.Marshal(c.args)
		cmd := exec.Command(os.Args[0], "-test.run=^TestPeakRSS$")
		cmd.Env = append(os.Environ(), "ROTARY_TEST_RSS_ARGS="+string(args))
		stdout, err := cmd.Output()
		code := 0
		if exit, ok := err.(*exec.ExitError); ok {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != c.code {
			t.Errorf("%s: exit %d, want %d", c.name, code, c.code)
		}
		var kb int64
		if _, err := fmt.Sscanf(strings.TrimSpace(string(stdout)), "VmHWM: %d kB", &kb); err != nil {
			t.Fatalf("%s: the child reported %q", c.name, stdout)
		}
		rss := kb >> 10
		t.Logf("%s: peak RSS %d MiB", c.name, rss)
		if rss > c.maxMB {
			t.Errorf("%s: peak RSS %d MiB, want at most %d", c.name, rss, c.maxMB)
		}
	}
}
