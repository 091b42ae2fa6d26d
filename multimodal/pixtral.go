package multimodal

import "github.com/rotary-go/rotary/rope"

// PixtralVisionPositions returns the (row, column) of every patch of the images whose patch
// grids (height, width in patches) gridHW lists, image after image, row-major: the order
// PixtralVisionModel holds them (position_ids_in_meshgrid in transformers
// models/pixtral/modeling_pixtral.py, which turns each into the index row·max_width + column
// of PixtralRotaryEmbedding's table). Every row and column must be below maxPatchesPerSide
// (image_size / patch_size, the table's side), as HF's table has no row for them.
func PixtralVisionPositions(gridHW [][2]int64, maxPatchesPerSide int) ([][2]int64, error) {
	if maxPatchesPerSide < 1 || maxPatchesPerSide > 1<<16 {
		return nil, visionErr("max patches per side %d: want 1..65536 (image_size / patch_size)", maxPatchesPerSide)
	}
	var total int64
	for i, g := range gridHW {
		if g[0] < 1 || g[1] < 1 || g[0] > int64(maxPatchesPerSide) || g[1] > int64(maxPatchesPerSide) {
			return nil, visionErr("grid_hw[%d] = %v: want 1..%d patches a side (image_size / patch_size)", i, g, maxPatchesPerSide)
		}
		if total += g[0] * g[1]; total > maxVisionPatches {
			return nil, visionErr("grid_hw: more than %d patches in one call", maxVisionPatches)
		}
	}
	out := make([][2]int64, 0, total)
	for _, g := range gridHW {
		for r := range g[0] {
			for c := range g[1] {
				out = append(out, [2]int64{r, c})
			}
		}
	}
	return out, nil
}

// PixtralVisionCosSin returns the cos/sin of PixtralRotaryEmbedding (modeling_pixtral.py;
// Mistral 3's vision tower is Pixtral's) for the patches of gridHW, in PixtralVisionPositions
// order. With freqs_j = 1 / theta^(2j / head_dim), a patch at (row r, column c) turns pair k by
// r · freqs_{2k} for k < head_dim/4 and by c · freqs_{2(k − head_dim/4) + 1} above (freqs_h on
// the even frequencies, freqs_w on the odd ones), and HF applies cat(angles, angles) with
// rotate_half: NeoX style. Mistral's own checkpoints (vLLM's pixtral.py VisionTransformer,
// which multiplies consecutive pairs as complex numbers) turn pairs (2k, 2k+1) by the same
// angles; style chooses the layout (rope.NeoX for HF's weights, rope.GPTJ for Mistral's).
//
// headDim is the vision head size (hidden_size / num_attention_heads: 1024 / 16 = 64 in
// PixtralVisionConfig) and must be a multiple of 4; theta 0 means 10000 (rope_theta's
// default). HF computes in float32; this computes in float64 and rounds once.
func PixtralVisionCosSin(gridHW [][2]int64, maxPatchesPerSide, headDim int, theta float64, style rope.Style) (VisionCosSin, error) {
	theta, err := checkTheta(theta)
	if err != nil {
		return VisionCosSin{}, err
	}
	if headDim < 4 || headDim%4 != 0 || headDim > 1<<16 {
		return VisionCosSin{}, visionErr("head dim %d: want a multiple of 4 in 4..65536 (rows and columns each take half the pairs)", headDim)
	}
	if style != rope.NeoX && style != rope.GPTJ {
		return VisionCosSin{}, visionErr("style %v: want neox (HF's weights) or gptj (Mistral's)", style)
	}
	pos, err := PixtralVisionPositions(gridHW, maxPatchesPerSide)
	if err != nil {
		return VisionCosSin{}, err
	}
	if err := checkTable(int64(len(pos)), headDim); err != nil {
		return VisionCosSin{}, err
	}
	quarter := headDim / 4
	freqs := visionInvFreq(theta, headDim, headDim/2)
	return buildCosSin(len(pos), headDim, style, func(k, i int) float64 {
		if i < quarter {
			return float64(pos[k][0]) * freqs[2*i]
		}
		return float64(pos[k][1]) * freqs[2*(i-quarter)+1]
	}), nil
}
