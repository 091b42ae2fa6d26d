package multimodal

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"
)

// bothVersions runs get_rope_index under transformers v4.57's rule and main's unified one.
func bothVersions(t *testing.T, cfg Config, in Input) (old, unified Positions3, oldDeltas, unifiedDeltas []int64) {
	t.Helper()
	cfg.RopeIndex = IndexV457
	old, oldDeltas, err := RoPEIndex(cfg, in)
	if err != nil {
		t.Fatalf("v4.57: %v", err)
	}
	cfg.RopeIndex = IndexUnified
	unified, unifiedDeltas, err = RoPEIndex(cfg, in)
	if err != nil {
		t.Fatalf("unified: %v", err)
	}
	return old, unified, oldDeltas, unifiedDeltas
}

// A Qwen2-VL video whose temporal extent (4 steps) passes its merged side (1): v4.57's
// Qwen2VLModel.get_rope_index starts the following text at llm_pos_ids_list[-1].max() + 1, one
// past the last frame; main's (PR #43972) at current_pos + max(h, w) // spatial_merge_size, so
// the text overlaps the video's frames 2..4.
func TestUnifiedVideoOverlapsText(t *testing.T) {
	row := cat(ids(1, 2, vs), rep(vid, 4), ids(ve, 3))
	in := Input{InputIDs: [][]int64{row}, VideoGridTHW: [][3]int64{{4, 2, 2}}}
	old, unified, od, ud := bothVersions(t, DefaultConfig(Qwen2VL), in)
	wantPositions(t, old, 0, [3][]int64{
		{0, 1, 2, 3, 4, 5, 6, 7, 8},
		{0, 1, 2, 3, 3, 3, 3, 7, 8},
		{0, 1, 2, 3, 3, 3, 3, 7, 8},
	})
	wantPositions(t, unified, 0, [3][]int64{
		{0, 1, 2, 3, 4, 5, 6, 4, 5},
		{0, 1, 2, 3, 3, 3, 3, 4, 5},
		{0, 1, 2, 3, 3, 3, 3, 4, 5},
	})
	// v4.57: 8 + 1 − 9; main: llm_positions.max() = 6 (the last frame), 6 + 1 − 9.
	if !reflect.DeepEqual(od, []int64{0}) || !reflect.DeepEqual(ud, []int64{-2}) {
		t.Errorf("rope_deltas v4.57 %v, unified %v: want [0] and [-2]", od, ud)
	}
	// An image (t = 1) ends where both versions put the text after it.
	in = Input{InputIDs: [][]int64{cat(ids(vs), rep(img, 6), ids(ve))}, ImageGridTHW: [][3]int64{{1, 4, 6}}}
	old, unified, od, ud = bothVersions(t, DefaultConfig(Qwen2VL), in)
	if !reflect.DeepEqual(old, unified) || !reflect.DeepEqual(od, ud) {
		t.Errorf("an image: v4.57 %v %v, unified %v %v: want equal", old, od, unified, ud)
	}
}

// Qwen2.5-VL: v4.57 scales the temporal step as float32 t · second · tokens_per_second then
// truncates; main's Qwen2_5_VLModel.get_rope_index takes time_interval = tokens_per_second ·
// int(second_per_grid_t), so half a second per grid step is interval 0.
func TestUnifiedQwen25TimeInterval(t *testing.T) {
	cfg := DefaultConfig(Qwen25VL)
	cfg.TokensPerSecond = 2
	row := cat(ids(vs), rep(vid, 2), ids(ve))
	for _, c := range []struct {
		seconds            []float64
		oldT, unifiedT     []int64
		oldDelta, uniDelta int64
	}{
		// t·0.5·2 = 0, 1 → 1, 2; VE at 3. Main: interval 0 → 1, 1; VE at 1 + 1 = 2.
		{[]float64{0.5}, []int64{0, 1, 2, 3}, []int64{0, 1, 1, 2}, 0, -1},
		// Default 1.0: t·2 = 0, 2 → 1, 3; VE at 4. Main: interval 2 → 1, 3; VE at 2.
		{nil, []int64{0, 1, 3, 4}, []int64{0, 1, 3, 2}, 1, 0},
	} {
		in := Input{InputIDs: [][]int64{row}, VideoGridTHW: [][3]int64{{2, 2, 2}}, SecondPerGridT: c.seconds}
		old, unified, od, ud := bothVersions(t, cfg, in)
		if !reflect.DeepEqual(old[0][0], c.oldT) || !reflect.DeepEqual(unified[0][0], c.unifiedT) {
			t.Errorf("seconds %v: temporal v4.57 %v, unified %v: want %v and %v", c.seconds, old[0][0], unified[0][0], c.oldT, c.unifiedT)
		}
		if od[0] != c.oldDelta || ud[0] != c.uniDelta {
			t.Errorf("seconds %v: rope_deltas v4.57 %v, unified %v: want %d and %d", c.seconds, od, ud, c.oldDelta, c.uniDelta)
		}
	}
}

// Qwen3-VL splits videos into frames of t = 1, so its unpadded positions agree; padding is
// where the versions part: torch.ones vs torch.zeros for the padded slots, and rope_delta over
// len(total_input_ids[i]) vs len(current_input_ids) (Qwen3VLModel.get_rope_index).
func TestUnifiedPadding(t *testing.T) {
	row := cat(ids(pad, pad, 1, vs), rep(vid, 4), ids(ve, 2))
	mask := [][]int64{{0, 0, 1, 1, 1, 1, 1, 1, 1, 1}}
	in := Input{InputIDs: [][]int64{row}, AttentionMask: mask, VideoGridTHW: [][3]int64{{1, 4, 4}}}
	old, unified, od, ud := bothVersions(t, DefaultConfig(Qwen3VL), in)
	wantPositions(t, old, 0, [3][]int64{
		{1, 1, 0, 1, 2, 2, 2, 2, 4, 5},
		{1, 1, 0, 1, 2, 2, 3, 3, 4, 5},
		{1, 1, 0, 1, 2, 3, 2, 3, 4, 5},
	})
	wantPositions(t, unified, 0, [3][]int64{
		{0, 0, 0, 1, 2, 2, 2, 2, 4, 5},
		{0, 0, 0, 1, 2, 2, 3, 3, 4, 5},
		{0, 0, 0, 1, 2, 3, 2, 3, 4, 5},
	})
	// 5 + 1 − 10 and 5 + 1 − 8.
	if od[0] != -4 || ud[0] != -2 {
		t.Errorf("rope_deltas v4.57 %v, unified %v: want [-4] and [-2]", od, ud)
	}
	// No grid: v4.57's text branch (masked slots 1, rope_delta over the padded row) vs
	// GenerationMixin._prepare_position_ids_for_generation (masked slots 0) with rope_deltas 0.
	in = Input{InputIDs: [][]int64{{pad, 1, 2}}, AttentionMask: [][]int64{{0, 1, 1}}}
	old, unified, od, ud = bothVersions(t, DefaultConfig(Qwen3VL), in)
	if !reflect.DeepEqual(old[0][0], []int64{1, 0, 1}) || !reflect.DeepEqual(unified[0][0], []int64{0, 0, 1}) || od[0] != -1 || ud[0] != 0 {
		t.Errorf("text only: v4.57 %v %v, unified %v %v: want [1 0 1] [-1], [0 0 1] [0]", old[0][0], od, unified[0][0], ud)
	}
}

// The families whose rewrite was not read keep their rule under IndexUnified.
func TestUnifiedOtherFamilies(t *testing.T) {
	cfg := DefaultConfig(GLM4V)
	row := cat(ids(1, glmBOI), rep(glmImg, 4), ids(glmEOI, 2))
	in := Input{InputIDs: [][]int64{row}, ImageGridTHW: [][3]int64{{1, 4, 4}}}
	old, unified, od, ud := bothVersions(t, cfg, in)
	if !reflect.DeepEqual(old, unified) || !reflect.DeepEqual(od, ud) {
		t.Errorf("glm4v: v4.57 %v %v, unified %v %v: want equal", old, od, unified, ud)
	}
}

func TestUnifiedErrors(t *testing.T) {
	cfg := DefaultConfig(Qwen2VL)
	cfg.RopeIndex = IndexUnified
	for name, in := range map[string]Input{
		"run shorter than its grid": {InputIDs: [][]int64{cat(ids(vs), rep(vid, 3), ids(ve))}, VideoGridTHW: [][3]int64{{4, 2, 2}}},
		"more runs than grids":      {InputIDs: [][]int64{cat(rep(img, 1), ids(1), rep(img, 1))}, ImageGridTHW: [][3]int64{{1, 2, 2}}},
		"grid without a run":        {InputIDs: [][]int64{cat(rep(img, 1), ids(1))}, ImageGridTHW: [][3]int64{{1, 2, 2}, {1, 2, 2}}},
		"fully masked row":          {InputIDs: [][]int64{{img}}, AttentionMask: [][]int64{{0}}, ImageGridTHW: [][3]int64{{1, 2, 2}}},
	} {
		if _, _, err := RoPEIndex(cfg, in); !errors.Is(err, ErrInput) {
			t.Errorf("%s: err %v, want ErrInput", name, err)
		}
	}
	q := DefaultConfig(Qwen25VL)
	q.RopeIndex, q.TokensPerSecond = IndexUnified, 2.5
	in := Input{InputIDs: [][]int64{rep(vid, 1)}, VideoGridTHW: [][3]int64{{1, 2, 2}}}
	if _, _, err := RoPEIndex(q, in); !errors.Is(err, ErrInput) {
		t.Errorf("tokens_per_second 2.5: err %v, want ErrInput", err)
	}
	q.TokensPerSecond = 2
	in.SecondPerGridT = []float64{1e300}
	if _, _, err := RoPEIndex(q, in); !errors.Is(err, ErrInput) {
		t.Errorf("second_per_grid_ts 1e300: err %v, want ErrInput", err)
	}
	cfg.RopeIndex = 7
	if err := cfg.Validate(); err == nil {
		t.Error("RopeIndex 7: Validate accepted it")
	}
}

// TestUnifiedAgreesWithoutOverlap: on unpadded prompts whose videos last no longer in time than
// their merged side (and Qwen3-VL's, whose frames are grids of t = 1), the largest position of a
// block is its start + max(t, h, w) − 1 = its start + max(h, w) − 1, so v4.57's st_idx
// (llm_pos_ids_list[-1].max() + 1) and main's current_pos + max(h, w) // merge coincide: the two
// versions must give the same positions and rope_deltas. Random layouts, fixed seed.
func TestUnifiedAgreesWithoutOverlap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, kind := range []Kind{Qwen2VL, Qwen3VL} {
		cfg := DefaultConfig(kind)
		m := cfg.SpatialMergeSize
		for trial := range 300 {
			var row []int64
			var images, videos [][3]int64
			text := func() {
				for range rng.IntN(4) {
					row = append(row, int64(1+rng.IntN(100)))
				}
			}
			for range rng.IntN(4) {
				text()
				h, w := int64(1+rng.IntN(3)), int64(1+rng.IntN(3))
				if rng.IntN(2) == 0 {
					images = append(images, [3]int64{1, h * m, w * m})
					row = append(append(row, vs), rep(img, int(h*w))...)
					row = append(row, ve)
					continue
				}
				steps := int64(1 + rng.IntN(int(max(h, w))))
				if kind == Qwen3VL {
					steps = int64(1 + rng.IntN(4))
				}
				videos = append(videos, [3]int64{steps, h * m, w * m})
				frames := int64(1)
				if kind == Qwen3VL {
					frames = steps
				}
				for range frames {
					row = append(append(row, vs), rep(vid, int(steps/frames*h*w))...)
					row = append(row, ve)
				}
			}
			text()
			if len(row) == 0 {
				row = []int64{1}
			}
			in := Input{InputIDs: [][]int64{row}, ImageGridTHW: images, VideoGridTHW: videos}
			old, unified, od, ud := bothVersions(t, cfg, in)
			if !reflect.DeepEqual(old, unified) || !reflect.DeepEqual(od, ud) {
				t.Fatalf("%v trial %d: ids %v images %v videos %v:\nv4.57 %v %v\nunified %v %v", kind, trial, row, images, videos, old, od, unified, ud)
			}
		}
	}
}

// FuzzUnifiedIndex: any ids, mask and grids give positions or an ErrInput error, never a panic,
// under transformers main's rules for every Qwen-VL family.
func FuzzUnifiedIndex(f *testing.F) {
	f.Add([]byte{0, 2, 3, 3, 3, 3, 4, 1}, []byte{4, 2, 2}, uint8(0), false)
	f.Add([]byte{2, 3, 3, 3, 3, 4}, []byte{1, 4, 4}, uint8(2), true)
	f.Fuzz(func(t *testing.T, tokens, grid []byte, kind uint8, padded bool) {
		kinds := []Kind{Qwen2VL, Qwen25VL, Qwen3VL, Qwen35}
		cfg := DefaultConfig(kinds[int(kind)%len(kinds)])
		cfg.RopeIndex = IndexUnified
		special := []int64{1, cfg.VisionStartTokenID, cfg.ImageTokenID, cfg.VideoTokenID, ve}
		if len(tokens) > 512 {
			tokens = tokens[:512]
		}
		row := make([]int64, len(tokens))
		mask := make([]int64, len(tokens))
		for i, b := range tokens {
			row[i] = special[int(b)%len(special)]
			mask[i] = int64(b>>7) ^ 1
		}
		var images, videos [][3]int64
		for i := 0; i+2 < len(grid) && i < 30; i += 3 {
			g := [3]int64{int64(grid[i]%5) + 1, int64(grid[i+1]%4+1) * 2, int64(grid[i+2]%4+1) * 2}
			if grid[i]&0x80 != 0 {
				images = append(images, g)
			} else {
				videos = append(videos, g)
			}
		}
		in := Input{InputIDs: [][]int64{row}, ImageGridTHW: images, VideoGridTHW: videos}
		if padded {
			in.AttentionMask = [][]int64{mask}
		}
		pos, deltas, err := RoPEIndex(cfg, in)
		if err != nil {
			if !errors.Is(err, ErrInput) {
				t.Fatalf("error %v: want ErrInput", err)
			}
			return
		}
		if len(deltas) != 1 || len(pos[0][0]) != len(row) {
			t.Fatalf("shapes: %d deltas, %d positions for %d ids", len(deltas), len(pos[0][0]), len(row))
		}
	})
}
