package multimodal

// ERNIE-4.5-VL's positions. HF main's Ernie4_5_VLMoeModel.get_rope_index
// (models/ernie4_5_vl_moe/modeling_ernie4_5_vl_moe.py) types tokens by the processor's
// mm_token_type_ids (image_token_id 1, video_token_id 2, the rest text) and lays each run of
// one type out as a grid: an image's (t, h/m, w/m), a video's (t/temporal_merge_size, h/m,
// w/m), position (i, j, k) + the run's start on the (t, h, w) axes; text counts on.
//
// After a grid HF main's rewrite continues at start + max(h/m, w/m); vLLM's
// Ernie4_5_VLMoeForConditionalGeneration.get_mrope_input_positions (ernie45_vl.py, Baidu's
// contribution) at the grid's largest position + 1, i.e. start + max(t', h/m, w/m). They
// differ only for a video of more merged steps than rows and columns, where HF main's text
// after the video reuses the video's positions; rotary follows the authors' code (vLLM).
// Padding and rope_delta follow HF main: masked slots 0, rope_delta = max + 1 − the row's
// unmasked length (a generated token's position is its index among the unmasked tokens +
// rope_delta). Without any grid HF main passes no position ids and the text model counts
// every slot, padding included: positions 0..S−1, rope_delta 0.

func ernieIndex(cfg Config, in Input, seq int, pos Positions3, deltas []int64) error {
	mask := in.AttentionMask
	if len(in.ImageGridTHW) == 0 && len(in.VideoGridTHW) == 0 {
		if err := noVisionTokens(cfg, in.InputIDs, mask); err != nil {
			return err
		}
		textPositions(nil, seq, pos, deltas)
		return nil
	}
	for i, g := range in.VideoGridTHW {
		if g[0]%cfg.TemporalMergeSize != 0 {
			return inputErr("video_grid_thw[%d] = %v: t must be a multiple of temporal_merge_size %d", i, g, cfg.TemporalMergeSize)
		}
	}
	image, video := 0, 0
	m := cfg.SpatialMergeSize
	for b, full := range in.InputIDs {
		var rm []int64
		if mask != nil {
			rm = mask[b]
		}
		ids, err := unmasked(b, full, rm)
		if err != nil {
			return err
		}
		var out rowPositions
		for a := range out {
			out[a] = make([]int64, 0, len(ids))
		}
		next := int64(0)
		for s := 0; s < len(ids); {
			e := s + 1
			for e < len(ids) && ids[e] == ids[s] {
				e++
			}
			n := int64(e - s)
			var g [3]int64
			var t int64
			switch ids[s] {
			case cfg.ImageTokenID:
				if image >= len(in.ImageGridTHW) {
					return inputErr("row %d: the image run at token %d needs image_grid_thw[%d], but only %d grids were given", b, s, image, len(in.ImageGridTHW))
				}
				g, t = in.ImageGridTHW[image], in.ImageGridTHW[image][0]
				image++
			case cfg.VideoTokenID:
				if video >= len(in.VideoGridTHW) {
					return inputErr("row %d: the video run at token %d needs video_grid_thw[%d], but only %d grids were given", b, s, video, len(in.VideoGridTHW))
				}
				g = in.VideoGridTHW[video]
				t = g[0] / cfg.TemporalMergeSize
				video++
			default:
				// Text runs are split wherever the token changes; they count on either way.
				out.text(int(n), next)
				next += n
				s = e
				continue
			}
			h, w := g[1]/m, g[2]/m
			if n != t*h*w {
				return inputErr("row %d: %d tokens %d from token %d, but their grid %v covers %d (t·h·w / spatial_merge_size², videos' t / temporal_merge_size)", b, n, ids[s], s, g, t*h*w)
			}
			out.grid(t, h, w, next)
			next += max(t, h, w)
			s = e
		}
		scatterRow(b, full, rm, out, pos, deltas)
		for s := range full {
			if rm != nil && rm[s] == 0 {
				for a := range pos {
					pos[a][b][s] = 0
				}
			}
		}
		deltas[b] += int64(len(full) - len(ids))
	}
	if image < len(in.ImageGridTHW) {
		return inputErr("image_grid_thw has %d grids but the input has %d image runs", len(in.ImageGridTHW), image)
	}
	if video < len(in.VideoGridTHW) {
		return inputErr("video_grid_thw has %d grids but the input has %d video runs", len(in.VideoGridTHW), video)
	}
	return nil
}
