package multimodal

import (
	"reflect"
	"strings"
	"testing"
)

// GLM-4V's token ids: Glm4vConfig's defaults (configuration_glm4v.py).
const (
	glmImg = 151343
	glmBOV = 151341 // video_start_token_id, <|begin_of_video|>
	glmEOV = 151342 // video_end_token_id
	glmBOI = 151339 // image_start_token_id: text to get_rope_index
	glmEOI = 151340 // image_end_token_id: text to get_rope_index
	glmPad = 151329
)

// TestGLM4V works an image, a two-frame video and a padded row through GLM-4V's positions by
// hand, following transformers v4.57 models/glm4v/modeling_glm4v.py Glm4vModel.get_rope_index
// (types by video_start/video_end, groupby runs, st_idx = last run's max + 1; a video run is
// one (1, h, w) frame).
//
// Row 0 (26 tokens), image grid (1, 4, 4) and video grid (2, 4, 4), spatial merge 2:
//
//	index: 0 1  2   3..6 7   8 9   10  11..14 15  16  17  18..21 22  23  24  25
//	token: T T  BOI I×4  EOI T BOV BOI I×4    EOI ts0 BOI I×4    EOI ts1 EOV T
//	run:   text  image  text           video  text        video  text
//
// Text 0..2 gets 0, 1, 2. The image (1 × 2 × 2) at st_idx 3: t 3 3 3 3, h 3 3 4 4, w 3 4 3 4;
// max 4. EOI T BOV BOI get 5..8. Frame 1 at 9: t 9×4, h 9 9 10 10, w 9 10 9 10. EOI ts0 BOI
// get 11..13; frame 2 at 14: t 14×4, h 14 14 15 15, w 14 15 14 15; EOI ts1 EOV T get 16..19.
// rope_delta = 19 + 1 − 26 = −6.
//
// Row 1 is 20 padding slots then BOI I×3 EOI T, image grid (3, 2, 2): 3 × 1 × 1, a
// three-step image (v4.57 takes arange(t) for images). Over the six unmasked tokens: BOI 0;
// image at 1: t 1 2 3, h 1 1 1, w 1 1 1; max 3; EOI T 4, 5. Padding 1. rope_delta = 6 − 26 =
// −20.
func TestGLM4V(t *testing.T) {
	row0 := cat(ids(100, 101, glmBOI), rep(glmImg, 4), ids(glmEOI, 102, glmBOV, glmBOI), rep(glmImg, 4),
		ids(glmEOI, 300, glmBOI), rep(glmImg, 4), ids(glmEOI, 301, glmEOV, 103))
	row1 := cat(rep(glmPad, 20), ids(glmBOI), rep(glmImg, 3), ids(glmEOI, 104))
	mask := [][]int64{rep(1, 26), cat(rep(0, 20), rep(1, 6))}
	cfg := DefaultConfig(GLM4V)
	pos, deltas := mustIndex(t, cfg, [][]int64{row0, row1}, mask, [][3]int64{{1, 4, 4}, {3, 2, 2}}, [][3]int64{{2, 4, 4}}, nil)
	wantPositions(t, pos, 0, [3][]int64{
		{0, 1, 2, 3, 3, 3, 3, 5, 6, 7, 8, 9, 9, 9, 9, 11, 12, 13, 14, 14, 14, 14, 16, 17, 18, 19},
		{0, 1, 2, 3, 3, 4, 4, 5, 6, 7, 8, 9, 9, 10, 10, 11, 12, 13, 14, 14, 15, 15, 16, 17, 18, 19},
		{0, 1, 2, 3, 4, 3, 4, 5, 6, 7, 8, 9, 10, 9, 10, 11, 12, 13, 14, 15, 14, 15, 16, 17, 18, 19},
	})
	padding := rep(1, 20)
	wantPositions(t, pos, 1, [3][]int64{
		cat(padding, ids(0, 1, 2, 3, 4, 5)),
		cat(padding, ids(0, 1, 1, 1, 4, 5)),
		cat(padding, ids(0, 1, 1, 1, 4, 5)),
	})
	if want := []int64{-6, -20}; !reflect.DeepEqual(deltas, want) {
		t.Fatalf("rope_deltas %v, want %v", deltas, want)
	}
	// Decode (Glm4vModel.forward's decode branch, position = cache position + rope_delta on
	// every axis): the next token continues at each row's largest position + 1.
	dec, err := DecodePositions(deltas, 26, 2)
	if err != nil {
		t.Fatal(err)
	}
	for a := range 3 {
		if !reflect.DeepEqual(dec[a], [][]int64{{20, 21}, {6, 7}}) {
			t.Errorf("decode axis %d: %v, want [[20 21] [6 7]]", a, dec[a])
		}
	}
}

// TestGLM4VTextOnly: without grids GLM-4V takes the Qwen text branch (cumsum of the mask − 1,
// padding 1), and its video_token_id is ordinary text (frames are image tokens).
func TestGLM4VTextOnly(t *testing.T) {
	cfg := DefaultConfig(GLM4V)
	in := [][]int64{{glmPad, 5, cfg.VideoTokenID, 7}}
	pos, deltas := mustIndex(t, cfg, in, [][]int64{{0, 1, 1, 1}}, nil, nil, nil)
	wantPositions(t, pos, 0, [3][]int64{{1, 0, 1, 2}, {1, 0, 1, 2}, {1, 0, 1, 2}})
	if deltas[0] != -1 {
		t.Errorf("rope_delta %d, want -1", deltas[0])
	}
}

func TestGLM4VErrors(t *testing.T) {
	cfg := DefaultConfig(GLM4V)
	frame := cat(ids(glmBOV, glmBOI), rep(glmImg, 4), ids(glmEOI, 300, glmEOV))
	for _, c := range []struct {
		name           string
		in             []int64
		images, videos [][3]int64
		want           string
	}{
		{"image tokens, no grids", cat(ids(1), rep(glmImg, 4)), nil, nil, "no image_grid_thw or video_grid_thw"},
		{"image run too short", cat(ids(1, glmBOI), rep(glmImg, 3), ids(glmEOI)), [][3]int64{{1, 4, 4}}, nil, "3 image tokens from token 2, but image_grid_thw[0] = [1 4 4] covers 4"},
		{"no image grid left", cat(ids(glmBOI), rep(glmImg, 4), ids(glmEOI), frame), nil, [][3]int64{{1, 4, 4}}, "needs image_grid_thw[0], but only 0 grids"},
		{"image grid unused", frame, [][3]int64{{1, 4, 4}}, [][3]int64{{1, 4, 4}}, "image_grid_thw has 1 grids but the input has 0 image runs"},
		{"frame too long", frame, nil, [][3]int64{{1, 2, 2}}, "4 video tokens from token 2, but a frame of video_grid_thw[0] = [1 2 2] covers 1"},
		{"frames missing", frame, nil, [][3]int64{{2, 4, 4}}, "1 videos of 2 frames (grid t summed) but the input has 1 frame runs"},
		{"frames left over", cat(frame, frame), nil, [][3]int64{{1, 4, 4}}, "no video left in video_grid_thw (1 videos, 1 frames placed)"},
		{"odd grid", frame, nil, [][3]int64{{1, 3, 4}}, "multiples of spatial_merge_size"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := GetRoPEIndex(cfg, [][]int64{c.in}, nil, c.images, c.videos, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v: want it to contain %q", err, c.want)
			}
		})
	}
}

func TestGLM4VConfig(t *testing.T) {
	base := Config{Kind: GLM4V, ImageTokenID: glmImg, VideoTokenID: 151344, VideoStartTokenID: glmBOV, VideoEndTokenID: glmEOV, SpatialMergeSize: 2}
	moe := base
	moe.ImageTokenID, moe.VideoTokenID = 151363, 151364
	v46 := base
	v46.VideoStartTokenID, v46.VideoEndTokenID = 151361, 151362
	custom := base
	custom.ImageTokenID, custom.VideoEndTokenID, custom.SpatialMergeSize = 9, 8, 4
	for _, c := range []struct {
		js   string
		want Config
	}{
		{`{"model_type": "glm4v"}`, base},
		{`{"model_type": "glm4v_moe"}`, moe},
		{`{"text_config": {"model_type": "glm4v_moe_text"}}`, moe},
		{`{"model_type": "glm46v", "text_config": {"model_type": "glm4v_text"}}`, v46},
		{`{"model_type": "glm4v", "image_token_id": 9, "text_config": {"video_end_token_id": 8}, "vision_config": {"spatial_merge_size": 4}}`, custom},
	} {
		got, err := ConfigFromJSON([]byte(c.js))
		if err != nil || got != c.want {
			t.Errorf("%s: %+v, %v; want %+v", c.js, got, err, c.want)
		}
	}
	if _, err := ConfigFromJSON([]byte(`{"model_type": "glm4v", "video_end_token_id": 151343}`)); err == nil || !strings.Contains(err.Error(), "image_token_id and video_end_token_id are both 151343") {
		t.Errorf("clashing ids: %v", err)
	}
}
