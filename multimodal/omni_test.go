package multimodal

import (
	"reflect"
	"strings"
	"testing"
)

// The Omni token ids of the tests: the thinker configs' defaults (configuration_qwen2_5_omni.py,
// configuration_qwen3_omni_moe.py).
const (
	aud = 151646 // audio_token_index
	as  = 151647 // audio_start_token_id
	ae  = 151648 // audio_end_token_id: text to get_rope_index
)

func mustOmni(t *testing.T, cfg Config, in Input) (Positions3, []int64) {
	t.Helper()
	pos, deltas, err := RoPEIndex(cfg, in)
	if err != nil {
		t.Fatal(err)
	}
	return pos, deltas
}

// TestAudioTokens: the audio encoders' output lengths as get_rope_index computes them, with
// Python's floor division. Qwen2.5-Omni: ((n − 1) // 2 + 1 − 2) // 2 + 1; Qwen3-Omni
// (n_window 50, windows of 100 frames): 13 per full window plus three halvings of the rest,
// ((((n % 100 − 1) // 2 + 1) − 1) // 2 + 1 − 1) // 2 + 1.
func TestAudioTokens(t *testing.T) {
	q25, q3 := DefaultConfig(Qwen25Omni), DefaultConfig(Qwen3Omni)
	for _, c := range []struct {
		n, q25, q3 int64
	}{
		// n = 1: (0 // 2 + 1 − 2) // 2 + 1 = (−1) // 2 + 1 = 0; Qwen3: (0 // 2 + 1 − 1) // 2 + 1 = 1.
		{1, 0, 1},
		// n = 3: (1 + 1 − 2) // 2 + 1 = 1; Qwen3: feat 2, (0 + 1 − 1) // 2 + 1 = 1.
		{3, 1, 1},
		// n = 13: (7 − 2) // 2 + 1 = 3; Qwen3: feat 7, (3 + 1 − 1) // 2 + 1 = 2.
		{13, 3, 2},
		// n = 17: (9 − 2) // 2 + 1 = 4; Qwen3: feat 9, (4 + 1 − 1) // 2 + 1 = 3.
		{17, 4, 3},
		// n = 100: (50 − 2) // 2 + 1 = 25; Qwen3: n % 100 = 0: feat (−1) // 2 + 1 = 0,
		// ((−1) // 2 + 1 − 1) // 2 + 1 = (−1) // 2 + 1 = 0, plus 13.
		{100, 25, 13},
		// n = 117: (59 − 2) // 2 + 1 = 29; Qwen3: 13 + 3 (the 17 left).
		{117, 29, 16},
		// 3000 frames (30 s): 750; Qwen3: 30 windows, 390.
		{3000, 750, 390},
	} {
		if got := audioTokens(q25, c.n); got != c.q25 {
			t.Errorf("qwen2_5_omni: %d frames → %d tokens, want %d", c.n, got, c.q25)
		}
		if got := audioTokens(q3, c.n); got != c.q3 {
			t.Errorf("qwen3_omni_moe: %d frames → %d tokens, want %d", c.n, got, c.q3)
		}
	}
}

// TestQwen25Omni works an image, an audio and a video through Qwen2.5-Omni's positions by hand
// (modeling_qwen2_5_omni.py Qwen2_5OmniPreTrainedModelForConditionalGeneration.get_rope_index).
//
// Row 0 (25 tokens): image grid (1, 4, 4), audio of 13 feature frames (3 tokens), video grid
// (2, 4, 4) at second_per_grid 0.5:
//
//	index: 0 1  2..5 6  7 8  9..11 12 13 14 15..22 23 24
//	token: T VS I×4  VE T AS A×3   AE T  VS V×8    VE T
//
// Every text, start and end token takes the next position: T 0, VS 1. The image at 2: t 2
// (0 · 25 + 2), h 2 2 3 3, w 2 3 2 3; VE 4, T 5, AS 6; audio 7 8 9; AE 10, T 11, VS 12. The
// video at 13: frame 0 t 13, frame 1 t trunc(1 · 0.5 · 25 = 12.5) + 13 = 25 (float32 then
// .long()); h 13 13 14 14, w 13 14 13 14 in each frame; VE 26, T 27. rope_delta = 27 + 1 − 25
// unmasked tokens = 3.
//
// Row 1 is one padding slot then T AS A×3 AE and text (25 tokens): T 0, AS 1, audio 2 3 4,
// AE 5, text 6..23; padding 1. rope_delta = 24 − 24 = 0 (thinker: the unmasked length);
// the talker's is 0 − 1 padding slot = −1.
func TestQwen25Omni(t *testing.T) {
	row0 := cat(ids(100, vs), rep(img, 4), ids(ve, 101, as), rep(aud, 3), ids(ae, 102, vs), rep(vid, 8), ids(ve, 103))
	row1 := cat(ids(pad, 100, as), rep(aud, 3), ids(ae), rep(104, 18))
	mask := [][]int64{rep(1, 25), cat(ids(0), rep(1, 24))}
	in := Input{InputIDs: [][]int64{row0, row1}, AttentionMask: mask, ImageGridTHW: [][3]int64{{1, 4, 4}},
		VideoGridTHW: [][3]int64{{2, 4, 4}}, SecondPerGridT: []float64{0.5}, AudioSeqLens: []int64{13, 13}}
	pos, deltas := mustOmni(t, DefaultConfig(Qwen25Omni), in)
	wantPositions(t, pos, 0, [3][]int64{
		{0, 1, 2, 2, 2, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 13, 13, 13, 25, 25, 25, 25, 26, 27},
		{0, 1, 2, 2, 3, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 13, 14, 14, 13, 13, 14, 14, 26, 27},
		{0, 1, 2, 3, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 13, 14, 13, 14, 13, 14, 26, 27},
	})
	text := []int64{1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}
	wantPositions(t, pos, 1, [3][]int64{text, text, text})
	if want := []int64{3, 0}; !reflect.DeepEqual(deltas, want) {
		t.Fatalf("thinker rope_deltas %v, want %v", deltas, want)
	}
	// Thinker decode (Qwen2_5OmniThinkerForConditionalGeneration: cumsum(mask) − 1 +
	// rope_delta): the next token is the row's 25th (24th) unmasked token.
	for b, k := range []int64{25, 24} {
		if p := DecodePosition(k, deltas[b]); p != []int64{28, 24}[b] {
			t.Errorf("row %d: thinker decode position %d, want %d", b, p, []int64{28, 24}[b])
		}
	}
	// The talker: the same positions, rope_delta − padding; decode from the cache position 25.
	_, tdeltas := mustOmni(t, DefaultTalkerConfig(Qwen25Omni), in)
	if want := []int64{3, -1}; !reflect.DeepEqual(tdeltas, want) {
		t.Fatalf("talker rope_deltas %v, want %v", tdeltas, want)
	}
	dec, err := DecodePositions(tdeltas, 25, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(dec[0], [][]int64{{28}, {24}}) {
		t.Errorf("talker decode %v, want [[28] [24]]", dec[0])
	}
}

// TestQwen25OmniAudioInVideo: use_audio_in_video, by hand. position_id_per_seconds 2 and
// seconds_per_chunk 2 make chunks of int(2 · 2) = 4 positions.
//
// Video grid (3, 2, 2), merge 2: one token per frame, temporal 0, 2, 4 (second_per_grid 1.0)
// from the block's start; audio of 23 frames: ((11 + 1 − 2) // 2 + 1) = 6 tokens, 0..5 from
// the start. get_chunked_index splits the video's values 0 2 4 where they reach 4: [0, 2)
// [2, 3); the audio's 0..5: [0, 4) [4, 6). The tokens alternate video chunk 0, audio chunk
// 0, video chunk 1, audio chunk 1:
//
//	index: 0 1  2  3 4 5 6 7 8 9 10 11 12 13 14
//	token: T VS AS V V A A A A V A  A  AE VE T
//
// T 0; both start tokens 1; the media start at 2: V (2,2,2) (4,2,2), A 2 3 4 5, V (6,2,2), A 6
// 7; both end tokens 8 (the last chunk's max 7 + 1); T 9. rope_delta = 10 − 15 = −5.
func TestQwen25OmniAudioInVideo(t *testing.T) {
	cfg := DefaultConfig(Qwen25Omni)
	cfg.PositionIDPerSeconds = 2
	row := ids(100, vs, as, vid, vid, aud, aud, aud, aud, vid, aud, aud, ae, ve, 101)
	in := Input{InputIDs: [][]int64{row}, VideoGridTHW: [][3]int64{{3, 2, 2}}, AudioSeqLens: []int64{23}, UseAudioInVideo: true}
	pos, deltas := mustOmni(t, cfg, in)
	hw := []int64{0, 1, 1, 2, 2, 2, 3, 4, 5, 2, 6, 7, 8, 8, 9}
	wantPositions(t, pos, 0, [3][]int64{{0, 1, 1, 2, 4, 2, 3, 4, 5, 6, 6, 7, 8, 8, 9}, hw, hw})
	if deltas[0] != -5 {
		t.Errorf("rope_delta %d, want -5", deltas[0])
	}
	// The same tokens in time order rather than chunk order are refused.
	bad := ids(100, vs, as, vid, aud, aud, vid, aud, aud, vid, aud, aud, ae, ve, 101)
	in.InputIDs = [][]int64{bad}
	if _, _, err := RoPEIndex(cfg, in); err == nil || !strings.Contains(err.Error(), "get_chunked_index") {
		t.Errorf("tokens out of chunk order: %v", err)
	}
}

// TestQwen25OmniLastPiece: after an interleaved video the end tokens follow the last piece
// placed (llm_pos_ids_list[-1].max() + 1), not the block's largest position.
//
// Video grid (1, 8, 8): 16 tokens at temporal 0, h and w 0..3; audio of 7 frames: 2 tokens.
// Both fall in chunk 0 (50 positions a chunk): 16 video tokens, then 2 audio tokens.
//
//	index: 0  1  2..17 18 19 20 21 22
//	token: VS AS V×16  A  A  AE VE T
//
// No text before: both start tokens 0; media from 1: video t 1, h 1..4, w 1..4; audio 1 2.
// The last piece is the audio (max 2): both end tokens 3, T 4, below the video's largest
// position 4 + 1. rope_delta = 5 − 23 = −18.
func TestQwen25OmniLastPiece(t *testing.T) {
	row := cat(ids(vs, as), rep(vid, 16), ids(aud, aud, ae, ve, 100))
	in := Input{InputIDs: [][]int64{row}, VideoGridTHW: [][3]int64{{1, 8, 8}}, AudioSeqLens: []int64{7}, UseAudioInVideo: true}
	pos, deltas := mustOmni(t, DefaultConfig(Qwen25Omni), in)
	wantPositions(t, pos, 0, [3][]int64{
		cat(ids(0, 0), rep(1, 16), ids(1, 2, 3, 3, 4)),
		cat(ids(0, 0), ids(1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4), ids(1, 2, 3, 3, 4)),
		cat(ids(0, 0), ids(1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4), ids(1, 2, 3, 3, 4)),
	})
	if deltas[0] != -18 {
		t.Errorf("rope_delta %d, want -18", deltas[0])
	}
}

// TestQwen25OmniTextBranch: with no image or video grid the input is text, audio included
// (the else branch: cumsum(mask) − 1, padding 1, rope_delta max + 1 − sum(mask)).
//
// PAD T AS A×3 AE T, audio of 13 frames (3 tokens): 1, 0..6; rope_delta 7 − 7 = 0, the
// talker's 0 − 1 = −1.
func TestQwen25OmniTextBranch(t *testing.T) {
	row := cat(ids(pad, 100, as), rep(aud, 3), ids(ae, 101))
	in := Input{InputIDs: [][]int64{row}, AttentionMask: [][]int64{cat(ids(0), rep(1, 7))}, AudioSeqLens: []int64{13}}
	for _, c := range []struct {
		cfg   Config
		delta int64
	}{{DefaultConfig(Qwen25Omni), 0}, {DefaultTalkerConfig(Qwen25Omni), -1}, {DefaultConfig(Qwen3Omni), 0}} {
		in := in
		if c.cfg.Kind == Qwen3Omni {
			in.AudioSeqLens = []int64{17} // 3 tokens
		}
		pos, deltas := mustOmni(t, c.cfg, in)
		p := []int64{1, 0, 1, 2, 3, 4, 5, 6}
		wantPositions(t, pos, 0, [3][]int64{p, p, p})
		if deltas[0] != c.delta {
			t.Errorf("%v talker %v: rope_delta %d, want %d", c.cfg.Kind, c.cfg.Talker, deltas[0], c.delta)
		}
	}
}

// TestQwen3Omni works the blocks of TestQwen25Omni's row through Qwen3-Omni's get_rope_index
// (modeling_qwen3_omni_moe.py Qwen3OmniMoePreTrainedModelForConditionalGeneration), with an
// audio of 17 frames (3 tokens under Qwen3-Omni's formula) and second_per_grid 0.4.
//
// The blocks are found by their start tokens; positions run as in Qwen2.5-Omni: T 0, VS 1,
// image at 2 (t 2, h 2 2 3 3, w 2 3 2 3), VE 4, T 5, AS 6, audio 7 8 9, AE 10, T 11, VS 12,
// video at 13: frame 1's temporal is float32(1) · float32(0.4) · 25 = 10.00000015 in float64
// but exactly 10 in float32, so 23; VE 24, T 25. rope_delta = 26 − 25 = 1.
func TestQwen3Omni(t *testing.T) {
	row := cat(ids(100, vs), rep(img, 4), ids(ve, 101, as), rep(aud, 3), ids(ae, 102, vs), rep(vid, 8), ids(ve, 103))
	in := Input{InputIDs: [][]int64{row}, ImageGridTHW: [][3]int64{{1, 4, 4}}, VideoGridTHW: [][3]int64{{2, 4, 4}},
		SecondPerGridT: []float64{0.4}, AudioSeqLens: []int64{17}}
	pos, deltas := mustOmni(t, DefaultConfig(Qwen3Omni), in)
	wantPositions(t, pos, 0, [3][]int64{
		{0, 1, 2, 2, 2, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 13, 13, 13, 23, 23, 23, 23, 24, 25},
		{0, 1, 2, 2, 3, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 13, 14, 14, 13, 13, 14, 14, 24, 25},
		{0, 1, 2, 3, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 13, 14, 13, 14, 13, 14, 24, 25},
	})
	if deltas[0] != 1 {
		t.Errorf("rope_delta %d, want 1", deltas[0])
	}
	// second_per_grid 0.5: 12.5, a float position in HF (vLLM truncates it); refused.
	in.SecondPerGridT = []float64{0.5}
	if _, _, err := RoPEIndex(DefaultConfig(Qwen3Omni), in); err == nil || !strings.Contains(err.Error(), "fractional") {
		t.Errorf("fractional temporal position: %v", err)
	}
}

// TestQwen3OmniAudioInVideo: Qwen3-Omni merges a video and its audio token by token in time,
// and numbers the two start and two end tokens one after another.
//
// Row 0 is two padding slots, then VS AS V A A A V AE VE T: video grid (2, 2, 2), one token
// per frame at temporal 0 and 25 (second_per_grid 1.0); audio of 17 frames, 3 tokens. Start
// tokens 0 1; media from 2: video (2,2,2) (27,2,2), audio 2 3 4. Merged: V(2) ≤ A(2) first,
// then A 2 3 4 (all before 27), then V(27). The last piece is that video token: end tokens 28
// 29, T 30. Padding takes 0 (torch.zeros). rope_delta = 31 − 10 = 21; the talker's 21 − 2 = 19.
// Row 1 is text.
func TestQwen3OmniAudioInVideo(t *testing.T) {
	row0 := ids(pad, pad, vs, as, vid, aud, aud, aud, vid, ae, ve, 100)
	row1 := rep(101, 12)
	in := Input{InputIDs: [][]int64{row0, row1}, AttentionMask: [][]int64{cat(ids(0, 0), rep(1, 10)), rep(1, 12)},
		VideoGridTHW: [][3]int64{{2, 2, 2}}, AudioSeqLens: []int64{17}, UseAudioInVideo: true}
	pos, deltas := mustOmni(t, DefaultConfig(Qwen3Omni), in)
	hw := []int64{0, 0, 0, 1, 2, 2, 3, 4, 2, 28, 29, 30}
	wantPositions(t, pos, 0, [3][]int64{{0, 0, 0, 1, 2, 2, 3, 4, 27, 28, 29, 30}, hw, hw})
	text := []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	wantPositions(t, pos, 1, [3][]int64{text, text, text})
	if want := []int64{21, 0}; !reflect.DeepEqual(deltas, want) {
		t.Fatalf("rope_deltas %v, want %v", deltas, want)
	}
	_, tdeltas := mustOmni(t, DefaultTalkerConfig(Qwen3Omni), Input{InputIDs: [][]int64{cat(row0[:3], ids(151669), row0[4:])}, AttentionMask: in.AttentionMask[:1],
		VideoGridTHW: in.VideoGridTHW, AudioSeqLens: in.AudioSeqLens, UseAudioInVideo: true})
	if tdeltas[0] != 19 {
		t.Errorf("talker rope_delta %d, want 19", tdeltas[0])
	}
	// Talker decode: cache position 12 continues at 31, the row's largest + 1.
	if p := DecodePosition(12, tdeltas[0]); p != 31 {
		t.Errorf("talker decode position %d, want 31", p)
	}
}

func TestOmniErrors(t *testing.T) {
	q25 := DefaultConfig(Qwen25Omni)
	audio := cat(ids(100, as), rep(aud, 3), ids(ae))
	video := cat(ids(vs), rep(vid, 4), ids(ve))
	aiv := cat(ids(vs, as), rep(vid, 4), rep(aud, 3), ids(ae, ve))
	for _, c := range []struct {
		name string
		cfg  Config
		in   Input
		want string
	}{
		{"audio count", q25, Input{InputIDs: [][]int64{audio}, AudioSeqLens: []int64{10}}, "3 audio tokens but audio_seqlens gives 2"},
		{"audio count, grids", q25, Input{InputIDs: [][]int64{cat(audio, video)}, VideoGridTHW: [][3]int64{{1, 4, 4}}, AudioSeqLens: []int64{10}}, "an audio of 2 tokens from token 2 is followed by one more"},
		{"audio missing", q25, Input{InputIDs: [][]int64{cat(audio, video)}, VideoGridTHW: [][3]int64{{1, 4, 4}}}, "needs audio_seqlens[0], but only 0"},
		{"audio unused", q25, Input{InputIDs: [][]int64{video}, VideoGridTHW: [][3]int64{{1, 4, 4}}, AudioSeqLens: []int64{13}}, "audio_seqlens has 1 audios but the input has 0"},
		{"no audio tokens", q25, Input{InputIDs: [][]int64{ids(1, 2)}, AudioSeqLens: []int64{1}}, "give 0 audio tokens"},
		{"negative audio", q25, Input{InputIDs: [][]int64{ids(1, 2)}, AudioSeqLens: []int64{-1}}, "want 0.."},
		{"audio on qwen2_vl", DefaultConfig(Qwen2VL), Input{InputIDs: [][]int64{ids(1, 2)}, AudioSeqLens: []int64{13}}, "qwen2_vl has no audio"},
		{"aiv flag missing", q25, Input{InputIDs: [][]int64{aiv}, VideoGridTHW: [][3]int64{{1, 4, 4}}, AudioSeqLens: []int64{13}}, "want use_audio_in_video"},
		{"aiv flag, plain video", q25, Input{InputIDs: [][]int64{video}, VideoGridTHW: [][3]int64{{1, 4, 4}}, UseAudioInVideo: true}, "has no audio (vision_start video)"},
		{"start token missing", q25, Input{InputIDs: [][]int64{cat(ids(1), rep(img, 4), ids(vs, img))}, ImageGridTHW: [][3]int64{{1, 4, 4}}}, "does not follow its start token"},
		{"video ends the row", DefaultConfig(Qwen3Omni), Input{InputIDs: [][]int64{cat(ids(vs), rep(vid, 4))}, VideoGridTHW: [][3]int64{{1, 4, 4}}}, "ends the row"},
		{"seconds length", q25, Input{InputIDs: [][]int64{video}, VideoGridTHW: [][3]int64{{1, 4, 4}}, SecondPerGridT: []float64{1, 2}}, "second_per_grid_ts has 2 values for 1 videos"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := RoPEIndex(c.cfg, c.in)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v: want it to contain %q", err, c.want)
			}
		})
	}
}

func TestOmniConfig(t *testing.T) {
	full := `{"model_type": "qwen2_5_omni",
	  "thinker_config": {"model_type": "qwen2_5_omni_thinker", "audio_token_index": 11, "image_token_index": 12,
	    "video_token_index": 13, "vision_start_token_id": 14, "audio_start_token_id": 15,
	    "position_id_per_seconds": 5, "seconds_per_chunk": 3, "vision_config": {"spatial_merge_size": 4}},
	  "talker_config": {"model_type": "qwen2_5_omni_talker", "audio_token_index": 21, "image_token_index": 22,
	    "video_token_index": 23, "vision_start_token_id": 24, "audio_start_token_id": 25, "spatial_merge_size": 2}}`
	got, err := ConfigFromJSON([]byte(full))
	want := Config{Kind: Qwen25Omni, ImageTokenID: 12, VideoTokenID: 13, VisionStartTokenID: 14, AudioTokenID: 11, AudioStartTokenID: 15,
		PositionIDPerSeconds: 5, SecondsPerChunk: 3, SpatialMergeSize: 4}
	if err != nil || got != want {
		t.Errorf("thinker: %+v, %v\nwant %+v", got, err, want)
	}
	got, err = ConfigFromJSONWith([]byte(full), ReadOptions{Talker: true})
	want = Config{Kind: Qwen25Omni, ImageTokenID: 22, VideoTokenID: 23, VisionStartTokenID: 24, AudioTokenID: 21, AudioStartTokenID: 25,
		PositionIDPerSeconds: 25, SecondsPerChunk: 2, SpatialMergeSize: 2, Talker: true}
	if err != nil || got != want {
		t.Errorf("talker: %+v, %v\nwant %+v", got, err, want)
	}
	// Qwen3-Omni: *_token_id keys, n_window from audio_config; the talker's own audio_start.
	got, err = ConfigFromJSON([]byte(`{"model_type": "qwen3_omni_moe", "thinker_config": {"position_id_per_seconds": 13, "audio_config": {"n_window": 40}}}`))
	want = DefaultConfig(Qwen3Omni)
	want.PositionIDPerSeconds, want.AudioNWindow = 13, 40
	if err != nil || got != want {
		t.Errorf("qwen3_omni_moe: %+v, %v\nwant %+v", got, err, want)
	}
	got, err = ConfigFromJSON([]byte(`{"model_type": "qwen3_omni_moe_talker"}`))
	if err != nil || got != DefaultTalkerConfig(Qwen3Omni) || got.AudioStartTokenID != 151669 {
		t.Errorf("qwen3_omni_moe_talker: %+v, %v", got, err)
	}
	for _, c := range []struct{ js, want string }{
		{`{"model_type": "qwen2_5_omni", "thinker_config": {"seconds_per_chunk": 0}}`, "seconds_per_chunk"},
		{`{"model_type": "qwen3_omni_moe", "thinker_config": {"audio_config": {"n_window": 0}}}`, "n_window 0"},
		{`{"model_type": "qwen2_5_omni", "thinker_config": {"audio_token_index": 151655}}`, "are both 151655"},
	} {
		if _, err := ConfigFromJSON([]byte(c.js)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.js, err, c.want)
		}
	}
	if _, err := ConfigFromJSONWith([]byte(`{"model_type": "qwen2_vl"}`), ReadOptions{Talker: true}); err == nil {
		t.Error("a qwen2_vl talker was accepted")
	}
}
