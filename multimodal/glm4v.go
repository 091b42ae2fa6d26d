package multimodal

// GLM-4V's get_rope_index (transformers v4.57 models/glm4v/modeling_glm4v.py
// Glm4vModel.get_rope_index; Glm4vMoeModel and Glm46VModel share it). It differs from Qwen's:
//
//   - There is no vision_start marker. Each unmasked token is typed: image_token_id between a
//     video_start_token_id and the next video_end_token_id is "video", elsewhere "image",
//     every other token "text". Runs of one type (itertools.groupby) are the blocks.
//   - Every block starts at st_idx = the largest position of the block before + 1 (0 first).
//   - An image run takes the next image_grid_thw (t, h, w): (i, j, k) + st_idx over the
//     t × h/m × w/m grid, t-major.
//   - A video run is one frame of the current video_grid_thw: (0, j, k) + st_idx over h/m × w/m
//     (video_frame_num is always 1 there: it is reset by every text or image run, and two
//     video runs always have one between them). After t frames the next video starts.
//     Frames are separated by timestamp text, which advances the temporal position.
//
// HF builds positions for whatever the runs hold and fails later when the features do not
// match; glm4vIndex refuses a run whose length is not its grid's token count.

// glm4vState carries the grids consumed across rows, as HF's image_index, video_index and
// video_group_index do.
type glm4vState struct {
	cfg          Config
	images       [][3]int64
	videos       [][3]int64
	image, video int
	frame        int64 // frames of videos[video] already placed
	framesPlaced int64
}

func glm4vIndex(cfg Config, inputIDs, mask [][]int64, images, videos [][3]int64, seq int, pos Positions3, deltas []int64) error {
	if len(images) == 0 && len(videos) == 0 {
		for b, row := range inputIDs {
			for s, id := range row {
				if (mask == nil || mask[b][s] == 1) && id == cfg.ImageTokenID {
					return inputErr("input_ids[%d][%d] is the image token %d but no image_grid_thw or video_grid_thw was given", b, s, id)
				}
			}
		}
		textPositions(mask, seq, pos, deltas)
		return nil
	}
	st := &glm4vState{cfg: cfg, images: images, videos: videos}
	for b, full := range inputIDs {
		var m []int64
		if mask != nil {
			m = mask[b]
		}
		ids, err := unmasked(b, full, m)
		if err != nil {
			return err
		}
		out, err := st.row(b, ids)
		if err != nil {
			return err
		}
		scatterRow(b, full, m, out, pos, deltas)
	}
	if st.image < len(images) {
		return inputErr("image_grid_thw has %d grids but the input has %d image runs (image tokens outside video_start..video_end)", len(images), st.image)
	}
	if st.video < len(videos) {
		var frames int64
		for _, g := range videos {
			frames += g[0]
		}
		return inputErr("video_grid_thw has %d videos of %d frames (grid t summed) but the input has %d frame runs (image tokens inside video_start..video_end)", len(videos), frames, st.framesPlaced)
	}
	return nil
}

// glm4v token types.
const (
	glmText = iota
	glmImage
	glmVideo
)

// row lays out one row's unmasked tokens.
func (st *glm4vState) row(b int, ids []int64) (rowPositions, error) {
	cfg := st.cfg
	types := make([]uint8, len(ids))
	inVideo := false
	for s, id := range ids {
		switch id {
		case cfg.VideoStartTokenID:
			inVideo = true
		case cfg.VideoEndTokenID:
			inVideo = false
		case cfg.ImageTokenID:
			types[s] = glmImage
			if inVideo {
				types[s] = glmVideo
			}
		}
	}
	var out rowPositions
	for a := range out {
		out[a] = make([]int64, 0, len(ids))
	}
	next := int64(0) // st_idx: the largest position so far + 1
	m := cfg.SpatialMergeSize
	for s := 0; s < len(ids); {
		e := s + 1
		for e < len(ids) && types[e] == types[s] {
			e++
		}
		n := int64(e - s)
		switch types[s] {
		case glmText:
			out.text(int(n), next)
			next += n
		case glmImage:
			if st.image >= len(st.images) {
				return rowPositions{}, inputErr("row %d: the image run at token %d needs image_grid_thw[%d], but only %d grids were given", b, s, st.image, len(st.images))
			}
			g := st.images[st.image]
			t, h, w := g[0], g[1]/m, g[2]/m
			if n != t*h*w {
				return rowPositions{}, inputErr("row %d: %d image tokens from token %d, but image_grid_thw[%d] = %v covers %d (t·h·w / spatial_merge_size²)", b, n, s, st.image, g, t*h*w)
			}
			out.grid(t, h, w, next)
			next += max(t, h, w)
			st.image++
		case glmVideo:
			if st.video >= len(st.videos) {
				return rowPositions{}, inputErr("row %d: the video frame run at token %d has no video left in video_grid_thw (%d videos, %d frames placed)", b, s, len(st.videos), st.framesPlaced)
			}
			g := st.videos[st.video]
			h, w := g[1]/m, g[2]/m
			if n != h*w {
				return rowPositions{}, inputErr("row %d: %d video tokens from token %d, but a frame of video_grid_thw[%d] = %v covers %d (h·w / spatial_merge_size²)", b, n, s, st.video, g, h*w)
			}
			out.grid(1, h, w, next)
			next += max(h, w)
			st.framesPlaced++
			if st.frame++; st.frame >= g[0] {
				st.video++
				st.frame = 0
			}
		}
		s = e
	}
	return out, nil
}

// grid appends the positions of a t × h × w grid, t-major, offset by base on every axis.
func (out *rowPositions) grid(t, h, w, base int64) {
	for i := range t {
		for j := range h {
			for k := range w {
				out[0] = append(out[0], i+base)
				out[1] = append(out[1], j+base)
				out[2] = append(out[2], k+base)
			}
		}
	}
}
