package multimodal

import "math"

// The Omni families' get_rope_index: Qwen2_5OmniPreTrainedModelForConditionalGeneration
// (transformers models/qwen2_5_omni/modeling_qwen2_5_omni.py) and
// Qwen3OmniMoePreTrainedModelForConditionalGeneration (models/qwen3_omni_moe/
// modeling_qwen3_omni_moe.py), the Qwen authors' code, unchanged by HF main's 2026 rewrite of
// the Qwen-VL functions. Every image, video and audio sits between a start token (vision_start
// or audio_start; vision_start audio_start for a video with its audio) and an end token;
// every text, start and end token takes the next position; a block's media tokens get:
//
//   - audio: the next positions on all axes, as text (one token per encoder output; see
//     audioTokens for the count);
//   - image: (i · position_id_per_seconds, j, k) + start over its merged grid;
//   - video: (T(i), j, k) + start, T(i) = i · second_per_grid_t · position_id_per_seconds in
//     float32 (Qwen2.5-Omni truncates it with .long(); Qwen3-Omni keeps it as a float, which
//     rotary's integer positions cannot hold, so a fractional one is refused);
//   - a video with its audio (use_audio_in_video): both start at the same position and their
//     tokens interleave, Qwen2.5-Omni by chunks of int(position_id_per_seconds ·
//     seconds_per_chunk) positions (get_chunked_index: video chunk j, then audio chunk j),
//     Qwen3-Omni token by token in time (a video token first when its temporal position is
//     not after the audio token's).
//
// "Next" means one more than the largest position of the last piece placed (HF's
// llm_pos_ids_list[-1].max() + 1), which after an interleaved video is its last chunk or
// token, not necessarily the video's largest position.
//
// Qwen2.5-Omni gives a video-with-audio's two start tokens one position and its two end tokens
// one position; Qwen3-Omni numbers them one after another. Without any image or video grid the
// input is text (audio tokens included): cumsum(mask) − 1, padding 1. Padding takes 1
// (Qwen2.5-Omni) or 0 (Qwen3-Omni's torch.zeros) in the multimodal branch. The thinker's
// rope_delta is max + 1 − the row's unmasked length (so that a generated token's position is
// its index among the row's unmasked tokens + rope_delta); the talker subtracts the row's
// padding (rope_deltas − delta0), which makes it cache position + rope_delta like Qwen-VL's.

// Input is what get_rope_index reads besides the config.
type Input struct {
	// InputIDs is [batch][seq]; AttentionMask is nil (all ones) or [batch][seq] of 0 and 1.
	InputIDs, AttentionMask [][]int64
	// ImageGridTHW and VideoGridTHW are the (t, h, w) patch grids in the order their tokens
	// appear, row after row.
	ImageGridTHW, VideoGridTHW [][3]int64
	// SecondPerGridT is Qwen2.5-VL's second_per_grid_ts and the Omni families'
	// video_second_per_grid: nil (1.0 per video) or one value per video.
	SecondPerGridT []float64
	// AudioSeqLens (Omni) are the audios' feature lengths, feature_attention_mask.sum(-1)
	// (audio_feature_lengths), one per audio in order of appearance, a video's audio
	// included when UseAudioInVideo.
	AudioSeqLens []int64
	// UseAudioInVideo (Omni): every video carries its audio, laid out as vision_start
	// audio_start, the interleaved tokens, then two end tokens.
	UseAudioInVideo bool
}

// maxAudioFrames bounds one audio's feature length (2^32 frames: over a year at 100 a second).
const maxAudioFrames = 1 << 32

// floorDiv is Python's //: the quotient rounded down (d > 0).
func floorDiv(n, d int64) int64 {
	q := n / d
	if n%d != 0 && n < 0 {
		q--
	}
	return q
}

// audioTokens is the number of audio tokens an audio of n feature frames gives: Qwen2.5-Omni
// Qwen2_5OmniAudioEncoder._get_feat_extract_output_lengths (two stride-2 stages,
// ((n − 1) // 2 + 1 − 2) // 2 + 1, as get_rope_index writes it), Qwen3-Omni the module-level
// _get_feat_extract_output_lengths (13 tokens per full window of 2·n_window frames plus three
// stride-2 stages over the rest).
func audioTokens(cfg Config, n int64) int64 {
	if cfg.Kind == Qwen25Omni {
		return floorDiv(floorDiv(n-1, 2)+1-2, 2) + 1
	}
	chunk := 2 * cfg.AudioNWindow
	feat := floorDiv(n%chunk-1, 2) + 1
	return floorDiv(floorDiv(feat-1, 2)+1-1, 2) + 1 + (n/chunk)*13
}

// checkAudio checks the audio feature lengths and returns each one's token count.
func checkAudio(cfg Config, lens []int64) ([]int64, error) {
	tokens := make([]int64, len(lens))
	for i, n := range lens {
		if n < 0 || n > maxAudioFrames {
			return nil, inputErr("audio_seqlens[%d] = %d: want 0..%d feature frames", i, n, int64(maxAudioFrames))
		}
		if tokens[i] = audioTokens(cfg, n); tokens[i] < 1 {
			return nil, inputErr("audio_seqlens[%d] = %d feature frames give %d audio tokens: want an audio of at least one token", i, n, tokens[i])
		}
	}
	return tokens, nil
}

// omniState carries what HF's loop carries across rows: the next image, video and audio.
type omniState struct {
	cfg                 Config
	in                  Input
	audioLen            []int64 // audio tokens per audio
	image, video, audio int
}

// posWriter appends a row's positions and remembers the largest position of the piece
// appended last (HF's llm_pos_ids_list[-1].max()).
type posWriter struct {
	out  rowPositions
	last int64 // −1 before the first piece, so that the next position is 0
}

// newPosWriter is an empty row with room for n tokens on every axis.
func newPosWriter(n int) *posWriter {
	w := &posWriter{last: -1}
	for a := range w.out {
		w.out[a] = make([]int64, 0, n)
	}
	return w
}

// next is the position after the last piece.
func (w *posWriter) next() int64 { return w.last + 1 }

// seq appends n tokens numbered from start on every axis, as one piece.
func (w *posWriter) seq(n int, start int64) {
	for k := range n {
		for a := range w.out {
			w.out[a] = append(w.out[a], start+int64(k))
		}
	}
	if n > 0 {
		w.last = start + int64(n) - 1
	}
}

// piece appends p[from:to] as one piece.
func (w *posWriter) piece(p *rowPositions, from, to int) {
	if from >= to {
		return
	}
	m := int64(math.MinInt64)
	for a := range w.out {
		for _, v := range p[a][from:to] {
			m = max(m, v)
		}
		w.out[a] = append(w.out[a], p[a][from:to]...)
	}
	w.last = m
}

// omniIndex is RoPEIndex for the Omni kinds.
func omniIndex(cfg Config, in Input, seq int, pos Positions3, deltas []int64) error {
	audioLen, err := checkAudio(cfg, in.AudioSeqLens)
	if err != nil {
		return err
	}
	mask := in.AttentionMask
	if len(in.ImageGridTHW) == 0 && len(in.VideoGridTHW) == 0 {
		if err := noVisionTokens(cfg, in.InputIDs, mask); err != nil {
			return err
		}
		if err := audioCount(cfg, in.InputIDs, mask, audioLen, len(audioLen)); err != nil {
			return err
		}
		textPositions(mask, seq, pos, deltas)
		if !cfg.Talker {
			// The text branch's delta is max + 1 − sum(mask) (the unmasked count); the talker
			// subtracts the padding again, which gives textPositions' padded length.
			for b := range deltas {
				deltas[b] += int64(seq) - unmaskedCount(mask, b, seq)
			}
		}
		return nil
	}
	st := &omniState{cfg: cfg, in: in, audioLen: audioLen}
	fill := int64(1)
	if cfg.Kind == Qwen3Omni {
		fill = 0
	}
	for b, full := range in.InputIDs {
		var m []int64
		if mask != nil {
			m = mask[b]
		}
		ids, err := unmasked(b, full, m)
		if err != nil {
			return err
		}
		var out rowPositions
		if cfg.Kind == Qwen25Omni {
			out, err = st.row25(b, ids)
		} else {
			out, err = st.row3(b, ids)
		}
		if err != nil {
			return err
		}
		scatterRow(b, full, m, out, pos, deltas)
		for s := range full {
			if m != nil && m[s] == 0 {
				for a := range pos {
					pos[a][b][s] = fill
				}
			}
		}
		if !cfg.Talker {
			// mrope_position_deltas: llm_positions.max() + 1 − len(input_ids), input_ids the
			// masked row; scatterRow took the padded length.
			deltas[b] += int64(len(full) - len(ids))
		}
	}
	if st.image < len(in.ImageGridTHW) {
		return inputErr("image_grid_thw has %d grids but the input has %d image blocks", len(in.ImageGridTHW), st.image)
	}
	if st.video < len(in.VideoGridTHW) {
		return inputErr("video_grid_thw has %d grids but the input has %d video blocks", len(in.VideoGridTHW), st.video)
	}
	if st.audio < len(audioLen) {
		return inputErr("audio_seqlens has %d audios but the input has %d audio blocks", len(audioLen), st.audio)
	}
	if err := tokenCounts(cfg, in.InputIDs, mask, in.ImageGridTHW, in.VideoGridTHW); err != nil {
		return err
	}
	return audioCount(cfg, in.InputIDs, mask, audioLen, len(audioLen))
}

func unmaskedCount(mask [][]int64, b, seq int) int64 {
	if mask == nil {
		return int64(seq)
	}
	var n int64
	for _, v := range mask[b] {
		n += v
	}
	return n
}

// audioCount is the forward pass's check that the unmasked audio tokens are as many as the
// audios' encoder outputs.
func audioCount(cfg Config, inputIDs, mask [][]int64, audioLen []int64, n int) error {
	var have, want int64
	for b, row := range inputIDs {
		for s, id := range row {
			if id == cfg.AudioTokenID && (mask == nil || mask[b][s] == 1) {
				have++
			}
		}
	}
	for _, l := range audioLen[:n] {
		want += l
	}
	if have != want {
		return inputErr("the input has %d audio tokens but audio_seqlens gives %d (the audio encoder's output length summed)", have, want)
	}
	return nil
}

// counts are HF's image_nums, video_nums and audio_nums of a row: vision_start tokens
// followed by an image token, by a video token (by audio_start with use_audio_in_video), and
// audio_start tokens; blocks is how many times the row's loop places one: with
// use_audio_in_video each video's audio_start is among the audios, so a video is not counted
// again.
func (st *omniState) counts(b int, ids []int64) (images, videos, audios, blocks int, err error) {
	cfg := st.cfg
	videoNext := cfg.VideoTokenID
	if st.in.UseAudioInVideo {
		videoNext = cfg.AudioStartTokenID
	}
	for s, id := range ids {
		if id == cfg.AudioStartTokenID {
			audios++
		}
		if id != cfg.VisionStartTokenID {
			continue
		}
		if s+1 >= len(ids) {
			return 0, 0, 0, 0, inputErr("row %d: vision_start token %d is the last unmasked token: want an image or video after it", b, id)
		}
		switch ids[s+1] {
		case cfg.ImageTokenID:
			images++
		case videoNext:
			videos++
		case cfg.VideoTokenID, cfg.AudioStartTokenID:
			if st.in.UseAudioInVideo {
				return 0, 0, 0, 0, inputErr("row %d: a video at token %d has no audio (vision_start video): use_audio_in_video wants vision_start audio_start before every video", b, s+1)
			}
			return 0, 0, 0, 0, inputErr("row %d: a video at token %d carries its audio (vision_start audio_start): want use_audio_in_video", b, s+1)
		}
	}
	blocks = images + videos + audios
	if st.in.UseAudioInVideo {
		blocks = images + audios
	}
	return images, videos, audios, blocks, nil
}

// media checks that ids[from:from+n] are all tok and that an end token follows them.
func (st *omniState) media(b int, ids []int64, from int, n int64, tok int64, what string, ends int) error {
	if n > int64(len(ids)-from) {
		return inputErr("row %d: %s needs %d tokens from token %d, but the row has %d left", b, what, n, from, len(ids)-from)
	}
	for k := range int(n) {
		if ids[from+k] != tok {
			return inputErr("row %d: %s needs %d consecutive tokens %d from token %d, found %d at token %d", b, what, n, tok, from, ids[from+k], from+k)
		}
	}
	if from+int(n)+ends > len(ids) {
		return inputErr("row %d: %s ends the row: want %d end token(s) after it", b, what, ends)
	}
	if ids[from+int(n)] == tok {
		return inputErr("row %d: %s of %d tokens from token %d is followed by one more %d: its grid or audio_seqlens covers fewer tokens than the block holds", b, what, n, from, tok)
	}
	return nil
}

// imageGrid and videoGrid take the next grid, or say that none is left.
func (st *omniState) imageGrid(b int) ([3]int64, error) {
	if st.image >= len(st.in.ImageGridTHW) {
		return [3]int64{}, inputErr("row %d: image block %d needs image_grid_thw[%d], but only %d grids were given", b, st.image, st.image, len(st.in.ImageGridTHW))
	}
	return st.in.ImageGridTHW[st.image], nil
}

func (st *omniState) videoGrid(b int) ([3]int64, float64, error) {
	if st.video >= len(st.in.VideoGridTHW) {
		return [3]int64{}, 0, inputErr("row %d: video block %d needs video_grid_thw[%d], but only %d grids were given", b, st.video, st.video, len(st.in.VideoGridTHW))
	}
	sec := 1.0
	if st.in.SecondPerGridT != nil {
		sec = st.in.SecondPerGridT[st.video]
	}
	return st.in.VideoGridTHW[st.video], sec, nil
}

func (st *omniState) audioTokens(b int) (int64, error) {
	if st.audio >= len(st.audioLen) {
		return 0, inputErr("row %d: audio block %d needs audio_seqlens[%d], but only %d were given", b, st.audio, st.audio, len(st.audioLen))
	}
	return st.audioLen[st.audio], nil
}

// gridTokens is the number of tokens a (t, h, w) patch grid gives after the spatial merge.
func (st *omniState) gridTokens(g [3]int64) int64 {
	m := st.cfg.SpatialMergeSize
	return g[0] * (g[1] / m) * (g[2] / m)
}

// visionBlock takes the next image (isImage) or video grid, checks that ids[from:] hold its
// tokens followed by an end token, and returns their positions from base and their count.
func (st *omniState) visionBlock(b int, ids []int64, from int, isImage bool, base int64) (rowPositions, int64, error) {
	var g [3]int64
	var err error
	second, tok, what := 0.0, st.cfg.VideoTokenID, "a video"
	if isImage {
		tok, what = st.cfg.ImageTokenID, "an image"
		g, err = st.imageGrid(b)
	} else {
		g, second, err = st.videoGrid(b)
	}
	if err != nil {
		return rowPositions{}, 0, err
	}
	size := st.gridTokens(g)
	if err := st.media(b, ids, from, size, tok, what, 1); err != nil {
		return rowPositions{}, 0, err
	}
	p, err := st.vision(b, g, second, isImage, base)
	return p, size, err
}

// audioVideo takes the next audio's token count l and video grid g for a video with its audio
// whose interleaved tokens start at from, and checks that the row has their size + l tokens.
func (st *omniState) audioVideo(b int, ids []int64, from int) (l int64, g [3]int64, second float64, size int64, err error) {
	if l, err = st.audioTokens(b); err != nil {
		return 0, g, 0, 0, err
	}
	if g, second, err = st.videoGrid(b); err != nil {
		return 0, g, 0, 0, err
	}
	size = st.gridTokens(g)
	if size+l > int64(len(ids)-from) {
		return 0, g, 0, 0, inputErr("row %d: video grid %v with %d audio tokens needs %d tokens from token %d, but the row has %d left", b, g, l, size+l, from, len(ids)-from)
	}
	return l, g, second, size, nil
}

// vision returns the positions of a grid's tokens, t-major, offset by base: temporal
// T(i) = i · position_id_per_seconds for images (second ≤ 0) and i · second ·
// position_id_per_seconds in float32 for videos, truncated (Qwen2.5-Omni) or refused when
// fractional (Qwen3-Omni).
func (st *omniState) vision(b int, g [3]int64, second float64, isImage bool, base int64) (rowPositions, error) {
	m := st.cfg.SpatialMergeSize
	t, h, w := g[0], g[1]/m, g[2]/m
	var p rowPositions
	for a := range p {
		p[a] = make([]int64, 0, t*h*w)
	}
	pips := st.cfg.PositionIDPerSeconds
	for i := range t {
		ti := i * pips
		if !isImage {
			v := float32(i) * float32(second)
			v *= float32(pips)
			if !(v <= maxPosition) {
				return rowPositions{}, inputErr("row %d: video grid %v: step %d × second_per_grid %v × position_id_per_seconds %d is not a position below 2^53", b, g, i, second, pips)
			}
			if st.cfg.Kind == Qwen3Omni && v != float32(math.Trunc(float64(v))) {
				// HF keeps the float (t_index .float()); vLLM truncates (astype(np.int64)).
				return rowPositions{}, inputErr("row %d: video grid %v: step %d × second_per_grid %v × position_id_per_seconds %d = %v is fractional: Qwen3-Omni (HF) rotates by that float, which integer positions cannot hold", b, g, i, second, pips, v)
			}
			ti = int64(v)
		}
		if ti+base > maxPosition {
			return rowPositions{}, inputErr("row %d: grid %v: step %d puts its temporal position past 2^53", b, g, i)
		}
		for j := range h {
			for k := range w {
				p[0] = append(p[0], ti+base)
				p[1] = append(p[1], j+base)
				p[2] = append(p[2], k+base)
			}
		}
	}
	return p, nil
}

// seqPositions are n positions from base on every axis.
func seqPositions(n, base int64) rowPositions {
	var p rowPositions
	for a := range p {
		p[a] = make([]int64, n)
		for k := range p[a] {
			p[a][k] = base + int64(k)
		}
	}
	return p
}

// row25 is Qwen2.5-Omni's loop over a row's blocks: the first image, video or audio token at
// or after the cursor opens the next block.
func (st *omniState) row25(b int, ids []int64) (rowPositions, error) {
	cfg := st.cfg
	images, videos, audios, n, err := st.counts(b, ids)
	if err != nil {
		return rowPositions{}, err
	}
	w := newPosWriter(len(ids))
	st0 := 0
	for range n {
		ed, which := len(ids)+1, int64(-1)
		for _, c := range []struct {
			tok    int64
			remain int
		}{{cfg.ImageTokenID, images}, {cfg.VideoTokenID, videos}, {cfg.AudioTokenID, audios}} {
			if c.remain <= 0 {
				continue
			}
			if k := indexFrom(ids, c.tok, st0); k >= 0 && k < ed {
				ed, which = k, c.tok
			}
		}
		if which < 0 {
			return rowPositions{}, inputErr("row %d: start tokens announce more blocks than the image, video and audio tokens after token %d hold", b, st0)
		}
		starts := 1 // the start tokens before the media
		if which == cfg.VideoTokenID && st.in.UseAudioInVideo {
			starts = 2
		}
		want := cfg.VisionStartTokenID
		if which == cfg.AudioTokenID || starts == 2 {
			want = cfg.AudioStartTokenID
		}
		if ed-starts < st0 || ids[ed-1] != want || (starts == 2 && ids[ed-2] != cfg.VisionStartTokenID) {
			return rowPositions{}, inputErr("row %d: the media token %d at token %d does not follow its start token(s) (vision_start, audio_start, or vision_start audio_start for a video with its audio)", b, which, ed)
		}
		w.seq(ed-starts-st0, w.next()) // the text before the block
		switch {
		case which == cfg.AudioTokenID:
			l, err := st.audioTokens(b)
			if err != nil {
				return rowPositions{}, err
			}
			if err := st.media(b, ids, ed, l, cfg.AudioTokenID, "an audio", 1); err != nil {
				return rowPositions{}, err
			}
			w.seq(1, w.next())
			w.seq(int(l), w.next())
			w.seq(1, w.next())
			st0 = ed + int(l) + 1
			st.audio++
			audios--
		case which == cfg.ImageTokenID || !st.in.UseAudioInVideo:
			isImage := which == cfg.ImageTokenID
			start := w.next()
			p, size, err := st.visionBlock(b, ids, ed, isImage, start+1)
			if err != nil {
				return rowPositions{}, err
			}
			w.seq(1, start)
			w.piece(&p, 0, int(size))
			w.seq(1, w.next())
			st0 = ed + int(size) + 1
			if isImage {
				st.image++
				images--
			} else {
				st.video++
				videos--
			}
		default:
			if st0, err = st.audioInVideo25(b, ids, ed, w); err != nil {
				return rowPositions{}, err
			}
			videos--
			audios--
		}
	}
	w.seq(len(ids)-st0, w.next())
	return w.out, nil
}

// audioInVideo25 places a Qwen2.5-Omni video with its audio whose first media token is at ed
// and returns the cursor after its two end tokens.
func (st *omniState) audioInVideo25(b int, ids []int64, ed int, w *posWriter) (int, error) {
	cfg := st.cfg
	l, g, second, _, err := st.audioVideo(b, ids, ed)
	if err != nil {
		return 0, err
	}
	// Both start tokens take one position, and the media start right after it.
	bos := w.next()
	w.seq(1, bos)
	w.seq(1, bos)
	base := bos + 1
	video, err := st.vision(b, g, second, false, base)
	if err != nil {
		return 0, err
	}
	audio := seqPositions(l, base)
	perChunk := int64(float64(cfg.PositionIDPerSeconds) * cfg.SecondsPerChunk)
	vc := chunkedIndex(video[0], perChunk, base)
	ac := chunkedIndex(audio[0], perChunk, base)
	k := ed
	for j := range max(len(vc), len(ac)) {
		for _, c := range []struct {
			chunks [][2]int
			p      *rowPositions
			tok    int64
		}{{vc, &video, cfg.VideoTokenID}, {ac, &audio, cfg.AudioTokenID}} {
			if j >= len(c.chunks) {
				continue
			}
			from, to := c.chunks[j][0], c.chunks[j][1]
			for i := from; i < to; i++ {
				if ids[k] != c.tok {
					return 0, inputErr("row %d: video grid %v with its audio: token %d is %d, but the interleaving (get_chunked_index, %d positions a chunk) puts token %d there", b, g, k, ids[k], perChunk, c.tok)
				}
				k++
			}
			w.piece(c.p, from, to)
		}
	}
	if k+2 > len(ids) {
		return 0, inputErr("row %d: a video with its audio ends the row: want two end tokens after it", b)
	}
	eos := w.next()
	w.seq(1, eos)
	w.seq(1, eos)
	st.audio++
	st.video++
	return k + 2, nil
}

// chunkedIndex is get_chunked_index: the [start, end) ranges of values (ascending) split where
// a value minus remove reaches the next multiple of perChunk, one multiple per value.
func chunkedIndex(values []int64, perChunk, remove int64) [][2]int {
	var out [][2]int
	start, cur := 0, int64(1)
	for i, v := range values {
		// v − remove ≥ cur · perChunk, without the product (it can pass int64).
		if (v-remove)/perChunk >= cur {
			out = append(out, [2]int{start, i})
			start = i
			cur++
		}
	}
	return append(out, [2]int{start, len(values)})
}

// row3 is Qwen3-Omni's loop over a row's blocks: the first vision_start or audio_start at or
// after the cursor opens the next block.
func (st *omniState) row3(b int, ids []int64) (rowPositions, error) {
	cfg := st.cfg
	images, videos, audios, n, err := st.counts(b, ids)
	if err != nil {
		return rowPositions{}, err
	}
	hasVision := indexFrom(ids, cfg.ImageTokenID, 0) >= 0 || indexFrom(ids, cfg.VideoTokenID, 0) >= 0
	hasAudio := indexFrom(ids, cfg.AudioTokenID, 0) >= 0
	w := newPosWriter(len(ids))
	st0 := 0
	for range n {
		edVS, edAS := len(ids)+1, len(ids)+1
		if hasVision && (videos > 0 || images > 0) {
			if edVS = indexFrom(ids, cfg.VisionStartTokenID, st0); edVS < 0 {
				return rowPositions{}, inputErr("row %d: no vision_start after token %d for the %d image and video blocks left", b, st0, images+videos)
			}
		}
		if hasAudio && audios > 0 {
			if edAS = indexFrom(ids, cfg.AudioStartTokenID, st0); edAS < 0 {
				return rowPositions{}, inputErr("row %d: no audio_start after token %d for the %d audio blocks left", b, st0, audios)
			}
		}
		ed := min(edVS, edAS)
		if ed > len(ids) || ed+1 >= len(ids) {
			return rowPositions{}, inputErr("row %d: start tokens announce more blocks than follow token %d", b, st0)
		}
		next := w.next()
		w.seq(ed-st0, next) // the text before the block
		next += int64(ed - st0)
		aiv := ed == edVS && edVS+1 == edAS
		starts := 1
		if aiv {
			starts = 2
		}
		w.seq(starts, next)
		next += int64(starts)
		from := ed + starts
		var size int64
		switch {
		case ed == edAS:
			if size, err = st.audioTokens(b); err != nil {
				return rowPositions{}, err
			}
			if err := st.media(b, ids, from, size, cfg.AudioTokenID, "an audio", 1); err != nil {
				return rowPositions{}, err
			}
			w.seq(int(size), next)
			st.audio++
			audios--
		case ids[ed+1] == cfg.ImageTokenID || ids[ed+1] == cfg.VideoTokenID:
			isImage := ids[ed+1] == cfg.ImageTokenID
			var p rowPositions
			if p, size, err = st.visionBlock(b, ids, from, isImage, next); err != nil {
				return rowPositions{}, err
			}
			w.piece(&p, 0, int(size))
			if isImage {
				st.image++
				images--
			} else {
				st.video++
				videos--
			}
		case aiv:
			if size, err = st.audioInVideo3(b, ids, from, next, w); err != nil {
				return rowPositions{}, err
			}
			videos--
			audios--
		default:
			return rowPositions{}, inputErr("row %d: vision_start at token %d is followed by %d: want an image or video token, or audio_start", b, ed, ids[ed+1])
		}
		w.seq(starts, w.next()) // the end tokens
		st0 = from + int(size) + starts
		if st0 > len(ids) {
			return rowPositions{}, inputErr("row %d: the block from token %d ends the row: want %d end token(s) after it", b, ed, starts)
		}
	}
	w.seq(len(ids)-st0, w.next())
	return w.out, nil
}

// audioInVideo3 places a Qwen3-Omni video with its audio from token from, both from base,
// merged in time, and returns its token count.
func (st *omniState) audioInVideo3(b int, ids []int64, from int, base int64, w *posWriter) (int64, error) {
	cfg := st.cfg
	l, g, second, size, err := st.audioVideo(b, ids, from)
	if err != nil {
		return 0, err
	}
	video, err := st.vision(b, g, second, false, base)
	if err != nil {
		return 0, err
	}
	audio := seqPositions(l, base)
	k, vi, ai := from, 0, 0
	take := func(p *rowPositions, i *int, n int, tok int64) error {
		for j := *i; j < *i+n; j++ {
			if ids[k] != tok {
				return inputErr("row %d: video grid %v with its audio: token %d is %d, but merging video and audio by time puts token %d there", b, g, k, ids[k], tok)
			}
			k++
		}
		w.piece(p, *i, *i+n)
		*i += n
		return nil
	}
	for vi < int(size) && ai < int(l) {
		var err error
		if video[0][vi] <= audio[0][ai] {
			err = take(&video, &vi, 1, cfg.VideoTokenID)
		} else {
			err = take(&audio, &ai, 1, cfg.AudioTokenID)
		}
		if err != nil {
			return 0, err
		}
	}
	if err := take(&video, &vi, int(size)-vi, cfg.VideoTokenID); err != nil {
		return 0, err
	}
	if err := take(&audio, &ai, int(l)-ai, cfg.AudioTokenID); err != nil {
		return 0, err
	}
	st.audio++
	st.video++
	return size + l, nil
}
