package main

import (
	"path/filepath"
	"reflect"
	"testing"
)

// TestPositionsAs: --as picks the dialect's get_rope_index version. A Qwen2-VL video of four
// merged 1×1 steps from position 3: transformers v4.57 and vLLM (get_mrope_input_positions:
// st_idx = the video's largest position + 1) put the following vision_end at 7; transformers
// main (#43972, Qwen2VLModel.get_rope_index: current_pos += max(h, w) // spatial_merge_size) at
// 4, and its rope_delta is llm_positions.max() + 1 − 9 = 6 + 1 − 9.
func TestPositionsAs(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		as     string
		t      []int64
		deltas []int64
	}{
		{"", []int64{0, 1, 2, 3, 4, 5, 6, 7, 8}, []int64{0}},
		{"vllm", []int64{0, 1, 2, 3, 4, 5, 6, 7, 8}, []int64{0}},
		{"hf-4.57", []int64{0, 1, 2, 3, 4, 5, 6, 7, 8}, []int64{0}},
		{"hf", []int64{0, 1, 2, 3, 4, 5, 6, 4, 5}, []int64{-2}},
	} {
		out := filepath.Join(dir, "out"+c.as+".safetensors")
		code, _, stderr := runCLI(t, "positions", "--model", "qwen2-vl-7b", "--input-ids", "1,2,151652,151656,151656,151656,151656,151653,3",
			"--video-grid-thw", "4,2,2", "--as", c.as, "--out", out)
		if code != 0 {
			t.Fatalf("--as %q: exit %d: %s", c.as, code, stderr)
		}
		tensors := readOut(t, out)
		p, _ := tensors["positions"].Int64s()
		d, _ := tensors["rope_deltas"].Int64s()
		if !reflect.DeepEqual(p[:9], c.t) || !reflect.DeepEqual(d, c.deltas) {
			t.Errorf("--as %q: temporal %v, rope_deltas %v: want %v, %v", c.as, p[:9], d, c.t, c.deltas)
		}
	}
	out := filepath.Join(dir, "bad.safetensors")
	if code, _, _ := runCLI(t, "positions", "--model", "qwen2-vl-7b", "--input-ids", "1,2", "--as", "hf-5", "--out", out); code != 2 {
		t.Errorf("--as hf-5: exit %d, want 2", code)
	}
	if fileExists(out) {
		t.Errorf("--as hf-5 wrote %s", out)
	}
}
