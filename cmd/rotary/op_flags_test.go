package main

import (
	"flag"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/golden"
)

// TestOpFlagsRead: the flags the ops declare they read are exactly the flags the ops register.
func TestOpFlagsRead(t *testing.T) {
	fs := flag.NewFlagSet("ops", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	registerOpFlags(fs)
	var registered []string
	fs.VisitAll(func(f *flag.Flag) { registered = append(registered, f.Name) })
	sort.Strings(registered)
	if read := golden.ParamNames(); !slices.Equal(read, registered) {
		t.Errorf("ops read %v, ops register %v", read, registered)
	}
}

// TestOpFlagsRefused: a flag of another op, given to apply or golden, is refused by name
// rather than recorded and ignored.
func TestOpFlagsRefused(t *testing.T) {
	value := map[string]string{"epsilon-qk": "1e-6", "floor-scale": "8192", "attn-scale": "0.1", "beta": "0.1", "original-max": "4096",
		"head-size": "64", "cp-size": "2", "cp-rank": "0", "epsilon": "1e-5", "vision-theta": "10000", "output-kv": "true"}
	out := filepath.Join(t.TempDir(), "o.safetensors")
	for _, op := range golden.Names() {
		for _, f := range golden.ParamNames() {
			if o, _ := golden.Lookup(op); slices.Contains(o.Reads, f) {
				continue
			}
			v := value[f]
			if v == "" {
				v = "x"
			}
			code, _, stderr := runCLI(t, "apply", "--op", op, "--in", "/nonexistent", "--out", out, "--"+f+"="+v)
			want := "--" + f + ": --op " + op + " does not read it"
			if code != 2 || !strings.Contains(stderr, want) {
				t.Errorf("apply --op %s --%s: exit %d, stderr %q", op, f, code, stderr)
			}
		}
	}
	code, _, stderr := runCLI(t, "golden", "--model", "llama-3.1-8b", "--rotary-mode", "interleave", "--out", out)
	if code != 2 || !strings.Contains(stderr, "--rotary-mode: --op rotary_embedding does not read it (it is a flag of apply_rotary_emb,") {
		t.Errorf("golden: exit %d, stderr %q", code, stderr)
	}
}
