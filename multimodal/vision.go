package multimodal

import (
	"errors"
	"math"

	"github.com/rotary-go/rotary/internal/errs"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/tensor"
)

// ErrVision is wrapped by every error of the vision-tower functions.
var ErrVision = errors.New("multimodal vision rope")

func visionErr(format string, args ...any) error {
	return errs.Wrapf(ErrVision, format, args...)
}

// DefaultVisionTheta is the base of the Qwen vision towers' VisionRotaryEmbedding
// (theta=10000.0, never overridden by the models) and Llama4VisionConfig's rope_theta default.
const DefaultVisionTheta = 10000.0

// maxVisionPatches bounds the patches one call describes (2^26, 64 Mi): a real image or
// video has below 10^6.
const maxVisionPatches = 1 << 26

// Qwen2VisionPositions returns the (h, w) patch coordinates the Qwen2-VL vision tower
// rotates each patch by, in the order the tower holds the patches: for each grid (t, h, w),
// t repetitions (one per temporal step) of the h·w patches in spatial-merge window order,
// window row-major, then row-major inside each merge×merge window. This is HF's
// Qwen2VisionTransformerPretrainedModel.rot_pos_emb (hpos_ids / wpos_ids reshaped to
// (h/m, m, w/m, m), permuted (0, 2, 1, 3), flattened, stacked and repeated t times;
// Qwen2.5-VL and Qwen3-VL build the same ids). Qwen2.5-VL's window attention then
// permutes whole merge windows by its window_index; that permutation is not applied here.
func Qwen2VisionPositions(gridTHW [][3]int64, spatialMerge int) ([][2]int64, error) {
	total, err := checkVisionGrids(gridTHW, spatialMerge)
	if err != nil {
		return nil, err
	}
	m := int64(spatialMerge)
	out := make([][2]int64, 0, total)
	for _, g := range gridTHW {
		t, h, w := g[0], g[1], g[2]
		for range t {
			for bh := range h / m {
				for bw := range w / m {
					for ih := range m {
						for iw := range m {
							out = append(out, [2]int64{bh*m + ih, bw*m + iw})
						}
					}
				}
			}
		}
	}
	return out, nil
}

func checkVisionGrids(gridTHW [][3]int64, spatialMerge int) (int64, error) {
	if spatialMerge < 1 || spatialMerge > maxMerge {
		return 0, visionErr("spatial merge size %d: want 1..%d", spatialMerge, maxMerge)
	}
	var total int64
	for i, g := range gridTHW {
		for k, v := range g {
			if v < 1 || v > maxGridDim {
				return 0, visionErr("grid_thw[%d] = %v: %c %d: want 1..%d", i, g, "thw"[k], v, maxGridDim)
			}
		}
		if g[1]%int64(spatialMerge) != 0 || g[2]%int64(spatialMerge) != 0 {
			return 0, visionErr("grid_thw[%d] = %v: h and w must be multiples of the spatial merge size %d", i, g, spatialMerge)
		}
		total += g[0] * g[1] * g[2]
		if total > maxVisionPatches {
			return 0, visionErr("grid_thw: more than %d patches in one call", maxVisionPatches)
		}
	}
	return total, nil
}

// VisionCosSin is the cos and sin of every patch (token) of a vision tower at full rotary
// width, in the layout Style's rotation reads: NeoX repeats the Dim/2 angles as
// cat(angles, angles), GPT-J as repeat_interleave(angles, 2). Values are computed in
// float64 and rounded once to float32.
type VisionCosSin struct {
	Tokens, Dim int
	Style       rope.Style
	// Cos and Sin are [Tokens, Dim] row-major.
	Cos, Sin []float32
}

// maxTable bounds each of a VisionCosSin's two tables (2^31 float32, 8 GiB).
const maxTable = 1 << 31

// checkTable refuses tables of tokens × dim float32 past maxTable or past what an int (32 bits
// on some platforms) can count. tokens ≤ 2^32+1 and dim ≤ 2^16, so the product fits int64.
func checkTable(tokens int64, dim int) error {
	if n := tokens * int64(dim); n > maxTable || n > math.MaxInt {
		return visionErr("%d tokens × head dim %d is too large (at most %d values per table)", tokens, dim, min(maxTable, math.MaxInt))
	}
	return nil
}

// angleFunc is the float64 rotation angle of pair i of token k.
type angleFunc func(k, i int) float64

func buildCosSin(tokens, dim int, style rope.Style, angle angleFunc) VisionCosSin {
	cs := VisionCosSin{Tokens: tokens, Dim: dim, Style: style, Cos: make([]float32, tokens*dim), Sin: make([]float32, tokens*dim)}
	half := dim / 2
	for k := range tokens {
		row := k * dim
		for i := range half {
			s, c := math.Sincos(angle(k, i))
			a, b := row+i, row+i+half // NeoX: cat(freqs, freqs)
			if style == rope.GPTJ {
				a, b = row+2*i, row+2*i+1 // GPT-J: repeat_interleave(freqs, 2)
			}
			cs.Cos[a], cs.Cos[b] = float32(c), float32(c)
			cs.Sin[a], cs.Sin[b] = float32(s), float32(s)
		}
	}
	return cs
}

// visionInvFreq is 1 / theta^(2j/dim) for j < n: HF's
// 1.0 / (theta ** (torch.arange(0, dim, 2) / dim)), in float64.
func visionInvFreq(theta float64, dim, n int) []float64 {
	inv := make([]float64, n)
	for j := range inv {
		inv[j] = 1 / math.Pow(theta, float64(2*j)/float64(dim))
	}
	return inv
}

func checkTheta(theta float64) (float64, error) {
	if theta == 0 {
		return DefaultVisionTheta, nil
	}
	if !(theta > 0) || math.IsInf(theta, 0) {
		return 0, visionErr("theta %v: want a finite number > 0 (0 for the default %v)", theta, DefaultVisionTheta)
	}
	return theta, nil
}

// Qwen2VisionCosSin returns the cos/sin the Qwen2-VL vision tower rotates each patch's q and
// k by (Qwen2.5-VL and Qwen3-VL share it), patches in Qwen2VisionPositions order:
//
//   - VisionRotaryEmbedding(head_dim / 2, theta): inv_freq_j = 1 / theta^(2j / (head_dim/2))
//     for j < head_dim/4;
//   - rot_pos_emb: rotary_pos_emb_full[pos_ids].flatten(1), so a patch at (h, w) has the
//     head_dim/2 angles [h·inv_freq_0 … h·inv_freq_{head_dim/4−1}, w·inv_freq_0 …], height
//     on the first half and width on the second;
//   - the tower's forward / apply_rotary_pos_emb_vision: emb = cat(angles, angles), cos and
//     sin of emb, applied as q·cos + rotate_half(q)·sin: NeoX style over the full head.
//
// headDim is the vision head size (hidden_size / num_heads; 80 for Qwen2-VL and Qwen2.5-VL,
// 72 for Qwen3-VL) and must be a multiple of 4; theta 0 means 10000. HF computes in float32;
// this computes in float64 and rounds once.
func Qwen2VisionCosSin(gridTHW [][3]int64, spatialMerge, headDim int, theta float64) (VisionCosSin, error) {
	theta, err := checkTheta(theta)
	if err != nil {
		return VisionCosSin{}, err
	}
	if headDim < 4 || headDim%4 != 0 || headDim > 1<<16 {
		return VisionCosSin{}, visionErr("head dim %d: want a multiple of 4 in 4..65536 (the h and w halves each need whole pairs)", headDim)
	}
	pos, err := Qwen2VisionPositions(gridTHW, spatialMerge)
	if err != nil {
		return VisionCosSin{}, err
	}
	if err := checkTable(int64(len(pos)), headDim); err != nil {
		return VisionCosSin{}, err
	}
	quarter := headDim / 4
	inv := visionInvFreq(theta, headDim/2, quarter)
	return buildCosSin(len(pos), headDim, rope.NeoX, func(k, i int) float64 {
		if i < quarter {
			return float64(pos[k][0]) * inv[i]
		}
		return float64(pos[k][1]) * inv[i-quarter]
	}), nil
}

// Llama4VisionCosSin returns the cos/sin of HF's Llama4VisionRotaryEmbedding for an
// imageSize×imageSize tile cut into patchSize patches: idx = imageSize / patchSize, the
// idx² patches row-major then the CLS token last (Llama4VisionModel appends
// class_embedding after the patches), idx²+1 tokens.
//
// HF builds freqs_ci as complex numbers cos + i·sin with, for patch k at column x = k % idx
// and row y = k / idx, freq_dim = head_dim / 2 angles: (x+1)·rope_freq_j for j < freq_dim/2,
// then (y+1)·rope_freq_j, with rope_freq_j = 1 / theta^(2j / freq_dim) (coordinates are
// 1-based). The CLS token's img_idx is −2 (ID_CLS_TOKEN) and its angles are masked to 0, so
// its row is cos 1, sin 0: the identity. vision_apply_rotary_emb multiplies consecutive
// element pairs (view_as_complex of reshape(..., -1, 2)) by freqs_ci: GPT-J style, so the
// tables repeat each angle in both slots of its pair.
//
// headDim is the vision head size (hidden_size / num_attention_heads: 1408 / 16 = 88 in the
// published Llama 4 configs, with image_size 336 and patch_size 14) and must be a multiple of 4; theta 0 means 10000 (Llama4VisionConfig's
// rope_theta). HF computes in float32; this computes in float64 and rounds once.
func Llama4VisionCosSin(imageSize, patchSize, headDim int, theta float64) (VisionCosSin, error) {
	theta, err := checkTheta(theta)
	if err != nil {
		return VisionCosSin{}, err
	}
	if patchSize < 1 || imageSize < patchSize || imageSize > 1<<16 {
		return VisionCosSin{}, visionErr("image size %d, patch size %d: want 1 ≤ patch size ≤ image size ≤ 65536", imageSize, patchSize)
	}
	if headDim < 4 || headDim%4 != 0 || headDim > 1<<16 {
		return VisionCosSin{}, visionErr("head dim %d: want a multiple of 4 in 4..65536 (freq_dim = head_dim/2 must split into x and y halves)", headDim)
	}
	idx := imageSize / patchSize
	// In int64: idx² reaches 2^32, past a 32-bit int.
	tokens := int64(idx)*int64(idx) + 1
	if err := checkTable(tokens, headDim); err != nil {
		return VisionCosSin{}, err
	}
	freqDim := headDim / 2
	quarter := freqDim / 2
	inv := visionInvFreq(theta, freqDim, quarter)
	return buildCosSin(int(tokens), headDim, rope.GPTJ, func(k, i int) float64 {
		if k == idx*idx {
			return 0 // CLS: freqs.masked_fill(img_idx < 0, 0)
		}
		if i < quarter {
			return float64(k%idx+1) * inv[i]
		}
		return float64(k/idx+1) * inv[i-quarter]
	}), nil
}

// Apply rotates each of xs in place by the vision cos/sin, as HF's
// apply_rotary_pos_emb_vision (Qwen) or vision_apply_rotary_emb (Llama 4) does, through op
// apply_rotary_emb on dispatcher d (nil: ops.Default; the kernels are linked in by importing
// package rotary or a backend). Each x is
// [Tokens, Heads, Dim] or [Tokens, Dim] in F32, F16 or BF16 and computes in float32. Every x
// is checked before any is written.
func (cs VisionCosSin) Apply(d *ops.Dispatcher, xs ...tensor.Tensor) error {
	// Tokens and Dim are fields anyone can set: multiplied unchecked, 2^32 × 2^32 wrapped to 0
	// and matched empty tables.
	if n, ok := mul64(int64(cs.Tokens), int64(cs.Dim)); cs.Tokens < 0 || cs.Dim <= 0 || !ok || int64(len(cs.Cos)) != n || len(cs.Sin) != len(cs.Cos) {
		return visionErr("cos/sin table %d×%d holds %d and %d values", cs.Tokens, cs.Dim, len(cs.Cos), len(cs.Sin))
	}
	jobs := make([]ops.ApplyRotaryEmbArgs, 0, len(xs))
	for n, x := range xs {
		var shape []int
		switch x.Rank() {
		case 2:
			shape = []int{cs.Tokens, cs.Dim}
		case 3:
			shape = []int{cs.Tokens, 1, cs.Dim}
		default:
			return visionErr("tensor %d: shape %v: want [tokens, heads, dim] or [tokens, dim]", n, x.Shape)
		}
		if x.Shape[0] != cs.Tokens || x.Shape[x.Rank()-1] != cs.Dim {
			return visionErr("tensor %d: shape %v: want %d tokens of dim %d", n, x.Shape, cs.Tokens, cs.Dim)
		}
		cos, sin := tensor.FromF32(cs.Cos, shape...), tensor.FromF32(cs.Sin, shape...)
		a, err := ops.NewApplyRotaryEmb(ops.ApplyRotaryEmbParams{X: x, Cos: cos, Sin: sin, Out: x, Style: cs.Style})
		if err != nil {
			return visionErr("tensor %d: %v", n, err)
		}
		jobs = append(jobs, a)
	}
	if d == nil {
		d = ops.Default
	}
	for _, a := range jobs {
		if _, err := ops.Run(d, ops.ApplyRotaryEmb, a); err != nil {
			return err
		}
	}
	return nil
}
