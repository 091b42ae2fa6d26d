package multimodal

import (
	"errors"
	"math"

	"github.com/rotary-go/rotary/internal/errs"
)

// ErrInput is wrapped by every error GetRoPEIndex returns for bad input.
var ErrInput = errors.New("multimodal input")

func inputErr(format string, args ...any) error {
	return errs.Wrapf(ErrInput, format, args...)
}

// maxGridDim bounds each grid_thw value so that t·h·w cannot overflow; real grids are
// below 10^4.
const maxGridDim = 1 << 20

// maxPosition bounds the positions of vision tokens. Qwen2.5-VL's temporal positions scale with
// second_per_grid_ts and tokens_per_second, which only need to be finite. The rotary angles
// take float64(position), exact only below 2^53, and with every block below it the offsets of
// later blocks stay far from int64's end.
const maxPosition = 1 << 53

// maxDecodePositions bounds batch × n in DecodePositions: a decode step adds a few tokens per
// row, and 2^26 per axis is already 1.5 GiB for the three axes.
const maxDecodePositions = 1 << 26

// mul64 is a·b for a, b ≥ 0; ok is false past math.MaxInt64. Grid sizes and counts come from
// callers, so they are multiplied only once dividing shows the product fits.
func mul64(a, b int64) (int64, bool) {
	if a != 0 && b > math.MaxInt64/a {
		return 0, false
	}
	return a * b, true
}

// Positions3 is get_rope_index's position_ids: [axis][batch][seq], axis 0 temporal, 1
// height, 2 width.
type Positions3 = [3][][]int64

// GetRoPEIndex computes the 3-axis MRoPE positions of a prefill batch and the per-row
// rope_deltas, as the get_rope_index of the model family cfg.Kind does (Qwen2VLModel,
// Qwen2_5_VLModel and Qwen3VLModel.get_rope_index in transformers v4.5x, and the other
// families' as the package documentation says). It is RoPEIndex without audio inputs; the
// rules below are the Qwen-VL families'.
//
// inputIDs is [batch][seq]; attentionMask is nil (all ones) or [batch][seq] of 0 and 1;
// imageGridTHW and videoGridTHW list the (t, h, w) patch grids of the batch's images and
// videos in the order their tokens appear, row after row; secondPerGridT (Qwen2.5-VL only;
// ignored by the other kinds, as HF's are) is nil (1.0 per video) or one value per video.
//
// Rows whose tokens hold no image or video still get positions through the multimodal
// rules when any grid is given, as in HF. With no grids at all the input is text: every
// axis is the running count of unmasked tokens.
//
// GetRoPEIndex returns an error, never panics, for: ragged rows, mask values other than 0
// and 1, negative token ids, negative, zero or non-divisible grid values, a vision_start
// token with nothing after it, more vision blocks than grids (or fewer), a block whose
// grid needs more image/video tokens than follow, image/video tokens outside every block or
// with no grid at all (HF's forward pass rejects both: "Image features and image tokens do
// not match"), and a second_per_grid_ts list of the wrong length.
func GetRoPEIndex(cfg Config, inputIDs, attentionMask [][]int64, imageGridTHW, videoGridTHW [][3]int64, secondPerGridT []float64) (positions Positions3, ropeDeltas []int64, err error) {
	return RoPEIndex(cfg, Input{InputIDs: inputIDs, AttentionMask: attentionMask, ImageGridTHW: imageGridTHW, VideoGridTHW: videoGridTHW, SecondPerGridT: secondPerGridT})
}

// RoPEIndex is GetRoPEIndex with every input get_rope_index takes, the Omni families' audio
// included (AudioSeqLens, UseAudioInVideo; see the package documentation for their rules).
// It refuses audio inputs for a family without audio, audio_seqlens whose audio tokens do not
// match the input's, and a use_audio_in_video that does not match how the videos are laid out.
func RoPEIndex(cfg Config, in Input) (positions Positions3, ropeDeltas []int64, err error) {
	inputIDs, attentionMask, imageGridTHW, videoGridTHW, secondPerGridT := in.InputIDs, in.AttentionMask, in.ImageGridTHW, in.VideoGridTHW, in.SecondPerGridT
	seq, err := checkInput(cfg, in)
	if err != nil {
		return Positions3{}, nil, err
	}
	if cfg.Kind == HunYuanVL {
		if cfg.Axes != 3 {
			return Positions3{}, nil, inputErr("hunyuan_vl with %d position axes: want RoPEIndexN (RoPEIndex returns three)", cfg.Axes)
		}
		pos, deltas, err := RoPEIndexN(cfg, in)
		if err != nil {
			return Positions3{}, nil, err
		}
		return Positions3{pos[0], pos[1], pos[2]}, deltas, nil
	}
	batch := len(inputIDs)
	for a := range positions {
		positions[a] = make([][]int64, batch)
		for b := range positions[a] {
			positions[a][b] = make([]int64, seq)
		}
	}
	ropeDeltas = make([]int64, batch)
	if unifiedApplies(cfg) {
		if err := unifiedIndex(cfg, in, seq, positions, ropeDeltas); err != nil {
			return Positions3{}, nil, err
		}
		return positions, ropeDeltas, nil
	}
	if isOmni(cfg.Kind) {
		if err := omniIndex(cfg, in, seq, positions, ropeDeltas); err != nil {
			return Positions3{}, nil, err
		}
		return positions, ropeDeltas, nil
	}
	if cfg.Kind == Ernie45VL {
		if err := ernieIndex(cfg, in, seq, positions, ropeDeltas); err != nil {
			return Positions3{}, nil, err
		}
		return positions, ropeDeltas, nil
	}
	if cfg.Kind == GLM4V {
		if err := glm4vIndex(cfg, inputIDs, attentionMask, imageGridTHW, videoGridTHW, seq, positions, ropeDeltas); err != nil {
			return Positions3{}, nil, err
		}
		return positions, ropeDeltas, nil
	}

	if len(imageGridTHW) == 0 && len(videoGridTHW) == 0 {
		if err := noVisionTokens(cfg, inputIDs, attentionMask); err != nil {
			return Positions3{}, nil, err
		}
		textPositions(attentionMask, seq, positions, ropeDeltas)
		return positions, ropeDeltas, nil
	}

	videos := videoGridTHW
	var seconds []float64
	if cfg.Kind == Qwen25VL {
		seconds = secondPerGridT
	}
	if splitsFrames(cfg.Kind) {
		tokens, _ := mul64(int64(batch), int64(seq))
		if videos, err = videoFrames(videoGridTHW, tokens); err != nil {
			return Positions3{}, nil, err
		}
	}
	st := &indexState{cfg: cfg, images: imageGridTHW, videos: videos, seconds: seconds}
	for b, row := range inputIDs {
		var mask []int64
		if attentionMask != nil {
			mask = attentionMask[b]
		}
		if err := st.row(b, row, mask, positions, ropeDeltas); err != nil {
			return Positions3{}, nil, err
		}
	}
	// HF's forward pass requires as many image (video) features as image (video) tokens:
	// a grid no block consumed is a mismatch, even though get_rope_index alone ignores it.
	if st.image < len(st.images) {
		return Positions3{}, nil, inputErr("image_grid_thw has %d grids but the input has %d image blocks (vision_start followed by image_token_id)", len(st.images), st.image)
	}
	if st.video < len(st.videos) {
		return Positions3{}, nil, inputErr("video_grid_thw has %d %s but the input has %d video blocks (vision_start followed by video_token_id)", len(st.videos), st.videoUnit(), st.video)
	}
	if err := tokenCounts(cfg, inputIDs, attentionMask, imageGridTHW, videoGridTHW); err != nil {
		return Positions3{}, nil, err
	}
	return positions, ropeDeltas, nil
}

// checkInput checks what every family reads: the config, the rows and mask, the grids, the
// seconds per grid step and the audio inputs' presence. It returns the row length.
func checkInput(cfg Config, in Input) (int, error) {
	if err := cfg.Validate(); err != nil {
		return 0, err
	}
	seq, err := checkRows(in.InputIDs, in.AttentionMask)
	if err != nil {
		return 0, err
	}
	if err := checkGrids("image_grid_thw", in.ImageGridTHW, cfg.SpatialMergeSize); err != nil {
		return 0, err
	}
	if err := checkGrids("video_grid_thw", in.VideoGridTHW, cfg.SpatialMergeSize); err != nil {
		return 0, err
	}
	if !isOmni(cfg.Kind) && (in.AudioSeqLens != nil || in.UseAudioInVideo) {
		return 0, inputErr("audio_seqlens / use_audio_in_video: %v has no audio (only the Omni families do)", cfg.Kind)
	}
	if (cfg.Kind == Qwen25VL || isOmni(cfg.Kind)) && in.SecondPerGridT != nil {
		if err := checkSeconds(in.SecondPerGridT, len(in.VideoGridTHW)); err != nil {
			return 0, err
		}
	}
	return seq, nil
}

// PositionsN are position ids of any number of axes: [axis][batch][seq].
type PositionsN = [][][]int64

// RoPEIndexN is RoPEIndex for every family, whatever its number of position axes: three for
// all but HunYuan-VL, whose XD-RoPE has Config.Axes (four: sequence, width, height, image).
func RoPEIndexN(cfg Config, in Input) (PositionsN, []int64, error) {
	if cfg.Kind != HunYuanVL {
		pos, deltas, err := RoPEIndex(cfg, in)
		if err != nil {
			return nil, nil, err
		}
		return PositionsN{pos[0], pos[1], pos[2]}, deltas, nil
	}
	seq, err := checkInput(cfg, in)
	if err != nil {
		return nil, nil, err
	}
	return hunyuanIndex(cfg, in, seq)
}

// FlattenN returns pos as one slice, axis-major then row-major: an I64 [axes, batch, seq]
// tensor's layout.
func FlattenN(pos PositionsN) []int64 {
	var out []int64
	for _, axis := range pos {
		for _, row := range axis {
			out = append(out, row...)
		}
	}
	return out
}

// checkSeconds checks Qwen2.5-VL's second_per_grid_ts: one finite value ≥ 0 per video.
func checkSeconds(secondPerGridT []float64, videos int) error {
	if len(secondPerGridT) != videos {
		return inputErr("second_per_grid_ts has %d values for %d videos: want one per video", len(secondPerGridT), videos)
	}
	for i, s := range secondPerGridT {
		if s < 0 || math.IsNaN(s) || math.IsInf(s, 0) {
			return inputErr("second_per_grid_ts[%d] %v: want a finite number ≥ 0", i, s)
		}
	}
	return nil
}

// videoFrames is Qwen3-VL's split of video_grid_thw: "we use timestamps to separate videos,
// like <t1> <vision_start> <frame1> <vision_end> <t2> <vision_start> <frame2> <vision_end>,
// the video_grid_thw should also be split": each video row (t, h, w) becomes t rows (1, h, w)
// (Qwen3VLModel.get_rope_index: repeat_interleave then grid[:, 0] = 1). Every frame needs at
// least one of the input's tokens, which bounds the expansion.
func videoFrames(videoGridTHW [][3]int64, tokens int64) ([][3]int64, error) {
	var frames int64
	for _, g := range videoGridTHW {
		frames += g[0]
	}
	if frames > tokens {
		return nil, inputErr("video_grid_thw has %d frames but the input has only %d tokens", frames, tokens)
	}
	videos := make([][3]int64, 0, frames)
	for _, g := range videoGridTHW {
		for range g[0] {
			videos = append(videos, [3]int64{1, g[1], g[2]})
		}
	}
	return videos, nil
}

// tokenCounts is the check of HF's forward pass ("Image features and image tokens do not
// match"): the unmasked image (video) tokens must be as many as the grids' merged patches,
// Σ t·(h/m)·(w/m). Blocks that matched their grids can still leave stray tokens outside.
func tokenCounts(cfg Config, inputIDs, mask [][]int64, images, videos [][3]int64) error {
	var nImage, nVideo int64
	for b, row := range inputIDs {
		for s, id := range row {
			if mask != nil && mask[b][s] == 0 {
				continue
			}
			switch id {
			case cfg.ImageTokenID:
				nImage++
			case cfg.VideoTokenID:
				nVideo++
			}
		}
	}
	m := cfg.SpatialMergeSize
	for _, c := range []struct {
		name, grid string
		n          int64
		grids      [][3]int64
	}{{"image", "image_grid_thw", nImage, images}, {"video", "video_grid_thw", nVideo, videos}} {
		var want int64
		for _, g := range c.grids {
			want += g[0] * (g[1] / m) * (g[2] / m)
		}
		if c.n != want {
			return inputErr("the input has %d %s tokens but %s covers %d (t·h·w / spatial_merge_size² summed)", c.n, c.name, c.grid, want)
		}
	}
	return nil
}

func checkRows(inputIDs, mask [][]int64) (int, error) {
	seq := 0
	if len(inputIDs) > 0 {
		seq = len(inputIDs[0])
	}
	for b, row := range inputIDs {
		if len(row) != seq {
			return 0, inputErr("input_ids row %d has %d tokens, row 0 has %d: want equal-length rows", b, len(row), seq)
		}
		for s, id := range row {
			if id < 0 {
				return 0, inputErr("input_ids[%d][%d] = %d: want a token id ≥ 0", b, s, id)
			}
		}
	}
	if mask == nil {
		return seq, nil
	}
	if len(mask) != len(inputIDs) {
		return 0, inputErr("attention_mask has %d rows, input_ids %d: want the same shape", len(mask), len(inputIDs))
	}
	for b, row := range mask {
		if len(row) != seq {
			return 0, inputErr("attention_mask row %d has %d values, input_ids rows %d: want the same shape", b, len(row), seq)
		}
		for s, v := range row {
			if v != 0 && v != 1 {
				return 0, inputErr("attention_mask[%d][%d] = %d: want 0 or 1", b, s, v)
			}
		}
	}
	return seq, nil
}

func checkGrids(name string, grids [][3]int64, merge int64) error {
	for i, g := range grids {
		for k, v := range g {
			if v < 1 || v > maxGridDim {
				return inputErr("%s[%d] = %v: %c %d: want 1..%d", name, i, g, "thw"[k], v, maxGridDim)
			}
		}
		// HF floors h // spatial_merge_size; a grid the merger cannot tile is a
		// preprocessing bug (the vision tower's view(..., h // m, m, ...) fails on it).
		if g[1]%merge != 0 || g[2]%merge != 0 {
			return inputErr("%s[%d] = %v: h and w must be multiples of spatial_merge_size %d", name, i, g, merge)
		}
	}
	return nil
}

// noVisionTokens rejects image or video tokens when no grid is given: HF would embed them
// as text, which is never what the caller meant.
func noVisionTokens(cfg Config, inputIDs, mask [][]int64) error {
	for b, row := range inputIDs {
		for s, id := range row {
			if mask != nil && mask[b][s] == 0 {
				continue
			}
			if id == cfg.ImageTokenID || id == cfg.VideoTokenID {
				return inputErr("input_ids[%d][%d] is the %s token %d but no image_grid_thw or video_grid_thw was given", b, s, tokenName(cfg, id), id)
			}
		}
	}
	return nil
}

func tokenName(cfg Config, id int64) string {
	if id == cfg.ImageTokenID {
		return "image"
	}
	return "video"
}

// textPositions is get_rope_index's text-only branch (all three Qwen families): with a mask,
// position = cumsum(mask) − 1 with masked slots set to 1, and rope_delta = max over the row
// (masked slots included) + 1 − seq; without one, arange(seq) and rope_delta 0.
func textPositions(mask [][]int64, seq int, pos Positions3, deltas []int64) {
	for b := range pos[0] {
		if mask == nil {
			for s := range seq {
				for a := range pos {
					pos[a][b][s] = int64(s)
				}
			}
			continue
		}
		var count, maxPos int64
		for s := range seq {
			count += mask[b][s]
			p := count - 1
			if mask[b][s] == 0 {
				p = 1
			}
			for a := range pos {
				pos[a][b][s] = p
			}
			if s == 0 || p > maxPos {
				maxPos = p
			}
		}
		if seq > 0 {
			deltas[b] = maxPos + 1 - int64(seq)
		}
	}
}

// indexState carries what HF's loop carries across rows: the next image and video grid.
type indexState struct {
	cfg     Config
	images  [][3]int64
	videos  [][3]int64 // Qwen3-VL: split into single frames
	seconds []float64  // Qwen2.5-VL second_per_grid_ts; nil means 1.0 each
	image   int
	video   int
}

func (st *indexState) videoUnit() string {
	if splitsFrames(st.cfg.Kind) {
		return "frames (grid t summed)"
	}
	return "grids"
}

// row computes one batch row: HF's loop body over input_ids[attention_mask[i] == 1].
func (st *indexState) row(b int, full, mask []int64, pos Positions3, deltas []int64) error {
	ids, err := unmasked(b, full, mask)
	if err != nil {
		return err
	}
	blocks, err := st.countBlocks(b, ids)
	if err != nil {
		return err
	}
	out, err := st.positions(b, ids, blocks)
	if err != nil {
		return err
	}
	scatterRow(b, full, mask, out, pos, deltas)
	return nil
}

// unmasked is input_ids[i][attention_mask[i] == 1]; a row with none is an error (HF:
// torch.cat of an empty list raises).
func unmasked(b int, full, mask []int64) ([]int64, error) {
	ids := full
	if mask != nil {
		ids = make([]int64, 0, len(full))
		for s, id := range full {
			if mask[s] == 1 {
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		return nil, inputErr("row %d has no unmasked tokens", b)
	}
	return ids, nil
}

// scatterRow writes row b's positions out, computed over its unmasked tokens, back to the
// unmasked slots; masked slots keep HF's torch.ones fill. Its rope_delta is
// mrope_position_deltas' llm_positions.max() + 1 − len(total_input_ids[i]), the row's padded
// length.
func scatterRow(b int, full, mask []int64, out rowPositions, pos Positions3, deltas []int64) {
	maxPos := int64(math.MinInt64)
	for a := range out {
		for _, p := range out[a] {
			maxPos = max(maxPos, p)
		}
	}
	k := 0
	for s := range full {
		if mask != nil && mask[s] == 0 {
			for a := range pos {
				pos[a][b][s] = 1
			}
			continue
		}
		for a := range pos {
			pos[a][b][s] = out[a][k]
		}
		k++
	}
	deltas[b] = maxPos + 1 - int64(len(full))
}

// blockCounts are a row's image_nums and video_nums, and how many of each are still to place.
type blockCounts struct {
	images, videos             int
	remainImages, remainVideos int
}

// countBlocks counts image_nums / video_nums: vision_start tokens whose next token is an
// image / video token (input_ids[vision_start_indices + 1]).
func (st *indexState) countBlocks(b int, ids []int64) (blockCounts, error) {
	cfg := st.cfg
	var c blockCounts
	for s, id := range ids {
		if id != cfg.VisionStartTokenID {
			continue
		}
		if s+1 >= len(ids) {
			return blockCounts{}, inputErr("row %d: vision_start token %d is the last unmasked token: want an image or video token after it", b, id)
		}
		switch ids[s+1] {
		case cfg.ImageTokenID:
			c.images++
		case cfg.VideoTokenID:
			c.videos++
		}
	}
	c.remainImages, c.remainVideos = c.images, c.videos
	return c, nil
}

// rowPositions are a row's positions over its unmasked tokens, [axis][k].
type rowPositions [3][]int64

// text appends n text tokens from position start, the same on every axis.
func (out *rowPositions) text(n int, start int64) {
	for k := range n {
		for a := range out {
			out[a] = append(out[a], start+int64(k))
		}
	}
}

// positions lays out the text and vision blocks of a row's unmasked tokens ids in order.
func (st *indexState) positions(b int, ids []int64, blocks blockCounts) (rowPositions, error) {
	var out rowPositions
	for a := range out {
		out[a] = make([]int64, 0, len(ids))
	}
	// lastMax is llm_pos_ids_list[-1].max(): the largest position of the last vision block
	// (the block appended last; text appended before a vision block never is last when
	// read). -1 while the list is empty, so that st_idx = lastMax + 1 = 0.
	lastMax := int64(-1)
	st0 := 0
	for range blocks.images + blocks.videos {
		blk, err := st.nextBlock(b, ids, st0, &blocks)
		if err != nil {
			return rowPositions{}, err
		}
		textLen := blk.ed - st0
		stIdx := lastMax + 1
		out.text(textLen, stIdx)
		if lastMax, err = st.appendGrid(&out, b, blk, int64(textLen)+stIdx); err != nil {
			return rowPositions{}, err
		}
		st0 = blk.ed + int(blk.n)
	}
	if st0 < len(ids) {
		out.text(len(ids)-st0, lastMax+1)
	}
	return out, nil
}

// visionBlock is one image or video block of a row.
type visionBlock struct {
	ed         int      // the index of its first token
	grid       [3]int64 // its grid_thw
	t, h, w, n int64    // the grid after spatial merging, and its token count t·h·w
	token      int64    // the image or video token that fills it
	second     float64  // Qwen2.5-VL's second_per_grid_t (videos only)
	isImage    bool
}

// nextBlock finds the block that starts first from token st0, the next image or the next
// video, takes its grid, and checks that the row has the block's tokens.
func (st *indexState) nextBlock(b int, ids []int64, st0 int, c *blockCounts) (visionBlock, error) {
	cfg := st.cfg
	edImage, edVideo := len(ids)+1, len(ids)+1
	if c.remainImages > 0 {
		if edImage = indexFrom(ids, cfg.ImageTokenID, st0); edImage < 0 {
			// Python's list.index raises ValueError.
			return visionBlock{}, inputErr("row %d: %d image blocks but no image token after token %d", b, c.images, st0)
		}
	}
	if c.remainVideos > 0 {
		if edVideo = indexFrom(ids, cfg.VideoTokenID, st0); edVideo < 0 {
			return visionBlock{}, inputErr("row %d: %d video blocks but no video token after token %d", b, c.videos, st0)
		}
	}
	var blk visionBlock
	if edImage < edVideo {
		if st.image >= len(st.images) {
			return visionBlock{}, inputErr("row %d: image block %d needs image_grid_thw[%d], but only %d grids were given", b, c.images-c.remainImages, st.image, len(st.images))
		}
		blk.grid, blk.token, blk.isImage = st.images[st.image], cfg.ImageTokenID, true
		st.image++
		c.remainImages--
	} else {
		if st.video >= len(st.videos) {
			return visionBlock{}, inputErr("row %d: video block %d needs video grid %d, but only %d %s were given", b, c.videos-c.remainVideos, st.video, len(st.videos), st.videoUnit())
		}
		blk.grid, blk.token = st.videos[st.video], cfg.VideoTokenID
		// Qwen2.5-VL: second_per_grid_ts[video_index], 1.0 when not given.
		blk.second = 1
		if st.seconds != nil {
			blk.second = st.seconds[st.video]
		}
		st.video++
		c.remainVideos--
	}
	blk.ed = min(edImage, edVideo)
	m := cfg.SpatialMergeSize
	blk.t, blk.h, blk.w = blk.grid[0], blk.grid[1]/m, blk.grid[2]/m
	blk.n = blk.t * blk.h * blk.w
	ed, n, token, grid := blk.ed, blk.n, blk.token, blk.grid
	if n > int64(len(ids)-ed) {
		return visionBlock{}, inputErr("row %d: %s grid %v needs %d %s tokens from token %d, but the row has %d tokens left", b, tokenName(cfg, token), grid, n, tokenName(cfg, token), ed, len(ids)-ed)
	}
	for k := range int(n) {
		if ids[ed+k] != token {
			return visionBlock{}, inputErr("row %d: %s grid %v needs %d consecutive %s tokens from token %d, found %d at token %d", b, tokenName(cfg, token), grid, n, tokenName(cfg, token), ed, ids[ed+k], ed+k)
		}
	}
	return blk, nil
}

// appendGrid appends the positions of block blk's tokens, offset by base, and returns the
// largest of them.
func (st *indexState) appendGrid(out *rowPositions, b int, blk visionBlock, base int64) (int64, error) {
	lastMax := int64(math.MinInt64)
	for t := range blk.t {
		tIndex, ok := st.temporalIndex(t, blk.isImage, blk.second)
		if ok && tIndex+base > maxPosition {
			ok = false
		}
		if !ok {
			return 0, inputErr("row %d: video grid %v: step %d × second_per_grid_t %v × tokens_per_second %v puts its temporal position past 2^53", b, blk.grid, t, blk.second, st.cfg.TokensPerSecond)
		}
		for h := range blk.h {
			for w := range blk.w {
				p := [3]int64{tIndex + base, h + base, w + base}
				for a := range out {
					out[a] = append(out[a], p[a])
					lastMax = max(lastMax, p[a])
				}
			}
		}
	}
	return lastMax, nil
}

// temporalIndex is the t component (before the block offset) of grid step t; ok is false when
// it is not a number below maxPosition, which only Qwen2.5-VL's scaled steps can be.
func (st *indexState) temporalIndex(t int64, isImage bool, second float64) (int64, bool) {
	if st.cfg.Kind != Qwen25VL {
		// Qwen2-VL: t_index = arange(llm_grid_t). Qwen3-VL: always 0, since every video
		// frame is its own grid of t = 1 and images have t = 1.
		return t, true
	}
	// Qwen2.5-VL: time_tensor = arange(llm_grid_t) · second_per_grid_t · tokens_per_second,
	// then .long(). second_per_grid_t is 0 for images and second_per_grid_ts[video] (1.0
	// when absent) for videos. torch multiplies the int64 range by a Python float or a
	// float32 tensor element in float32, left to right, and .long() truncates toward
	// zero; the float32 rounding is reproduced here so that the truncation lands where
	// torch's does.
	if isImage {
		return 0, true
	}
	v := float32(t) * float32(second)
	v *= float32(st.cfg.TokensPerSecond)
	// Go's conversion of NaN, an infinity (a finite float64 past float32's range, or 0·∞) or
	// a value past int64 to int64 is implementation-defined: amd64 gives -2^63.
	if !(v <= maxPosition) {
		return 0, false
	}
	return int64(v), true
}

func indexFrom(ids []int64, tok int64, from int) int {
	for i := from; i < len(ids); i++ {
		if ids[i] == tok {
			return i
		}
	}
	return -1
}

// DecodePosition is the position of the token at cache position cachePosition (its index in
// the whole sequence, prompt included) after a multimodal prefill whose rope_delta is
// ropeDelta: HF's decode branch, position_ids = arange(seq) + cache_position[0] +
// rope_deltas, the same on all three axes. For the families whose rope_delta counts only
// unmasked tokens (the Omni thinkers, ERNIE-4.5-VL, HunYuan-VL, and the Qwen-VL families under
// IndexUnified: cumsum(attention_mask) − 1 + rope_deltas in their decode branch) cachePosition
// is the token's index among the row's unmasked tokens; without padding the two are the same.
func DecodePosition(cachePosition, ropeDelta int64) int64 { return cachePosition + ropeDelta }

// DecodePositions is HF's decode branch for a batch: n new tokens per row starting at cache
// position cacheStart, [axis][batch][n], every axis equal. It refuses a negative n or
// cacheStart, a position past int64, and more than 2^26 positions per axis (batch × n).
func DecodePositions(ropeDeltas []int64, cacheStart int64, n int) (Positions3, error) {
	if n < 0 || cacheStart < 0 {
		return Positions3{}, inputErr("decode positions: %d tokens from cache position %d: want both ≥ 0", n, cacheStart)
	}
	if total, ok := mul64(int64(len(ropeDeltas)), int64(n)); !ok || total > maxDecodePositions {
		return Positions3{}, inputErr("decode positions: %d rows × %d tokens: want at most %d per axis", len(ropeDeltas), n, maxDecodePositions)
	}
	if n > 0 {
		last := int64(n - 1)
		if cacheStart > math.MaxInt64-last {
			return Positions3{}, inputErr("decode positions: cache position %d + %d tokens overflows int64", cacheStart, n)
		}
		for b, d := range ropeDeltas {
			// With cacheStart ≥ 0 only a positive delta can leave int64.
			if d > 0 && cacheStart+last > math.MaxInt64-d {
				return Positions3{}, inputErr("decode positions: row %d: cache positions %d..%d + rope_delta %d overflow int64", b, cacheStart, cacheStart+last, d)
			}
		}
	}
	var out Positions3
	for a := range out {
		out[a] = make([][]int64, len(ropeDeltas))
		for b, d := range ropeDeltas {
			row := make([]int64, n)
			for j := range row {
				row[j] = DecodePosition(cacheStart+int64(j), d)
			}
			out[a][b] = row
		}
	}
	return out, nil
}

// Row returns batch row b of pos flattened to [3·seq], axis-major: the [3, T] positions
// rotary.Embedding.Forward takes for an MRoPE model. It refuses a row pos lacks on any axis
// or whose axes differ in length.
func Row(pos Positions3, b int) ([]int64, error) {
	for a := range pos {
		if b < 0 || b >= len(pos[a]) {
			return nil, inputErr("row %d: positions axis %d has %d rows", b, a, len(pos[a]))
		}
		if len(pos[a][b]) != len(pos[0][b]) {
			return nil, inputErr("row %d: positions axis %d has %d tokens, axis 0 %d", b, a, len(pos[a][b]), len(pos[0][b]))
		}
	}
	seq := len(pos[0][b])
	out := make([]int64, 0, 3*seq)
	for a := range pos {
		out = append(out, pos[a][b]...)
	}
	return out, nil
}

// Flatten returns pos as one [3·batch·seq] slice, axis-major then row-major: the layout of
// an I64 [3, batch, seq] tensor.
func Flatten(pos Positions3) []int64 {
	var out []int64
	for a := range pos {
		for _, row := range pos[a] {
			out = append(out, row...)
		}
	}
	return out
}
