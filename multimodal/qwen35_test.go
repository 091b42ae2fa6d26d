package multimodal

import (
	"reflect"
	"testing"
)

// Qwen3.5's token ids: Qwen3_5Config's defaults (configuration_qwen3_5.py).
const (
	q35vs  = 248053
	q35ve  = 248054 // vision_end: ordinary text to get_rope_index
	q35img = 248056
	q35vid = 248057
	q35pad = 248044
)

// TestQwen35 works an image and a two-frame video through Qwen3.5's positions by hand. vLLM's
// Qwen3_5ForConditionalGeneration inherits Qwen3VLForConditionalGeneration's
// get_mrope_input_positions (vllm/model_executor/models/qwen3_5.py, qwen3_vl.py
// _get_mrope_input_positions); HF's Qwen3_5Model.get_rope_index (modeling_qwen3_5.py) splits
// video_grid_thw into frames the same way (repeat_interleave, t = 1).
//
// Row 0 (23 tokens), image grid (1, 4, 4) and video grid (2, 4, 4), spatial merge 2: 2×2
// tokens per image and per frame:
//
//	index: 0  1   2   3..6  7   8   9   10..13 14  15  16  17..20 21  22
//	token: T  T   VS  I×4   VE  ts0 VS  V×4    VE  ts1 VS  V×4    VE  T
//
// Text 0..2 gets 0, 1, 2. The image's offset is 3: t 3 3 3 3, h 3 3 4 4, w 3 4 3 4; max 4.
// VE ts0 VS get 5, 6, 7. Frame 1's offset is 5 + 3 = 8: t 8×4, h 8 8 9 9, w 8 9 8 9; max 9.
// VE ts1 VS get 10, 11, 12; frame 2 at 13: t 13×4, h 13 13 14 14, w 13 14 13 14; VE T get 15,
// 16. rope_delta = 16 + 1 − 23 = −6.
//
// Row 1 is row 0 with its first two tokens replaced by left padding (mask 0 0 1 …): over the
// 21 unmasked tokens VS gets 0, the image's offset is 1 (t 1×4, h 1 1 2 2, w 1 2 1 2), VE ts0
// VS 3 4 5, frame 1 at 6, VE ts1 VS 8 9 10, frame 2 at 11, VE T 13 14; the padding slots 1.
// rope_delta = 14 + 1 − 23 (the padded length) = −8.
func TestQwen35(t *testing.T) {
	const ts0, ts1 = 300, 301
	row := cat(ids(100, 101, q35vs), rep(q35img, 4), ids(q35ve, ts0, q35vs), rep(q35vid, 4), ids(q35ve, ts1, q35vs), rep(q35vid, 4), ids(q35ve, 104))
	padded := cat(ids(q35pad, q35pad), row[2:])
	mask := [][]int64{rep(1, 23), cat(ids(0, 0), rep(1, 21))}
	cfg := DefaultConfig(Qwen35)
	pos, deltas := mustIndex(t, cfg, [][]int64{row, padded}, mask, [][3]int64{{1, 4, 4}, {1, 4, 4}}, [][3]int64{{2, 4, 4}, {2, 4, 4}}, nil)
	wantPositions(t, pos, 0, [3][]int64{
		{0, 1, 2, 3, 3, 3, 3, 5, 6, 7, 8, 8, 8, 8, 10, 11, 12, 13, 13, 13, 13, 15, 16},
		{0, 1, 2, 3, 3, 4, 4, 5, 6, 7, 8, 8, 9, 9, 10, 11, 12, 13, 13, 14, 14, 15, 16},
		{0, 1, 2, 3, 4, 3, 4, 5, 6, 7, 8, 9, 8, 9, 10, 11, 12, 13, 14, 13, 14, 15, 16},
	})
	wantPositions(t, pos, 1, [3][]int64{
		{1, 1, 0, 1, 1, 1, 1, 3, 4, 5, 6, 6, 6, 6, 8, 9, 10, 11, 11, 11, 11, 13, 14},
		{1, 1, 0, 1, 1, 2, 2, 3, 4, 5, 6, 6, 7, 7, 8, 9, 10, 11, 11, 12, 12, 13, 14},
		{1, 1, 0, 1, 2, 1, 2, 3, 4, 5, 6, 7, 6, 7, 8, 9, 10, 11, 12, 11, 12, 13, 14},
	})
	if want := []int64{-6, -8}; !reflect.DeepEqual(deltas, want) {
		t.Fatalf("rope_deltas %v, want %v", deltas, want)
	}
	// Decode: the next token of both rows (cache position 23) continues at the row's largest
	// position + 1.
	dec, err := DecodePositions(deltas, 23, 1)
	if err != nil {
		t.Fatal(err)
	}
	for a := range 3 {
		if !reflect.DeepEqual(dec[a], [][]int64{{17}, {15}}) {
			t.Errorf("decode axis %d: %v, want [[17] [15]]", a, dec[a])
		}
	}

	// Qwen3-VL's token ids are text to Qwen3.5, and the reverse: the same row under the
	// Qwen3-VL kind has no blocks, and its grids cover no tokens.
	if _, _, err := GetRoPEIndex(DefaultConfig(Qwen3VL), [][]int64{row}, nil, [][3]int64{{1, 4, 4}}, [][3]int64{{2, 4, 4}}, nil); err == nil {
		t.Error("qwen3_vl read Qwen3.5's vision tokens")
	}
	// The video as one (2, 4, 4) block of eight tokens is not Qwen3.5's layout.
	one := cat(ids(100, q35vs), rep(q35vid, 8), ids(q35ve))
	if _, _, err := GetRoPEIndex(cfg, [][]int64{one}, nil, nil, [][3]int64{{2, 4, 4}}, nil); err == nil {
		t.Error("qwen3_5 accepted a video not split into frames")
	}
}

func TestQwen35Config(t *testing.T) {
	want := Config{Kind: Qwen35, ImageTokenID: q35img, VideoTokenID: q35vid, VisionStartTokenID: q35vs, SpatialMergeSize: 2}
	for _, js := range []string{`{"model_type": "qwen3_5"}`, `{"model_type": "qwen3_5_moe"}`, `{"text_config": {"model_type": "qwen3_5_moe_text"}}`} {
		got, err := ConfigFromJSON([]byte(js))
		if err != nil || got != want {
			t.Errorf("%s: %+v, %v; want %+v", js, got, err, want)
		}
	}
	// ConfigFromJSONAs: the family chosen by the caller, the config's values kept.
	got, err := ConfigFromJSONAs([]byte(`{"model_type": "my_finetune", "image_token_id": 5}`), Qwen35)
	if want := (Config{Kind: Qwen35, ImageTokenID: 5, VideoTokenID: q35vid, VisionStartTokenID: q35vs, SpatialMergeSize: 2}); err != nil || got != want {
		t.Errorf("ConfigFromJSONAs: %+v, %v; want %+v", got, err, want)
	}
	for _, k := range []Kind{0, kindEnd, 200} {
		if _, err := ConfigFromJSONAs([]byte(`{}`), k); err == nil {
			t.Errorf("ConfigFromJSONAs kind %v: no error", k)
		}
	}
}
