package multimodal

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

// Token ids of the tests: the HF defaults for the special tokens, small numbers for text.
const (
	vs  = DefaultVisionStartTokenID
	ve  = 151653 // vision_end: ordinary text to get_rope_index
	img = DefaultImageTokenID
	vid = DefaultVideoTokenID
	pad = 151643
)

func rep(tok int64, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = tok
	}
	return out
}

func cat(parts ...[]int64) []int64 {
	var out []int64
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func ids(v ...int64) []int64 { return v }

func wantPositions(t *testing.T, got Positions3, b int, want [3][]int64) {
	t.Helper()
	for a := range 3 {
		if !reflect.DeepEqual(got[a][b], want[a]) {
			t.Errorf("row %d axis %c:\n got %v\nwant %v", b, "thw"[a], got[a][b], want[a])
		}
	}
}

func mustIndex(t *testing.T, cfg Config, in, mask [][]int64, images, videos [][3]int64, seconds []float64) (Positions3, []int64) {
	t.Helper()
	pos, deltas, err := GetRoPEIndex(cfg, in, mask, images, videos, seconds)
	if err != nil {
		t.Fatal(err)
	}
	return pos, deltas
}

func TestTextOnly(t *testing.T) {
	for _, k := range []Kind{Qwen2VL, Qwen25VL, Qwen3VL, Qwen35, GLM4V} {
		pos, deltas := mustIndex(t, DefaultConfig(k), [][]int64{{5, 6, 7, 8, 9}, {1, 2, 3, 4, 5}}, nil, nil, nil, nil)
		for b := range 2 {
			wantPositions(t, pos, b, [3][]int64{{0, 1, 2, 3, 4}, {0, 1, 2, 3, 4}, {0, 1, 2, 3, 4}})
		}
		if !reflect.DeepEqual(deltas, []int64{0, 0}) {
			t.Errorf("%v: deltas %v, want [0 0]", k, deltas)
		}
	}
}

// TestTextOnlyMask: HF's text branch, cumsum(mask) − 1 with masked slots 1, and the delta
// takes the row's maximum over every slot, the masked 1s included.
func TestTextOnlyMask(t *testing.T) {
	in := [][]int64{{pad, pad, 10, 11, 12}, {pad, pad, pad, pad, 10}, {10, 11, 12, 13, 14}}
	mask := [][]int64{{0, 0, 1, 1, 1}, {0, 0, 0, 0, 1}, {1, 1, 1, 1, 1}}
	pos, deltas := mustIndex(t, DefaultConfig(Qwen2VL), in, mask, nil, nil, nil)
	// Row 0: cumsum − 1 = [−1 −1 0 1 2] → masked set to 1: [1 1 0 1 2]; max 2 → 3 − 5 = −2.
	wantPositions(t, pos, 0, [3][]int64{{1, 1, 0, 1, 2}, {1, 1, 0, 1, 2}, {1, 1, 0, 1, 2}})
	// Row 1: [1 1 1 1 0]; the masked 1s are the max → 2 − 5 = −3.
	wantPositions(t, pos, 1, [3][]int64{{1, 1, 1, 1, 0}, {1, 1, 1, 1, 0}, {1, 1, 1, 1, 0}})
	if want := []int64{-2, -3, 0}; !reflect.DeepEqual(deltas, want) {
		t.Errorf("deltas %v, want %v", deltas, want)
	}
}

// TestOneImage works one image through by hand.
//
// Grid (t, h, w) = (1, 4, 6) with spatial_merge_size 2 is an LLM grid of 1 × 2 × 3: six
// image tokens. The row is
//
//	index: 0  1  2   3..8   9   10 11
//	token: T0 T1 VS  I×6    VE  T2 T3
//
// One vision_start is followed by an image token, so one image. The first image token is at
// ed = 3, so text_len = 3 and tokens 0..2 get 0, 1, 2 on every axis. st_idx was 0, so the
// image offset is text_len + st_idx = 3; its tokens, t-major then h then w, are
// (t, h, w) = (0,0,0) (0,0,1) (0,0,2) (0,1,0) (0,1,1) (0,1,2) + 3. The cursor moves to
// 3 + 6 = 9; the trailing text starts at the image's max (5) + 1 = 6: tokens 9, 10, 11 get
// 6, 7, 8. rope_delta = max (8) + 1 − 12 tokens = −3.
func TestOneImage(t *testing.T) {
	row := cat(ids(100, 101, vs), rep(img, 6), ids(ve, 102, 103))
	want := [3][]int64{
		{0, 1, 2, 3, 3, 3, 3, 3, 3, 6, 7, 8},
		{0, 1, 2, 3, 3, 3, 4, 4, 4, 6, 7, 8},
		{0, 1, 2, 3, 4, 5, 3, 4, 5, 6, 7, 8},
	}
	// Images are the same in all three families (Qwen2.5-VL's t is 0 for images; with
	// t = 1 the ranges agree).
	for _, k := range []Kind{Qwen2VL, Qwen25VL, Qwen3VL} {
		pos, deltas := mustIndex(t, DefaultConfig(k), [][]int64{row}, nil, [][3]int64{{1, 4, 6}}, nil, nil)
		wantPositions(t, pos, 0, want)
		if deltas[0] != -3 {
			t.Errorf("%v: rope_delta %d, want -3", k, deltas[0])
		}
		// Decoding: the next token, cache position 12, continues at 12 − 3 = 9 = max + 1.
		if p := DecodePosition(12, deltas[0]); p != 9 {
			t.Errorf("%v: decode position %d, want 9", k, p)
		}
	}
}

// TestTwoImages: two images in one row and the running offsets between them.
//
//	index: 0   1..4  5   6  7   8..13  14
//	token: VS  I×4   VE  T  VS  I×6    VE
//
// Image 0, grid (1, 4, 4) → 1×2×2: ed = 1, text_len 1 → token 0 at 0; offset 1; tokens
// (h, w) = (0,0) (0,1) (1,0) (1,1) + 1; max 2; cursor 5.
// Image 1, grid (1, 4, 6) → 1×2×3: ed = 8, text_len 3 (VE, T, VS) at st_idx 3 → 3, 4, 5;
// offset 3 + 3 = 6; tokens (0,0..2) (1,0..2) + 6; max 8; cursor 14.
// Trailing text: token 14 at 9. rope_delta = 9 + 1 − 15 = −5.
func TestTwoImages(t *testing.T) {
	row := cat(ids(vs), rep(img, 4), ids(ve, 100, vs), rep(img, 6), ids(ve))
	pos, deltas := mustIndex(t, DefaultConfig(Qwen2VL), [][]int64{row}, nil, [][3]int64{{1, 4, 4}, {1, 4, 6}}, nil, nil)
	wantPositions(t, pos, 0, [3][]int64{
		{0, 1, 1, 1, 1, 3, 4, 5, 6, 6, 6, 6, 6, 6, 9},
		{0, 1, 1, 2, 2, 3, 4, 5, 6, 6, 6, 7, 7, 7, 9},
		{0, 1, 2, 1, 2, 3, 4, 5, 6, 7, 8, 6, 7, 8, 9},
	})
	if deltas[0] != -5 {
		t.Errorf("rope_delta %d, want -5", deltas[0])
	}
}

// TestVideoQwen2VL: a video's temporal index counts grid steps.
//
// Grid (3, 2, 2) → 3×1×1 tokens after T, VS: offset 2, t = 0, 1, 2 (+2), h = w = 0 (+2).
// Max 4; trailing VE at 5. rope_delta = 6 − 6 = 0.
func TestVideoQwen2VL(t *testing.T) {
	row := cat(ids(100, vs), rep(vid, 3), ids(ve))
	pos, deltas := mustIndex(t, DefaultConfig(Qwen2VL), [][]int64{row}, nil, nil, [][3]int64{{3, 2, 2}}, nil)
	wantPositions(t, pos, 0, [3][]int64{{0, 1, 2, 3, 4, 5}, {0, 1, 2, 2, 2, 5}, {0, 1, 2, 2, 2, 5}})
	if deltas[0] != 0 {
		t.Errorf("rope_delta %d, want 0", deltas[0])
	}
}

// TestVideoQwen25VL: Qwen2.5-VL scales the temporal index by second_per_grid_t ·
// tokens_per_second and truncates.
//
// Grid (4, 4, 4) → 4×2×2 = 16 tokens after T, VS (offset 2). With second_per_grid_t 0.75
// and tokens_per_second 2, step i has t = trunc(i · 0.75 · 2) = 0, 1 (1.5), 3, 4 (4.5).
// Max = 2 + 4 = 6; the trailing VE, T get 7, 8; rope_delta = 9 − 20 = −11.
// With second_per_grid_ts absent, second_per_grid_t is 1.0: t = 0, 2, 4, 6, max 8,
// trailing 9, 10, rope_delta = 11 − 20 = −9.
func TestVideoQwen25VL(t *testing.T) {
	cfg := DefaultConfig(Qwen25VL)
	cfg.TokensPerSecond = 2
	row := cat(ids(100, vs), rep(vid, 16), ids(ve, 101))
	grid := [][3]int64{{4, 4, 4}}
	block := func(ts ...int64) [3][]int64 {
		var out [3][]int64
		for _, tt := range ts {
			for h := range int64(2) {
				for w := range int64(2) {
					out[0] = append(out[0], tt+2)
					out[1] = append(out[1], h+2)
					out[2] = append(out[2], w+2)
				}
			}
		}
		return out
	}
	for _, c := range []struct {
		name    string
		seconds []float64
		ts      []int64
		tail    int64
		delta   int64
	}{
		{"0.75s", []float64{0.75}, []int64{0, 1, 3, 4}, 7, -11},
		{"absent", nil, []int64{0, 2, 4, 6}, 9, -9},
	} {
		t.Run(c.name, func(t *testing.T) {
			pos, deltas := mustIndex(t, cfg, [][]int64{row}, nil, nil, grid, c.seconds)
			b := block(c.ts...)
			var want [3][]int64
			for a := range want {
				want[a] = cat(ids(0, 1), b[a], ids(c.tail, c.tail+1))
			}
			wantPositions(t, pos, 0, want)
			if deltas[0] != c.delta {
				t.Errorf("rope_delta %d, want %d", deltas[0], c.delta)
			}
		})
	}
	// Qwen2-VL ignores second_per_grid_ts: t = 0, 1, 2, 3.
	pos, _ := mustIndex(t, DefaultConfig(Qwen2VL), [][]int64{row}, nil, nil, grid, []float64{0.75})
	if got := []int64{pos[0][0][2], pos[0][0][6], pos[0][0][10], pos[0][0][14]}; !reflect.DeepEqual(got, []int64{2, 3, 4, 5}) {
		t.Errorf("qwen2_vl video t per step %v, want [2 3 4 5]", got)
	}
}

// TestTemporalFloat32 checks that the temporal index truncates the float32 product torch
// forms (int64 range × float32 second_per_grid_t × int tokens_per_second), not a float64 one:
// 3 · 0.7 · 10 is 21 in float32 (0.7f · 3 = 2.0999999, · 10 rounds to 21) but
// 20.999999999999996 in float64; 9 · 0.7 · 10 is 62.999996 in float32 but 63 in float64.
func TestTemporalFloat32(t *testing.T) {
	st := &indexState{cfg: Config{Kind: Qwen25VL, TokensPerSecond: 10}}
	for _, c := range []struct{ t, want int64 }{{3, 21}, {9, 62}, {10, 70}} {
		if got, ok := st.temporalIndex(c.t, false, 0.7); !ok || got != c.want {
			t.Errorf("trunc(%d · 0.7 · 10) in float32 = %d, want %d", c.t, got, c.want)
		}
	}
	if got, ok := st.temporalIndex(3, true, 0.7); !ok || got != 0 {
		t.Errorf("image temporal index %d, want 0", got)
	}
}

// TestVideoQwen3VL: Qwen3-VL splits a video of grid (2, 4, 4) into two frames of
// (1, 4, 4), each 1×2×2 = 4 tokens, each behind its own timestamp text and vision_start:
//
//	index: 0  1    2   3..6  7   8    9   10..13  14  15
//	token: T  TS0  VS  V×4   VE  TS1  VS  V×4     VE  T
//
// Frame 0: ed 3, text_len 3 → 0, 1, 2; offset 3: t 3, h 3 3 4 4, w 3 4 3 4; max 4.
// Frame 1: next video token from 7 is at 10: text_len 3 (VE, TS1, VS) from st_idx 5 →
// 5, 6, 7; offset 5 + 3 = 8: t 8, h 8 8 9 9, w 8 9 8 9; max 9.
// Trailing VE, T: 10, 11. rope_delta = 12 − 16 = −4.
func TestVideoQwen3VL(t *testing.T) {
	const ts0, ts1 = 200, 201 // timestamp text ("<0.5 seconds>"), one token each here
	row := cat(ids(100, ts0, vs), rep(vid, 4), ids(ve, ts1, vs), rep(vid, 4), ids(ve, 101))
	pos, deltas := mustIndex(t, DefaultConfig(Qwen3VL), [][]int64{row}, nil, nil, [][3]int64{{2, 4, 4}}, nil)
	wantPositions(t, pos, 0, [3][]int64{
		{0, 1, 2, 3, 3, 3, 3, 5, 6, 7, 8, 8, 8, 8, 10, 11},
		{0, 1, 2, 3, 3, 4, 4, 5, 6, 7, 8, 8, 9, 9, 10, 11},
		{0, 1, 2, 3, 4, 3, 4, 5, 6, 7, 8, 9, 8, 9, 10, 11},
	})
	if deltas[0] != -4 {
		t.Errorf("rope_delta %d, want -4", deltas[0])
	}
	// The same grid as one Qwen2-VL block needs 8 consecutive video tokens.
	if _, _, err := GetRoPEIndex(DefaultConfig(Qwen2VL), [][]int64{row}, nil, nil, [][3]int64{{2, 4, 4}}, nil); err == nil {
		t.Error("qwen2_vl accepted a (2, 4, 4) video split into frames")
	}
}

// TestLeftPadding: a batch of two rows, the second left-padded.
//
// Row 0, T VS I×4 VE T with grid 0 (1, 4, 4): text 0, 1; offset 2: t 2, h 2 2 3 3,
// w 2 3 2 3; max 3; trailing 4, 5. rope_delta = 6 − 8 = −2.
// Row 1, PAD PAD VS I×4 VE with mask 0 0 1 1 1 1 1 1 and grid 1 (1, 4, 4): over the six
// unmasked tokens, VS at 0; offset 1: t 1, h 1 1 2 2, w 1 2 1 2; max 2; VE at 3. The two
// padding slots get 1. rope_delta = 3 + 1 − 8 (the padded length) = −4.
func TestLeftPadding(t *testing.T) {
	in := [][]int64{
		cat(ids(100, vs), rep(img, 4), ids(ve, 101)),
		cat(ids(pad, pad, vs), rep(img, 4), ids(ve)),
	}
	mask := [][]int64{{1, 1, 1, 1, 1, 1, 1, 1}, {0, 0, 1, 1, 1, 1, 1, 1}}
	pos, deltas := mustIndex(t, DefaultConfig(Qwen2VL), in, mask, [][3]int64{{1, 4, 4}, {1, 4, 4}}, nil, nil)
	wantPositions(t, pos, 0, [3][]int64{
		{0, 1, 2, 2, 2, 2, 4, 5},
		{0, 1, 2, 2, 3, 3, 4, 5},
		{0, 1, 2, 3, 2, 3, 4, 5},
	})
	wantPositions(t, pos, 1, [3][]int64{
		{1, 1, 0, 1, 1, 1, 1, 3},
		{1, 1, 0, 1, 1, 2, 2, 3},
		{1, 1, 0, 1, 2, 1, 2, 3},
	})
	if want := []int64{-2, -4}; !reflect.DeepEqual(deltas, want) {
		t.Errorf("deltas %v, want %v", deltas, want)
	}
	// Decode, batched: the next token of both rows is cache position 8.
	dec, err := DecodePositions(deltas, 8, 2)
	if err != nil {
		t.Fatal(err)
	}
	for a := range 3 {
		if !reflect.DeepEqual(dec[a], [][]int64{{6, 7}, {4, 5}}) {
			t.Errorf("decode axis %d: %v, want [[6 7] [4 5]]", a, dec[a])
		}
	}
}

// TestRowWithoutImages: when grids are given, a text-only row still takes the multimodal
// branch (masked slots 1, rope_delta from the unmasked maximum).
func TestRowWithoutImages(t *testing.T) {
	in := [][]int64{cat(ids(vs), rep(img, 4), ids(ve)), {pad, pad, pad, pad, 7, 8}}
	mask := [][]int64{{1, 1, 1, 1, 1, 1}, {0, 0, 0, 0, 1, 1}}
	pos, deltas := mustIndex(t, DefaultConfig(Qwen2VL), in, mask, [][3]int64{{1, 4, 4}}, nil, nil)
	wantPositions(t, pos, 1, [3][]int64{{1, 1, 1, 1, 0, 1}, {1, 1, 1, 1, 0, 1}, {1, 1, 1, 1, 0, 1}})
	if deltas[1] != 2-6 {
		t.Errorf("row 1 rope_delta %d, want -4", deltas[1])
	}
}

func TestFlatten(t *testing.T) {
	row := cat(ids(100, 101, vs), rep(img, 6), ids(ve, 102, 103))
	pos, _ := mustIndex(t, DefaultConfig(Qwen2VL), [][]int64{row, row}, nil, [][3]int64{{1, 4, 6}, {1, 4, 6}}, nil, nil)
	r, err := Row(pos, 1)
	if err != nil || len(r) != 36 || r[12+5] != 5-2 || r[24+5] != 5 {
		t.Errorf("Row: %v", r)
	}
	f := Flatten(pos)
	if len(f) != 72 || !reflect.DeepEqual(f[24:36], pos[1][0]) {
		t.Errorf("Flatten: %v", f)
	}
}

func TestErrors(t *testing.T) {
	q2 := DefaultConfig(Qwen2VL)
	q25 := DefaultConfig(Qwen25VL)
	one := cat(ids(100, vs), rep(img, 6), ids(ve))
	for _, c := range []struct {
		name           string
		cfg            Config
		in, mask       [][]int64
		images, videos [][3]int64
		seconds        []float64
		want           string
	}{
		{"no grid for image", q2, [][]int64{one}, nil, nil, nil, nil, "no image_grid_thw"},
		{"extra grid", q2, [][]int64{one}, nil, [][3]int64{{1, 4, 6}, {1, 4, 6}}, nil, nil, "2 grids but the input has 1 image blocks"},
		{"too few image tokens", q2, [][]int64{cat(ids(100, vs), rep(img, 5), ids(ve))}, nil, [][3]int64{{1, 4, 6}}, nil, nil, "needs 6 consecutive image tokens"},
		{"stray image token", q2, [][]int64{cat(ids(vs), rep(img, 4), ids(ve, img))}, nil, [][3]int64{{1, 4, 4}}, nil, nil, "5 image tokens but image_grid_thw covers 4"},
		{"grid past the end", q2, [][]int64{cat(ids(100, vs), rep(img, 5))}, nil, [][3]int64{{1, 4, 6}}, nil, nil, "row has 5 tokens left"},
		{"video grid missing", q2, [][]int64{cat(ids(vs), rep(vid, 2))}, nil, [][3]int64{{1, 2, 2}}, nil, nil, "video"},
		{"not divisible", q2, [][]int64{one}, nil, [][3]int64{{1, 5, 6}}, nil, nil, "multiples of spatial_merge_size 2"},
		{"negative", q2, [][]int64{one}, nil, [][3]int64{{1, -4, 6}}, nil, nil, "h -4"},
		{"zero t", q2, [][]int64{one}, nil, [][3]int64{{0, 4, 6}}, nil, nil, "t 0"},
		{"negative video", q2, [][]int64{one}, nil, [][3]int64{{1, 4, 6}}, [][3]int64{{-1, 2, 2}}, nil, "video_grid_thw[0]"},
		{"ragged", q2, [][]int64{{1, 2}, {1}}, nil, nil, nil, nil, "equal-length rows"},
		{"negative id", q2, [][]int64{{1, -2}}, nil, nil, nil, nil, "token id ≥ 0"},
		{"mask shape", q2, [][]int64{{1, 2}}, [][]int64{{1}}, nil, nil, nil, "same shape"},
		{"mask value", q2, [][]int64{{1, 2}}, [][]int64{{1, 2}}, nil, nil, nil, "want 0 or 1"},
		{"vision_start last", q2, [][]int64{cat(one, ids(vs))}, nil, [][3]int64{{1, 4, 6}}, nil, nil, "last unmasked token"},
		{"all masked", q2, [][]int64{one}, [][]int64{{0, 0, 0, 0, 0, 0, 0, 0, 0}}, [][3]int64{{1, 4, 6}}, nil, nil, "no unmasked tokens"},
		{"seconds length", q25, [][]int64{cat(ids(vs), rep(vid, 4))}, nil, nil, [][3]int64{{1, 4, 4}}, []float64{1, 2}, "one per video"},
		{"seconds negative", q25, [][]int64{cat(ids(vs), rep(vid, 4))}, nil, nil, [][3]int64{{1, 4, 4}}, []float64{-1}, "second_per_grid_ts[0]"},
		{"bad config", Config{Kind: Qwen2VL, ImageTokenID: 1, VideoTokenID: 1, VisionStartTokenID: 2, SpatialMergeSize: 2}, [][]int64{{1}}, nil, nil, nil, nil, "distinct"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := GetRoPEIndex(c.cfg, c.in, c.mask, c.images, c.videos, c.seconds)
			if err == nil {
				t.Fatalf("no error, want one containing %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q, want it to contain %q", err, c.want)
			}
			if !errors.Is(err, ErrInput) && !errors.Is(err, ErrConfig) {
				t.Errorf("error %q wraps neither ErrInput nor ErrConfig", err)
			}
		})
	}
}

// FuzzGetRoPEIndex: arbitrary tokens, masks, grids and seconds per grid step never panic, and
// accepted positions are never negative. A grid triple whose first byte has bit 0x40 set takes
// powers of two up to 2^20 (the largest grid value accepted) instead of small values.
func FuzzGetRoPEIndex(f *testing.F) {
	f.Add([]byte{0, 1, 2, 2, 2, 2, 3}, []byte{1, 2, 2}, uint8(0), 1.0)
	f.Add([]byte{1, 3, 3, 3, 3, 1, 3, 3, 3, 3}, []byte{2, 2, 2}, uint8(2), 0.5)
	// Qwen2.5-VL: a video of 1e30 seconds per step put temporal positions at -2^63+1 (the
	// bytes 4..7 are unmasked text, vision_start, image and video tokens).
	f.Add([]byte{4, 5, 7, 7, 7, 7, 7, 7, 7, 7}, []byte{0x82, 4, 4}, uint8(1), 1e30)
	f.Add([]byte{4, 5, 7, 7, 7, 7, 7, 7, 7, 7}, []byte{0x82, 4, 4}, uint8(1), math.Inf(1))
	// Grids of 2^20 per side behind a few tokens.
	f.Add([]byte{4, 5, 6, 6, 6, 6, 7}, []byte{0x40 | 20, 20, 20}, uint8(0), 1.0)
	f.Add([]byte{4, 5, 7, 7, 7, 7}, []byte{0xc0 | 20, 1, 1}, uint8(2), 1.0)
	// GLM-4V: an image run, then a video span of two one-token frames between text.
	f.Add([]byte{4, 6, 4, 5, 6, 4, 6, 7}, []byte{1, 2, 2, 0x82, 2, 2}, uint8(4), 1.0)
	// Qwen2.5-Omni: T VS I VE AS A A AE, an image (1, 2, 2) and an audio of 9 frames (2 tokens);
	// and a video with its audio (kind bit 0x80), VS AS V V A A AE VE.
	f.Add([]byte{4, 5, 6, 4, 12, 13, 13, 14}, []byte{1, 2, 2, 0x20, 3, 3}, uint8(5), 1.0)
	f.Add([]byte{5, 12, 7, 7, 13, 13, 14, 4}, []byte{0x82, 2, 2, 0x20, 3, 3}, uint8(0x83), 1.0)
	// ERNIE-4.5-VL: T and an image run of (1, 4, 4); HunYuan-VL: T and a run of its 6 grid tokens.
	f.Add([]byte{4, 6, 6, 6, 6}, []byte{1, 4, 4}, uint8(7), 1.0)
	f.Add([]byte{4, 6, 6, 6, 6, 6, 6}, []byte{1, 4, 4}, uint8(8), 1.0)
	f.Fuzz(func(t *testing.T, toks, grid []byte, kind uint8, second float64) {
		cfg := DefaultConfig(Kind(kind%uint8(kindEnd-1) + 1))
		cfg.TokensPerSecond = 2
		alphabet := []int64{100, cfg.VisionStartTokenID, cfg.ImageTokenID, cfg.VideoTokenID}
		if cfg.Kind == GLM4V {
			alphabet = []int64{100, cfg.VideoStartTokenID, cfg.ImageTokenID, cfg.VideoEndTokenID}
		}
		omni := isOmni(cfg.Kind)
		if omni {
			// Bit 3 of a token byte selects audio_start, audio, audio_end or text.
			alphabet = append(alphabet, cfg.AudioStartTokenID, cfg.AudioTokenID, cfg.AudioTokenID+2, 100)
			cfg.PositionIDPerSeconds = 2
		}
		row := make([]int64, len(toks))
		mask := make([]int64, len(toks))
		for i, b := range toks {
			k := int(b % 4)
			if omni && b&8 != 0 {
				k += 4
			}
			row[i] = alphabet[k]
			mask[i] = int64(b>>2) & 1
		}
		var images, videos [][3]int64
		var audios []int64
		for i := 0; i+2 < len(grid); i += 3 {
			if omni && grid[i]&0x20 != 0 {
				audios = append(audios, int64(grid[i+1])*int64(grid[i+2])%64)
				continue
			}
			g := [3]int64{int64(grid[i] % 4), int64(grid[i+1] % 6), int64(grid[i+2] % 6)}
			if grid[i]&0x40 != 0 {
				for k := range g {
					g[k] = 1 << (grid[i+k] & 0x3f % 21)
				}
			}
			if grid[i]&0x80 != 0 {
				videos = append(videos, g)
			} else {
				images = append(images, g)
			}
		}
		var seconds []float64
		if cfg.Kind == Qwen25VL {
			for range videos {
				seconds = append(seconds, second)
			}
		}
		if omni {
			for range videos {
				seconds = append(seconds, second)
			}
		}
		pos, deltas, err := RoPEIndexN(cfg, Input{InputIDs: [][]int64{row}, AttentionMask: [][]int64{mask}, ImageGridTHW: images,
			VideoGridTHW: videos, SecondPerGridT: seconds, AudioSeqLens: audios, UseAudioInVideo: omni && kind&0x80 != 0})
		if err != nil {
			return
		}
		if len(pos) < 3 || len(pos[0]) != 1 || len(pos[0][0]) != len(row) || len(deltas) != 1 {
			t.Fatalf("shapes: %d rows, %d deltas", len(pos[0]), len(deltas))
		}
		for a := range pos {
			for s, p := range pos[a][0] {
				if p < 0 {
					t.Fatalf("axis %d token %d: position %d", a, s, p)
				}
			}
		}
	})
}
