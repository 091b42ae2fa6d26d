package main

import (
	"strings"
	"testing"
)

// TestCheckFrameworksVerbose: --frameworks prints the rules a dialect was not verified for only
// when they read the config two ways; -v prints them all, --json carries them all either way,
// and -v without --frameworks is a usage error rather than a flag that does nothing.
func TestCheckFrameworksVerbose(t *testing.T) {
	const header = "not compared (not verified in the framework's source, or not modelled):"
	code, out, stderr := runCLI(t, "check", "--model", "qwen3-8b", "--frameworks")
	if code != 0 || strings.Contains(out, header) {
		t.Errorf("qwen3-8b --frameworks: exit %d, stderr %q:\n%s\nwant 0 and no not-compared list", code, stderr, out)
	}
	code, out, _ = runCLI(t, "check", "--model", "qwen3-8b", "--frameworks", "-v")
	if code != 0 || !strings.Contains(out, header+"\n  hf-4.57: partial_rotary_factor, indexer_pairing\n") {
		t.Errorf("qwen3-8b --frameworks -v: exit %d:\n%s\nwant the whole list", code, out)
	}
	for _, args := range [][]string{{"--frameworks", "--json"}, {"--frameworks", "--json", "-v"}} {
		code, r, stderr := checkFrameworks(t, append([]string{"--model", "qwen3-8b"}, args[2:]...)...)
		if code != 0 || r == nil || len(r.Unverified["llama.cpp"]) != 14 {
			t.Errorf("%v: exit %d, stderr %q, unverified %v: want llama.cpp's 14 rules", args, code, stderr, r)
		}
	}
	for _, args := range [][]string{{"-v"}, {"-v", "--precision"}, {"-v", "--json"}} {
		code, out, stderr := runCLI(t, append([]string{"check", "--model", "qwen3-8b"}, args...)...)
		if code != 2 || out != "" || !strings.Contains(stderr, "-v lists the rules --frameworks did not compare") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q: want exit 2 naming --frameworks", args, code, out, stderr)
		}
	}
}
