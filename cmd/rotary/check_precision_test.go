package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/check"
)

func TestCheckPrecisionCLI(t *testing.T) {
	code, out, stderr := runCLI(t, "check", "--model", "qwen3-8b", "--precision", "--json")
	var r check.PrecisionReport
	if err := json.Unmarshal([]byte(out), &r); code != 0 || err != nil {
		t.Fatalf("exit %d, stderr %q, %v", code, stderr, err)
	}
	if len(r.Lengths) != 1 || r.Lengths[0].Name != "max" || r.Lengths[0].Length != 40960 || r.Lengths[0].From != 0 {
		t.Errorf("qwen3-8b (no scaling): %+v, want the max length 40960 alone, from 0", r.Lengths)
	}
	code, out, _ = runCLI(t, "check", "--model", "llama-3.1-8b", "--precision")
	if code != 0 || !strings.Contains(out, "original length 8192") || !strings.Contains(out, "max length 131072") {
		t.Errorf("text: exit %d\n%s", code, out)
	}
}
