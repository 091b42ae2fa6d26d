package multimodal

// HunYuan-VL's XD-RoPE positions: HF main's HunYuanVLModel.get_rope_index
// (models/hunyuan_vl/modeling_hunyuan_vl.py) and vLLM's
// HunYuanVLForConditionalGeneration.get_xdrope_input_positions (hunyuan_vision.py). Every axis
// holds the token's index among the row's unmasked tokens, except on an image's grid: a run
// of image_token_id of h/m·(w/m + 1) tokens (the merger appends a newline column to every
// row), or that many + 2 whose first and last keep their sequence positions, where the last
// three axes are the column (0..w/m), the row and the image's index. The first axis, when
// there are four, stays the sequence position.
//
// HF main counts the image index across the whole batch (image_index is never reset per
// row); vLLM counts per request, as the model was trained. rotary counts per row, so a batch
// gives each row the positions it gets alone. Padding 0; rope_delta = max + 1 − the unmasked
// length. Without any grid every axis is the sequence position, padding included (HF main
// passes no position ids).

func hunyuanIndex(cfg Config, in Input, seq int) (PositionsN, []int64, error) {
	axes := int(cfg.Axes)
	batch := len(in.InputIDs)
	pos := make(PositionsN, axes)
	for a := range pos {
		pos[a] = make([][]int64, batch)
		for b := range pos[a] {
			pos[a][b] = make([]int64, seq)
		}
	}
	deltas := make([]int64, batch)
	mask := in.AttentionMask
	if len(in.VideoGridTHW) > 0 {
		return nil, nil, inputErr("video_grid_thw: hunyuan_vl takes images only")
	}
	if len(in.ImageGridTHW) == 0 {
		// Only the image token: HunYuan-VL has no video token (its Config.VideoTokenID is 0,
		// which is the padding token).
		for b, row := range in.InputIDs {
			for s, id := range row {
				if (mask == nil || mask[b][s] == 1) && id == cfg.ImageTokenID {
					return nil, nil, inputErr("input_ids[%d][%d] is the image token %d but no image_grid_thw was given", b, s, id)
				}
			}
		}
		for a := range pos {
			for b := range pos[a] {
				for s := range pos[a][b] {
					pos[a][b][s] = int64(s)
				}
			}
		}
		return pos, deltas, nil
	}
	image := 0
	m := cfg.SpatialMergeSize
	for b, full := range in.InputIDs {
		var rm []int64
		if mask != nil {
			rm = mask[b]
		}
		ids, err := unmasked(b, full, rm)
		if err != nil {
			return nil, nil, err
		}
		row := make([][]int64, axes)
		for a := range row {
			row[a] = make([]int64, len(ids))
			for k := range row[a] {
				row[a][k] = int64(k)
			}
		}
		index := int64(0) // the image's index in this row
		for s := 0; s < len(ids); {
			e := s + 1
			for e < len(ids) && ids[e] == ids[s] {
				e++
			}
			if ids[s] != cfg.ImageTokenID {
				s = e
				continue
			}
			if image >= len(in.ImageGridTHW) {
				return nil, nil, inputErr("row %d: the image run at token %d needs image_grid_thw[%d], but only %d grids were given", b, s, image, len(in.ImageGridTHW))
			}
			g := in.ImageGridTHW[image]
			h, w := g[1]/m, g[2]/m
			n := h * (w + 1)
			start := s
			switch int64(e - s) {
			case n + 2:
				start = s + 1
			case n:
			default:
				return nil, nil, inputErr("row %d: %d image tokens from token %d, but image_grid_thw[%d] = %v needs h/m·(w/m + 1) = %d, or %d with its two extra tokens", b, e-s, s, image, g, n, n+2)
			}
			k := start
			for j := range h {
				for c := range w + 1 {
					row[axes-3][k] = c
					row[axes-2][k] = j
					row[axes-1][k] = index
					k++
				}
			}
			index++
			image++
			s = e
		}
		maxPos := int64(0)
		for a := range row {
			for _, p := range row[a] {
				maxPos = max(maxPos, p)
			}
		}
		k := 0
		for s := range full {
			if rm != nil && rm[s] == 0 {
				continue // 0, as torch.zeros left it
			}
			for a := range pos {
				pos[a][b][s] = row[a][k]
			}
			k++
		}
		deltas[b] = maxPos + 1 - int64(len(ids))
	}
	if image < len(in.ImageGridTHW) {
		return nil, nil, inputErr("image_grid_thw has %d grids but the input has %d image runs", len(in.ImageGridTHW), image)
	}
	return pos, deltas, nil
}
