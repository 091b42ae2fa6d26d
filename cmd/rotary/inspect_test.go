package main

import (
	"strings"
	"testing"
)

// TestInspectPresetNameAsFile: `rotary inspect NAME` with NAME a preset, not a file, says to
// use --model NAME; a path that is neither keeps the loader's error.
func TestInspectPresetNameAsFile(t *testing.T) {
	t.Chdir(t.TempDir())
	wantUsageLine(t, []string{"inspect", "gemma-3-4b"}, "--model gemma-3-4b")
	_, _, stderr := runCLI(t, "inspect", "no-such-model")
	if strings.Contains(stderr, "--model") {
		t.Errorf("inspect no-such-model: %q suggests a preset that does not exist", stderr)
	}
}
