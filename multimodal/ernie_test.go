package multimodal

import (
	"reflect"
	"strings"
	"testing"
)

// ERNIE-4.5-VL's token ids: Ernie4_5_VLMoeConfig's defaults (configuration_ernie4_5_vl_moe.py).
const (
	ernieImg = 100295
	ernieVid = 103367
	ernieIS  = 101304 // image_start_token_id: text to get_rope_index
	ernieIE  = 101305
	ernieVS  = 101306
	ernieVE  = 101307
	erniePad = 0
)

// TestErnie45VL works an image, two videos and a padded row through ERNIE-4.5-VL's positions by
// hand (modeling_ernie4_5_vl_moe.py Ernie4_5_VLMoeModel.get_rope_index for the runs and grids,
// vLLM ernie45_vl.py get_mrope_input_positions for the step after a grid).
//
// Row 0 (19 tokens), image grid (1, 4, 4): 1 × 2 × 2; video grid (4, 4, 4): 4/2 × 2 × 2:
//
//	index: 0 1  2..5 6  7 8  9..16 17 18
//	token: T IS I×4  IE T VS V×8   VE T
//
// T IS 0 1; the image at 2: t 2, h 2 2 3 3, w 2 3 2 3; IE T VS 4 5 6; the video at 7: steps t 7
// and 8, each h 7 7 8 8, w 7 8 7 8; VE T 9 10. rope_delta = 11 − 19 = −8.
//
// Row 1 is 12 padding slots, then VS V×4 VE T with video grid (8, 2, 2): 4 × 1 × 1. VS 0; the
// video at 1: t 1 2 3 4, h 1, w 1; VE T 5 6 (vLLM's largest + 1; HF main's rewrite would
// continue at 1 + max(h, w) = 2, inside the video). Padding 0; rope_delta = 7 − 7 unmasked = 0.
func TestErnie45VL(t *testing.T) {
	row0 := cat(ids(100, ernieIS), rep(ernieImg, 4), ids(ernieIE, 101, ernieVS), rep(ernieVid, 8), ids(ernieVE, 102))
	row1 := cat(rep(erniePad, 12), ids(ernieVS), rep(ernieVid, 4), ids(ernieVE, 103))
	mask := [][]int64{rep(1, 19), cat(rep(0, 12), rep(1, 7))}
	pos, deltas := mustIndex(t, DefaultConfig(Ernie45VL), [][]int64{row0, row1}, mask, [][3]int64{{1, 4, 4}}, [][3]int64{{4, 4, 4}, {8, 2, 2}}, nil)
	wantPositions(t, pos, 0, [3][]int64{
		{0, 1, 2, 2, 2, 2, 4, 5, 6, 7, 7, 7, 7, 8, 8, 8, 8, 9, 10},
		{0, 1, 2, 2, 3, 3, 4, 5, 6, 7, 7, 8, 8, 7, 7, 8, 8, 9, 10},
		{0, 1, 2, 3, 2, 3, 4, 5, 6, 7, 8, 7, 8, 7, 8, 7, 8, 9, 10},
	})
	padding := rep(0, 12)
	wantPositions(t, pos, 1, [3][]int64{
		cat(padding, ids(0, 1, 2, 3, 4, 5, 6)),
		cat(padding, ids(0, 1, 1, 1, 1, 5, 6)),
		cat(padding, ids(0, 1, 1, 1, 1, 5, 6)),
	})
	if want := []int64{-8, 0}; !reflect.DeepEqual(deltas, want) {
		t.Fatalf("rope_deltas %v, want %v", deltas, want)
	}
	// Decode (Ernie4_5_VLMoeModel.compute_3d_position_ids: cumsum(mask) − 1 + rope_delta): the
	// next token is the 19th unmasked token of row 0 and the 7th of row 1.
	for b, k := range []int64{19, 7} {
		if p, want := DecodePosition(k, deltas[b]), []int64{11, 7}[b]; p != want {
			t.Errorf("row %d: decode position %d, want %d", b, p, want)
		}
	}
}

// TestErnie45VLTextOnly: without grids HF main passes no position ids and the text model counts
// every slot, padding included.
func TestErnie45VLTextOnly(t *testing.T) {
	pos, deltas := mustIndex(t, DefaultConfig(Ernie45VL), [][]int64{{erniePad, 5, 6}}, [][]int64{{0, 1, 1}}, nil, nil, nil)
	wantPositions(t, pos, 0, [3][]int64{{0, 1, 2}, {0, 1, 2}, {0, 1, 2}})
	if deltas[0] != 0 {
		t.Errorf("rope_delta %d, want 0", deltas[0])
	}
}

func TestErnie45VLErrors(t *testing.T) {
	cfg := DefaultConfig(Ernie45VL)
	video := cat(ids(ernieVS), rep(ernieVid, 8), ids(ernieVE))
	for _, c := range []struct {
		name           string
		in             []int64
		images, videos [][3]int64
		want           string
	}{
		{"odd t", video, nil, [][3]int64{{3, 4, 4}}, "multiple of temporal_merge_size 2"},
		{"run length", video, nil, [][3]int64{{2, 4, 4}}, "8 tokens 103367 from token 1, but their grid [2 4 4] covers 4"},
		{"grid unused", video, [][3]int64{{1, 4, 4}}, [][3]int64{{4, 4, 4}}, "image_grid_thw has 1 grids but the input has 0 image runs"},
		{"no grid left", cat(video, ids(ernieImg)), nil, [][3]int64{{4, 4, 4}}, "needs image_grid_thw[0], but only 0"},
		{"tokens without grids", ids(1, ernieVid), nil, nil, "no image_grid_thw or video_grid_thw"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := GetRoPEIndex(cfg, [][]int64{c.in}, nil, c.images, c.videos, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v: want it to contain %q", err, c.want)
			}
		})
	}
}

func TestErnie45VLConfig(t *testing.T) {
	// The published Baidu config.json keys.
	got, err := ConfigFromJSON([]byte(`{"model_type": "ernie4_5_moe_vl", "im_patch_id": 7, "spatial_conv_size": 4, "temporal_conv_size": 1}`))
	want := DefaultConfig(Ernie45VL)
	want.ImageTokenID, want.SpatialMergeSize, want.TemporalMergeSize = 7, 4, 1
	if err != nil || got != want {
		t.Errorf("published keys: %+v, %v\nwant %+v", got, err, want)
	}
	// HF's conversion.
	got, err = ConfigFromJSON([]byte(`{"model_type": "ernie4_5_vl_moe", "image_token_id": 8, "video_token_id": 9, "vision_config": {"spatial_merge_size": 2, "temporal_merge_size": 2}}`))
	want = DefaultConfig(Ernie45VL)
	want.ImageTokenID, want.VideoTokenID = 8, 9
	if err != nil || got != want {
		t.Errorf("HF keys: %+v, %v\nwant %+v", got, err, want)
	}
	if _, err := ConfigFromJSON([]byte(`{"model_type": "ernie4_5_vl_moe", "temporal_conv_size": 0}`)); err == nil || !strings.Contains(err.Error(), "temporal_merge_size 0") {
		t.Errorf("temporal merge 0: %v", err)
	}
}
