package multimodal

import (
	"reflect"
	"strings"
	"testing"
)

// HunYuan-VL's token ids: HunYuanVLConfig's defaults (configuration_hunyuan_vl.py).
const (
	hyImg = 120120
	hyIS  = 120118 // im_start_id: text to get_rope_index
	hyIE  = 120119
)

// TestHunYuanVL works two images through HunYuan-VL's XD-RoPE positions by hand
// (modeling_hunyuan_vl.py HunYuanVLModel.get_rope_index, hunyuan_vision.py
// get_xdrope_input_positions). Grid (1, 4, 4), merge 2: 2 rows of 2 + 1 columns (the newline
// column), 6 tokens.
//
// Row 0 (12 tokens): T IS I×8 IE T, the image run with its two extra tokens (6 + 2): every axis
// counts 0..11, except on tokens 3..8, the grid: width 0 1 2 0 1 2, height 0 0 0 1 1 1, image
// 0. The sequence axis keeps 0..11. rope_delta = 12 − 12 = 0.
//
// Row 1 (12 slots): PAD IS I×6 IE T T T, a run of exactly the grid's 6 tokens: over the 11
// unmasked tokens IS 0, the grid at 1..6 (width 0 1 2 0 1 2, height 0 0 0 1 1 1, image 0: the
// row's first image; HF main's counter runs across the batch and would give 1), then 7..10.
// Padding 0. rope_delta = 11 − 11 = 0.
func TestHunYuanVL(t *testing.T) {
	row0 := cat(ids(100, hyIS), rep(hyImg, 8), ids(hyIE, 101))
	row1 := cat(ids(0, hyIS), rep(hyImg, 6), ids(hyIE, 102, 103, 104))
	in := Input{InputIDs: [][]int64{row0, row1}, AttentionMask: [][]int64{rep(1, 12), cat(ids(0), rep(1, 11))},
		ImageGridTHW: [][3]int64{{1, 4, 4}, {1, 4, 4}}}
	cfg := DefaultConfig(HunYuanVL)
	pos, deltas, err := RoPEIndexN(cfg, in)
	if err != nil {
		t.Fatal(err)
	}
	want := [][][]int64{
		{{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		{{0, 1, 2, 0, 1, 2, 0, 1, 2, 9, 10, 11}, {0, 0, 0, 1, 2, 0, 1, 2, 7, 8, 9, 10}},
		{{0, 1, 2, 0, 0, 0, 1, 1, 1, 9, 10, 11}, {0, 0, 0, 0, 0, 1, 1, 1, 7, 8, 9, 10}},
		{{0, 1, 2, 0, 0, 0, 0, 0, 0, 9, 10, 11}, {0, 0, 0, 0, 0, 0, 0, 0, 7, 8, 9, 10}},
	}
	if !reflect.DeepEqual(pos, PositionsN(want)) {
		t.Errorf("positions\n got %v\nwant %v", pos, want)
	}
	if !reflect.DeepEqual(deltas, []int64{0, 0}) {
		t.Errorf("rope_deltas %v, want [0 0]", deltas)
	}
	// Decode: every axis is the text position, the unmasked index + rope_delta.
	if p := DecodePosition(12, deltas[0]); p != 12 {
		t.Errorf("decode position %d, want 12", p)
	}

	// Three sections (no sequence axis): the last three axes alone; RoPEIndex can return them.
	cfg.Axes = 3
	pos3, _, err := RoPEIndex(cfg, in)
	if err != nil {
		t.Fatal(err)
	}
	for a := range 3 {
		if !reflect.DeepEqual(pos3[a], want[a+1]) {
			t.Errorf("3 axes, axis %d: %v, want %v", a, pos3[a], want[a+1])
		}
	}
}

func TestHunYuanVLErrors(t *testing.T) {
	cfg := DefaultConfig(HunYuanVL)
	for _, c := range []struct {
		name   string
		in     []int64
		images [][3]int64
		want   string
	}{
		{"run length", cat(ids(hyIS), rep(hyImg, 7), ids(hyIE)), [][3]int64{{1, 4, 4}}, "7 image tokens from token 1, but image_grid_thw[0] = [1 4 4] needs h/m·(w/m + 1) = 6, or 8"},
		{"grid unused", ids(1, 2), [][3]int64{{1, 4, 4}}, "image_grid_thw has 1 grids but the input has 0 image runs"},
		{"no grid", cat(ids(hyIS), rep(hyImg, 6)), nil, "no image_grid_thw was given"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := RoPEIndexN(cfg, Input{InputIDs: [][]int64{c.in}, ImageGridTHW: c.images})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v: want it to contain %q", err, c.want)
			}
		})
	}
	if _, _, err := RoPEIndex(cfg, Input{InputIDs: [][]int64{{1}}}); err == nil || !strings.Contains(err.Error(), "RoPEIndexN") {
		t.Errorf("RoPEIndex of 4 axes: %v", err)
	}
	if _, _, err := RoPEIndexN(cfg, Input{InputIDs: [][]int64{{1}}, VideoGridTHW: [][3]int64{{2, 2, 2}}}); err == nil || !strings.Contains(err.Error(), "images only") {
		t.Errorf("video: %v", err)
	}
	// Text only: the padding token 0 is text, and every axis counts every slot.
	pos, _, err := RoPEIndexN(cfg, Input{InputIDs: [][]int64{{0, 5, 6}}, AttentionMask: [][]int64{{0, 1, 1}}})
	if err != nil || !reflect.DeepEqual(pos[0][0], []int64{0, 1, 2}) {
		t.Errorf("text only: %v, %v", pos, err)
	}
}

func TestHunYuanVLConfig(t *testing.T) {
	for _, c := range []struct {
		js   string
		axes int64
	}{
		{`{"model_type": "hunyuan_vl"}`, 4},
		{`{"model_type": "hunyuan_vl", "text_config": {"rope_parameters": {"rope_type": "xdrope", "xdrope_section": [16, 16, 16, 16]}}}`, 4},
		{`{"model_type": "hunyuan_vl", "rope_scaling": {"type": "xdrope", "alpha": 1000, "xdrope_section": [22, 21, 21]}}`, 3},
	} {
		got, err := ConfigFromJSON([]byte(c.js))
		if err != nil || got.Kind != HunYuanVL || got.Axes != c.axes || got.ImageTokenID != hyImg {
			t.Errorf("%s: %+v, %v; want %d axes", c.js, got, err, c.axes)
		}
	}
	if _, err := ConfigFromJSON([]byte(`{"model_type": "hunyuan_vl", "rope_scaling": {"xdrope_section": [32, 32]}}`)); err == nil || !strings.Contains(err.Error(), "2 sections") {
		t.Errorf("two sections: %v", err)
	}
}
