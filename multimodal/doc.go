// Package multimodal computes the positions multimodal RoPE models rotate by: the 3-axis
// (temporal, height, width) MRoPE position ids of the Qwen2-VL family's language model,
// and the 2-D patch RoPE of the Qwen and Llama 4 vision towers.
//
// # MRoPE positions (GetRoPEIndex)
//
// GetRoPEIndex follows Hugging Face transformers' get_rope_index of Qwen2VLModel,
// Qwen2_5_VLModel and Qwen3VLModel (modeling_qwen2_vl.py, modeling_qwen2_5_vl.py,
// modeling_qwen3_vl.py, transformers v4.5x, the version that scans for vision_start
// tokens; vLLM's MRotaryEmbedding.get_input_positions computes the same). Per batch row,
// over the tokens whose attention_mask is 1:
//
//   - The number of images (videos) is the number of vision_start_token_id tokens
//     followed directly by image_token_id (video_token_id). The blocks are then taken in
//     token order: the next image token and the next video token at or after the cursor,
//     whichever comes first; grids are consumed in order across the whole batch.
//   - Text before a block gets st_idx, st_idx+1, ... on all three axes, where st_idx is
//     one more than the largest position of the previous vision block (0 at the start).
//   - A block of grid (t, h, w) has t·(h/m)·(w/m) tokens, m = spatial_merge_size, laid out
//     t-major, then h, then w. Token (i, j, k) gets (T(i), j, k) + offset, where offset is
//     st_idx + the preceding text length (the position the next text token would have).
//   - T(i) per family: Qwen2-VL i; Qwen2.5-VL trunc(i · second_per_grid_t ·
//     tokens_per_second) for videos (second_per_grid_t from second_per_grid_ts, 1.0 when
//     absent; the product in float32, as torch computes it) and 0 for images; Qwen3-VL
//     splits every video (t, h, w) into t frames (1, h, w), each its own block with its own
//     vision_start and timestamp text before it, so T is always 0 and time advances
//     through the text positions of the timestamp tokens.
//   - Text after the last block continues from its largest position + 1.
//   - Masked (padding) slots get position 1 on every axis, and rope_delta is
//     max(position) + 1 − the padded row length.
//
// With no image and no video grid the input is text and every axis is the position (the
// cumulative mask count − 1, masked slots 1; rope_delta = the row's largest value, masked
// slots included, + 1 − row length; 0 without a mask).
//
// During decoding HF does not call get_rope_index again: a new token at cache position c
// (its index in the whole sequence) has position c + rope_delta on all three axes
// (DecodePosition, DecodePositions).
//
// Where the input is malformed GetRoPEIndex returns an error rather than positions HF
// would silently produce: grids not consumed, a grid needing more image tokens than the
// block holds, image tokens outside every block, grid values that are not multiples of
// the merge size. Newer transformers
// (v5) rewrote get_rope_index around processor-made mm_token_type_ids; for padded rows
// and long videos its positions can differ from v4's, which this package follows.
//
// # Other families
//
// Qwen35 (Qwen3.5) follows Qwen3-VL's rules with Qwen3_5Config's token ids (vLLM's
// Qwen3_5ForConditionalGeneration inherits Qwen3-VL's get_mrope_input_positions).
//
// GLM4V (GLM-4.1V, GLM-4.5V, GLM-4.6V) follows Glm4vModel.get_rope_index
// (modeling_glm4v.py, transformers v4.57): no vision_start marker; image tokens between
// video_start_token_id and video_end_token_id are video frames, other image tokens images;
// runs of one token type are blocks, each starting at the previous block's largest position
// + 1; an image run takes the next image grid, a video run is one (1, h, w) frame of the
// current video. HF main's rewrite (driven by mm_token_type_ids) gives the same positions for
// single-step images and frames, all that GLM's processor makes, but advances by max(h, w)
// only after an image of t > 1 steps, fills padding with 0 and takes rope_delta over the
// unpadded length.
//
// Qwen25Omni and Qwen3Omni (Qwen2.5-Omni and Qwen3-Omni, thinker and talker) follow their
// get_rope_index in modeling_qwen2_5_omni.py and modeling_qwen3_omni_moe.py, which RoPEIndex
// runs with the audio lengths (Input.AudioSeqLens) and use_audio_in_video. Each image, video
// and audio sits between a start and an end token; text, start and end tokens take the next
// position; an image step and a video step advance time by position_id_per_seconds (times
// second_per_grid_t for videos); an audio takes the next positions, as many as its encoder
// outputs for its feature length. A video with its audio interleaves the two from one start
// position: Qwen2.5-Omni by chunks of position_id_per_seconds · seconds_per_chunk positions,
// Qwen3-Omni token by token in time. The thinker's rope_delta counts unmasked tokens, the
// talker's (Config.Talker) the padded row.
//
// Ernie45VL (ERNIE-4.5-VL) lays each run of image or video tokens out as a Qwen2-VL grid, a
// video's steps merged by temporal_merge_size, text continuing from the grid's largest
// position + 1 (Baidu's code in vLLM; HF main continues at start + max(h, w)); padding 0 and
// rope_delta over the unmasked length as HF main. Its language model's rotation is
// rope.MRoPE.AlternateHW.
//
// HunYuanVL (HunYuan-VL's XD-RoPE) has Config.Axes position rows (four: sequence, width,
// height, image), which RoPEIndexN returns: every row counts the row's unmasked tokens except
// on an image's h/m·(w/m + 1) grid tokens, whose width, height and image rows are the column,
// the row and the image's index in the row (vLLM's per-request count; HF main counts across
// the batch). Its rotation is chunked MRoPE over the sections, both elements of a pair on one
// axis (Tencent's apply_rotary_pos_emb_xdrope, vLLM rotary_embedding/xdrope.py); HF main's
// apply_multimodal_rotary_pos_emb doubles each section over cat(freqs, freqs) instead, which
// differs on image tokens.
//
// MiniCPM-V 4.6 and 4.7 (model_type minicpmv4_6, minicpmv4_7) wrap a Qwen3.5 text model but
// position image, slice and video tokens by canvas M-RoPE (compute_canvas_rope_index), which
// this package does not compute: KindForModelType refuses them with that reason (Unsupported)
// rather than run the text model's rules.
//
// # Vision-tower 2-D RoPE
//
// Qwen2VisionPositions and Qwen2VisionCosSin follow rot_pos_emb and VisionRotaryEmbedding
// of the Qwen2-VL vision tower (shared by Qwen2.5-VL and Qwen3-VL): patch (h, w) ids in
// spatial-merge window order, head_dim/4 frequencies of theta 10000 for h on the first
// half of the angles and for w on the second, applied NeoX style to cat(angles, angles)
// (apply_rotary_pos_emb_vision). Llama4VisionCosSin follows Llama4VisionRotaryEmbedding:
// 1-based x/y patch coordinates, x on the first half of the angles and y on the second,
// the CLS token (last) unrotated, applied to consecutive element pairs as complex numbers
// (GPT-J style). PixtralVisionCosSin follows PixtralRotaryEmbedding (Pixtral, Mistral 3): a
// patch's row turns the even frequencies and its column the odd ones of theta^(−2j/head_dim),
// NeoX style for HF's weights, GPT-J for Mistral's. VisionCosSin.Apply rotates q and k with op
// apply_rotary_emb.
//
// All frequencies, angles, cos and sin are computed in float64 and rounded once to
// float32 (the accuracy contract in the README); HF computes them in float32.
package multimodal
