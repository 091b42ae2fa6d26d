package main

import (
	"strings"
	"testing"

	"github.com/rotary-go/rotary/golden"
)

// TestHelp: asking for help is no error: -h of every command, rotary -h and rotary help CMD
// print to stdout and exit 0, with nothing on stderr.
func TestHelp(t *testing.T) {
	lines := [][]string{{"-h"}, {"--help"}, {"help"}, {"help", "-h"}}
	for _, name := range commandNames() {
		lines = append(lines, []string{name, "-h"}, []string{name, "--help"}, []string{"help", name})
	}
	for _, args := range lines {
		code, stdout, stderr := runCLI(t, args...)
		want := "usage: rotary "
		if len(args) > 1 && !isHelp(args[1]) {
			want += args[len(args)-1]
			if args[0] != "help" {
				want = "usage: rotary " + args[0]
			}
		}
		if code != 0 || stderr != "" || !strings.HasPrefix(stdout, want) {
			t.Errorf("%v: exit %d, stderr %q, stdout %.60q: want exit 0, nothing on stderr, stdout starting %q", args, code, stderr, stdout, want)
		}
	}
	// The command list lines up its summaries, however long a command's name (positions).
	_, stdout, _ := runCLI(t, "-h")
	col := -1
	for _, name := range commandNames() {
		prefix := "  " + name + " "
		i := strings.Index(stdout, "\n"+prefix)
		if i < 0 {
			t.Fatalf("rotary -h does not list %s:\n%s", name, stdout)
		}
		line := stdout[i+1:]
		line = line[:strings.IndexByte(line, '\n')]
		at := len(prefix) + len(line[len(prefix):]) - len(strings.TrimLeft(line[len(prefix):], " "))
		if col < 0 {
			col = at
		} else if at != col {
			t.Errorf("rotary -h: %q: summary at column %d, want %d", line, at, col)
		}
	}
	// A bare `rotary` is a usage mistake, not a request.
	if code, stdout, stderr := runCLI(t); code != 2 || stdout != "" || !strings.HasPrefix(stderr, "usage:") {
		t.Errorf("rotary: exit %d stdout %q stderr %.40q: want exit 2 and the usage on stderr", code, stdout, stderr)
	}
	if code, _, _ := runCLI(t, "help", "no-such-command"); code != 2 {
		t.Errorf("rotary help no-such-command: exit %d, want 2", code)
	}
}

// TestApplyHelp: apply -h lists the flags every op takes, then each op under its name (and
// torch_npu's), each with its own flags and no other op's.
func TestApplyHelp(t *testing.T) {
	code, stdout, _ := runCLI(t, "apply", "-h")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	sections := strings.Split(stdout, "\n--op ")
	common := sections[0]
	for _, f := range []string{"-in ", "-out ", "-op ", "-model ", "-layer ", "-backend "} {
		if !strings.Contains(common, f) {
			t.Errorf("common flags lack %s:\n%s", f, common)
		}
	}
	if len(sections)-1 != len(golden.Names()) {
		t.Fatalf("%d op sections, want %d (one per op)", len(sections)-1, len(golden.Names()))
	}
	// Each op flag is printed once, in its op's section.
	for _, want := range []struct{ op, flag string }{
		{"kv_rmsnorm_rope_cache", "-cache-mode "},
		{"apply_rotary_emb", "-rotary-mode "},
		{"apply_rotary_emb_thd", "-cp-size "},
		{"mrope", "-mrope-section "},
	} {
		if strings.Contains(common, want.flag) {
			t.Errorf("%s is listed with every op's flags", want.flag)
		}
		found := 0
		for i, s := range sections[1:] {
			if strings.Contains(s, "\n  "+want.flag) {
				found++
				if !strings.HasPrefix(s, want.op+" ") && !strings.HasPrefix(s, want.op+":") {
					t.Errorf("%s is in section %d (%.40q), want %s's", want.flag, i, s, want.op)
				}
			}
		}
		if found != 1 {
			t.Errorf("%s in %d sections, want 1", want.flag, found)
		}
	}
	if !strings.Contains(stdout, "\n--op apply_rotary_emb (npu_rotary_mul): ") {
		t.Errorf("apply_rotary_emb's section does not give torch_npu's name")
	}
}
