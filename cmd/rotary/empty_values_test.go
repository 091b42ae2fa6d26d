package main

import (
	"path/filepath"
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
