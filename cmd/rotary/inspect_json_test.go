package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/hf"
)

var snakeKey = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// snakeKeys reports every object key under v that is not snake_case, with its path.
func snakeKeys(t *testing.T, path string, v any) {
	t.Helper()
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if !snakeKey.MatchString(k) {
				t.Errorf("%s: key %q is not snake_case", path, k)
			}
			snakeKeys(t, path+"."+k, x)
		}
	case []any:
		for _, x := range v {
			snakeKeys(t, path+"[]", x)
		}
	}
}

// TestInspectJSONSnakeCase: inspect --json names every key in snake_case, those of the scaling,
// MRoPE, per-layer and dual-chunk parts included (they used to come out as Go's field names:
// "MscaleAllDim"), for every preset and for configs with per-layer types and unrotated layers.
func TestInspectJSONSnakeCase(t *testing.T) {
	dir := t.TempDir()
	var runs [][]string
	for _, p := range hf.PresetNames() {
		runs = append(runs, []string{"inspect", "--json", "--model", p})
	}
	for _, c := range noRoPEConfigs {
		runs = append(runs, []string{"inspect", "--json", writeFile(t, dir, c.name+".json", []byte(c.cfg)), "--layer", c.rotated})
	}
	for _, args := range runs {
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(stdout), &v); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		snakeKeys(t, strings.Join(args[2:], " "), v)
	}
	// The parts that were Go field names come out under the config's own names.
	_, stdout, _ := runCLI(t, "inspect", "--json", "--model", "deepseek-v3")
	for _, k := range []string{`"mscale_all_dim": 1`, `"original_max_positions": 4096`, `"beta_fast": 32`, `"type": "yarn"`} {
		if !strings.Contains(stdout, k) {
			t.Errorf("deepseek-v3: --json lacks %s", k)
		}
	}
	_, stdout, _ = runCLI(t, "inspect", "--json", "--model", "gemma-3-4b")
	for _, k := range []string{`"pattern": 6`, `"layer_types": null`} {
		if !strings.Contains(stdout, k) {
			t.Errorf("gemma-3-4b: --json lacks %s", k)
		}
	}
}

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
