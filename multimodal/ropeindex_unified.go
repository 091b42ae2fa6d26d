package multimodal

import (
	"math"
	"strconv"
)

// IndexVersion selects which version of the Qwen-VL families' get_rope_index Config.RopeIndex
// follows. The zero value is the reference: transformers v4.57's, which vLLM's
// get_mrope_input_positions also follows.
type IndexVersion uint8

const (
	// IndexV457 is transformers v4.57's get_rope_index (Qwen2VLModel, Qwen2_5_VLModel and
	// Qwen3VLModel.get_rope_index): the text after a vision block starts one past the block's
	// largest position on any axis, padded slots hold 1, and rope_delta is taken over the
	// row's padded length. vLLM's Qwen2VLForConditionalGeneration and
	// Qwen2_5_VLForConditionalGeneration.get_mrope_input_positions agree (st_idx =
	// llm_pos_ids_list[-1].max() + 1).
	IndexV457 IndexVersion = iota
	// IndexUnified is transformers main's get_rope_index after "Unify 3D position ids"
	// (PR #43972, commit c281a2de): blocks are runs of image or video tokens (mm_token_type_ids),
	// the text after a block starts max(h, w) / spatial_merge_size past the block's start
	// whatever its temporal extent (a video's later frames overlap the text that follows it),
	// padded slots hold 0, and rope_delta is taken over the row's unpadded length. Qwen2.5-VL's
	// temporal step is tokens_per_second · int(second_per_grid_t). A prompt without any grid
	// takes GenerationMixin._prepare_position_ids_for_generation's text positions with
	// rope_deltas 0. Only the Qwen2-VL, Qwen2.5-VL, Qwen3-VL and Qwen3.5 rules were read in
	// that version; the other families keep their own.
	IndexUnified
	indexVersionEnd
)

func (v IndexVersion) String() string {
	switch v {
	case IndexV457:
		return "v4.57"
	case IndexUnified:
		return "unified"
	}
	return "IndexVersion(" + strconv.Itoa(int(v)) + ")"
}

// IndexVersionOf is the version a dialect's reading of hf.RuleRopeIndex names (its
// Reading.Choice): "unified" is IndexUnified, any other IndexV457.
func IndexVersionOf(choice string) IndexVersion {
	if choice == IndexUnified.String() {
		return IndexUnified
	}
	return IndexV457
}

// unifiedApplies says whether cfg's positions follow IndexUnified's rules: the version asks for
// them and the family is one whose rewritten get_rope_index was read.
func unifiedApplies(cfg Config) bool {
	switch cfg.Kind {
	case Qwen2VL, Qwen25VL, Qwen3VL, Qwen35:
		return cfg.RopeIndex == IndexUnified
	}
	return false
}

// unifiedIndex is transformers main's get_rope_index for the Qwen-VL families (IndexUnified),
// called with positions allocated and the input checked.
func unifiedIndex(cfg Config, in Input, seq int, pos Positions3, deltas []int64) error {
	if len(in.ImageGridTHW) == 0 && len(in.VideoGridTHW) == 0 {
		if err := noVisionTokens(cfg, in.InputIDs, in.AttentionMask); err != nil {
			return err
		}
		// Qwen2VLForConditionalGeneration._prepare_position_ids_for_generation without grids:
		// GenerationMixin's cumsum(attention_mask) − 1 with padding filled with 0, and
		// rope_deltas zeros.
		for b := range in.InputIDs {
			var count int64
			for s := range seq {
				p := int64(s)
				if in.AttentionMask != nil {
					count += in.AttentionMask[b][s]
					p = count - 1
					if in.AttentionMask[b][s] == 0 {
						p = 0
					}
				}
				for a := range pos {
					pos[a][b][s] = p
				}
			}
		}
		return nil
	}
	if cfg.Kind == Qwen25VL && len(in.VideoGridTHW) > 0 && (cfg.TokensPerSecond != math.Trunc(cfg.TokensPerSecond) || cfg.TokensPerSecond > maxPosition) {
		// tokens_per_second · int(second) is then a float and torch.meshgrid refuses a float
		// temporal range beside the integer height and width ranges.
		return inputErr("tokens_per_second %v: transformers main's get_rope_index needs an integer (at most 2^53) for videos", cfg.TokensPerSecond)
	}
	videos := in.VideoGridTHW
	if splitsFrames(cfg.Kind) {
		tokens, _ := mul64(int64(len(in.InputIDs)), int64(seq))
		var err error
		if videos, err = videoFrames(in.VideoGridTHW, tokens); err != nil {
			return err
		}
	}
	st := &unifiedState{cfg: cfg, images: in.ImageGridTHW, videos: videos, seconds: in.SecondPerGridT}
	for b, full := range in.InputIDs {
		var mask []int64
		if in.AttentionMask != nil {
			mask = in.AttentionMask[b]
		}
		ids, err := unmasked(b, full, mask)
		if err != nil {
			return err
		}
		out, err := st.row(b, ids)
		if err != nil {
			return err
		}
		maxPos := int64(math.MinInt64)
		k := 0
		for s := range full {
			if mask != nil && mask[s] == 0 {
				continue // torch.zeros' fill
			}
			for a := range pos {
				pos[a][b][s] = out[a][k]
				maxPos = max(maxPos, out[a][k])
			}
			k++
		}
		// llm_positions.max() + 1 − len(current_input_ids), the unmasked ids.
		deltas[b] = maxPos + 1 - int64(len(ids))
	}
	if st.image < len(st.images) {
		return inputErr("image_grid_thw has %d grids but the input has %d runs of image tokens", len(st.images), st.image)
	}
	if st.video < len(st.videos) {
		return inputErr("video_grid_thw has %d %s but the input has %d runs of video tokens", len(st.videos), videoUnitOf(cfg.Kind), st.video)
	}
	return tokenCounts(cfg, in.InputIDs, in.AttentionMask, in.ImageGridTHW, in.VideoGridTHW)
}

func videoUnitOf(k Kind) string {
	if splitsFrames(k) {
		return "frames (grid t summed)"
	}
	return "grids"
}

// unifiedState is what the rewritten loop carries across rows: grid_iters and Qwen2.5-VL's
// second_per_grid_ts iterator.
type unifiedState struct {
	cfg            Config
	images, videos [][3]int64
	seconds        []float64
	image, video   int
}

// row lays out one row's unmasked ids: itertools.groupby over mm_token_type_ids (0 text, 1 the
// image token, 2 the video token), a running current_pos.
func (st *unifiedState) row(b int, ids []int64) (rowPositions, error) {
	var out rowPositions
	for a := range out {
		out[a] = make([]int64, 0, len(ids))
	}
	cfg := st.cfg
	var current int64
	for start := 0; start < len(ids); {
		end := start + 1
		for end < len(ids) && ids[end] == ids[start] {
			end++
		}
		tok := ids[start]
		if tok != cfg.ImageTokenID && tok != cfg.VideoTokenID {
			for end < len(ids) && ids[end] != cfg.ImageTokenID && ids[end] != cfg.VideoTokenID {
				end++
			}
			out.text(end-start, current)
			current += int64(end - start)
			start = end
			continue
		}
		var grid [3]int64
		interval := int64(1)
		isImage := tok == cfg.ImageTokenID
		if isImage {
			if st.image >= len(st.images) {
				return rowPositions{}, inputErr("row %d: a run of image tokens at token %d needs image_grid_thw[%d], but only %d grids were given", b, start, st.image, len(st.images))
			}
			grid = st.images[st.image]
			st.image++
		} else {
			if st.video >= len(st.videos) {
				return rowPositions{}, inputErr("row %d: a run of video tokens at token %d needs video grid %d, but only %d %s were given", b, start, st.video, len(st.videos), videoUnitOf(cfg.Kind))
			}
			grid = st.videos[st.video]
			if cfg.Kind == Qwen25VL {
				// time_interval = tokens_per_second · int(next(second_per_grid_ts)), 1 when
				// not given; the processor's seconds are a float32 tensor, so int() truncates
				// the float32 value.
				second := int64(1)
				if st.seconds != nil {
					s := float32(st.seconds[st.video])
					if !(s <= maxPosition) {
						return rowPositions{}, inputErr("second_per_grid_ts[%d] %v: want at most 2^53", st.video, st.seconds[st.video])
					}
					second = int64(s)
				}
				var ok bool
				if interval, ok = mul64(int64(cfg.TokensPerSecond), second); !ok || interval > maxPosition {
					return rowPositions{}, inputErr("video %d: tokens_per_second %v × second_per_grid_t %d: want at most 2^53", st.video, cfg.TokensPerSecond, second)
				}
			}
			st.video++
		}
		m := cfg.SpatialMergeSize
		t, h, w := grid[0], grid[1]/m, grid[2]/m
		if n := t * h * w; n != int64(end-start) {
			// HF's scatter of llm_positions into the row's unmasked slots fails on the shapes
			// (or, with a second run off the other way, misplaces every later position).
			return rowPositions{}, inputErr("row %d: %s grid %v needs %d %s tokens, the run at token %d has %d", b, tokenName(cfg, tok), grid, n, tokenName(cfg, tok), start, end-start)
		}
		if t > 1 && interval > 0 && (t-1 > (maxPosition-current)/interval) {
			return rowPositions{}, inputErr("row %d: video grid %v × time interval %d puts its temporal position past 2^53", b, grid, interval)
		}
		// get_vision_position_ids: t·time_interval, h and w, each offset by current_pos.
		for ti := range t {
			for hi := range h {
				for wi := range w {
					out[0] = append(out[0], ti*interval+current)
					out[1] = append(out[1], hi+current)
					out[2] = append(out[2], wi+current)
				}
			}
		}
		current += max(h, w)
		start = end
	}
	return out, nil
}
