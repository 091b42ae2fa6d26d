package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/safetensors"
)

// positionsRow is T T VS I×6 VE T T: one image of grid (1, 4, 6) (see
// multimodal.TestOneImage for the positions worked out by hand).
func positionsRow() []int64 {
	return []int64{100, 101, 151652, 151655, 151655, 151655, 151655, 151655, 151655, 151653, 102, 103}
}

func readOut(t *testing.T, path string) map[string]safetensors.Tensor {
	t.Helper()
	f, err := safetensors.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]safetensors.Tensor{}
	for _, n := range f.Names() {
		out[n], _ = f.Get(n)
	}
	return out
}

func TestPositions(t *testing.T) {
	dir := t.TempDir()
	row := positionsRow()
	want := [][]int64{
		{0, 1, 2, 3, 3, 3, 3, 3, 3, 6, 7, 8},
		{0, 1, 2, 3, 3, 3, 4, 4, 4, 6, 7, 8},
		{0, 1, 2, 3, 4, 5, 3, 4, 5, 6, 7, 8},
	}

	// 1-D input_ids → positions [3, S], rope_deltas [1]; the preset lacks the token ids
	// and gets the HF defaults.
	in := writeTensors(t, dir, "in1.safetensors",
		safetensors.FromInt64s("input_ids", []int{12}, row),
		safetensors.FromInt64s("image_grid_thw", []int{1, 3}, []int64{1, 4, 6}))
	out := filepath.Join(dir, "out1.safetensors")
	if code, _, stderr := runCLI(t, "positions", "--model", "qwen2-vl-7b", "--in", in, "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got := readOut(t, out)
	pos, deltas := got["positions"], got["rope_deltas"]
	if pos.DType != "I64" || !reflect.DeepEqual(pos.Shape, []int{3, 12}) || !reflect.DeepEqual(deltas.Shape, []int{1}) {
		t.Fatalf("positions %s %v, rope_deltas %v", pos.DType, pos.Shape, deltas.Shape)
	}
	p, _ := pos.Int64s()
	if !reflect.DeepEqual(p, append(append(append([]int64(nil), want[0]...), want[1]...), want[2]...)) {
		t.Errorf("positions %v", p)
	}
	if d, _ := deltas.Int64s(); !reflect.DeepEqual(d, []int64{-3}) {
		t.Errorf("rope_deltas %v, want [-3]", d)
	}

	// 2-D I32 ids, a U8 mask left-padding row 1, and a config file instead of a preset.
	padded := append([]int64{151643, 151643}, row[2:]...) // drops T T, pads instead
	ids := make([]int32, 0, 24)
	for _, v := range append(append([]int64(nil), row...), padded...) {
		ids = append(ids, int32(v))
	}
	mask := make([]byte, 24)
	for i := range mask {
		mask[i] = 1
	}
	mask[12], mask[13] = 0, 0
	cfg := presetConfig(t, dir, "qwen2.5-vl-7b")
	in = writeTensors(t, dir, "in2.safetensors",
		safetensors.FromInt32s("input_ids", []int{2, 12}, ids),
		safetensors.Tensor{Name: "attention_mask", DType: "U8", Shape: []int{2, 12}, Data: mask},
		safetensors.FromInt64s("image_grid_thw", []int{2, 3}, []int64{1, 4, 6, 1, 4, 6}))
	out = filepath.Join(dir, "out2.safetensors")
	if code, _, stderr := runCLI(t, "positions", "--config", cfg, "--in", in, "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got = readOut(t, out)
	pos, deltas = got["positions"], got["rope_deltas"]
	if !reflect.DeepEqual(pos.Shape, []int{3, 2, 12}) || !reflect.DeepEqual(deltas.Shape, []int{2}) {
		t.Fatalf("positions %v, rope_deltas %v", pos.Shape, deltas.Shape)
	}
	p, _ = pos.Int64s()
	// Row 1 over its 10 unmasked tokens: VS at 0; image offset 1: t 1, h 1 1 1 2 2 2,
	// w 1 2 3 1 2 3; max 3; VE T T at 4, 5, 6. Padding 1. rope_delta 7 − 12 = −5.
	if h := p[36:48]; !reflect.DeepEqual(h, []int64{1, 1, 0, 1, 1, 1, 2, 2, 2, 4, 5, 6}) {
		t.Errorf("row 1 h positions %v", h)
	}
	if d, _ := deltas.Int64s(); !reflect.DeepEqual(d, []int64{-3, -5}) {
		t.Errorf("rope_deltas %v, want [-3 -5]", d)
	}
}

// TestPositionsVideo: Qwen2.5-VL's second_per_grid_ts scaling through the tool (see
// multimodal.TestVideoQwen25VL): t per step trunc(i · 0.75 · 2) = 0, 1, 3, 4.
func TestPositionsVideo(t *testing.T) {
	dir := t.TempDir()
	row := []int64{100, 151652}
	for range 16 {
		row = append(row, 151656)
	}
	row = append(row, 151653, 101)
	in := writeTensors(t, dir, "in.safetensors",
		safetensors.FromInt64s("input_ids", []int{1, 20}, row),
		safetensors.FromInt64s("video_grid_thw", []int{1, 3}, []int64{4, 4, 4}),
		safetensors.FromFloat32s("second_per_grid_ts", []int{1}, []float32{0.75}))
	out := filepath.Join(dir, "out.safetensors")
	if code, _, stderr := runCLI(t, "positions", "--model", "qwen2.5-vl-7b", "--in", in, "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	p, _ := readOut(t, out)["positions"].Int64s()
	if got := []int64{p[2], p[6], p[10], p[14], p[18]}; !reflect.DeepEqual(got, []int64{2, 3, 5, 6, 7}) {
		t.Errorf("t at each step and after: %v, want [2 3 5 6 7]", got)
	}
}

func TestPositionsBadInput(t *testing.T) {
	dir := t.TempDir()
	row := positionsRow()
	good := writeTensors(t, dir, "good.safetensors",
		safetensors.FromInt64s("input_ids", []int{12}, row),
		safetensors.FromInt64s("image_grid_thw", []int{1, 3}, []int64{1, 4, 6}))
	for _, c := range []struct {
		name string
		args []string
		in   []safetensors.Tensor
		want string
	}{
		{"odd grid", nil, []safetensors.Tensor{
			safetensors.FromInt64s("input_ids", []int{12}, row),
			safetensors.FromInt64s("image_grid_thw", []int{1, 3}, []int64{1, 5, 6})}, "multiples of spatial_merge_size"},
		{"negative grid", nil, []safetensors.Tensor{
			safetensors.FromInt64s("input_ids", []int{12}, row),
			safetensors.FromInt64s("image_grid_thw", []int{1, 3}, []int64{1, -4, 6})}, "want 1.."},
		{"grid shape", nil, []safetensors.Tensor{
			safetensors.FromInt64s("input_ids", []int{12}, row),
			safetensors.FromInt64s("image_grid_thw", []int{3}, []int64{1, 4, 6})}, "want [N,3]"},
		{"too many tokens", nil, []safetensors.Tensor{
			safetensors.FromInt64s("input_ids", []int{12}, row),
			safetensors.FromInt64s("image_grid_thw", []int{1, 3}, []int64{1, 4, 4})}, "6 image tokens but image_grid_thw covers 4"},
		{"missing ids", nil, []safetensors.Tensor{
			safetensors.FromInt64s("image_grid_thw", []int{1, 3}, []int64{1, 4, 6})}, `missing tensor "input_ids"`},
		{"float ids", nil, []safetensors.Tensor{
			safetensors.FromFloat32s("input_ids", []int{2}, []float32{1, 2})}, "want I64 or I32"},
		{"mask shape", nil, []safetensors.Tensor{
			safetensors.FromInt64s("input_ids", []int{12}, row),
			safetensors.FromInt64s("attention_mask", []int{1, 12}, make([]int64, 12))}, "attention_mask: shape"},
		{"not multimodal", []string{"--model", "llama-3.1-8b"}, nil, `"llama"`},
		{"both models", []string{"--model", "qwen2-vl-7b", "--config", "x.json"}, nil, "give one"},
		{"no model", []string{}, nil, "--config: missing"},
		{"unknown family", []string{"--family", "llava"}, nil, "--family: model_type \"llava\""},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := good
			if c.in != nil {
				in = writeTensors(t, dir, "in.safetensors", c.in...)
			}
			out := filepath.Join(dir, "out.safetensors")
			args := c.args
			if args == nil {
				args = []string{"--model", "qwen2-vl-7b"}
			}
			args = append([]string{"positions"}, append(args, "--in", in, "--out", out)...)
			code, _, stderr := runCLI(t, args...)
			if code != 2 {
				t.Fatalf("exit %d, want 2 (stderr %q)", code, stderr)
			}
			if strings.Count(strings.TrimRight(stderr, "\n"), "\n") != 0 || !strings.Contains(stderr, c.want) {
				t.Errorf("stderr %q: want one line containing %q", stderr, c.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("--out was created on error (%v)", err)
			}
		})
	}
}
