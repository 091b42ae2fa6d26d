package rotary

import "github.com/rotary-go/rotary/ops"

// InterleaveRoPEParams are InterleaveRoPE's arguments (see ops.InterleaveRoPEParams).
type InterleaveRoPEParams = ops.InterleaveRoPEParams

// InterleaveRoPE is op interleave_rope, torch_npu's npu_interleave_rope (aclnnInterleaveRope):
// GPT-J-paired input, NeoX-ordered output. Each row x of x [B, N, S, D] is de-interleaved,
// q = reshape(x, [D/2, 2]).transpose(-1, -2).reshape(D) = (x0, x2, …, x_{D−2}, x1, x3, …, x_{D−1}),
// and then out = q·cos + rotate_half(q)·sin, written in q's order:
//
//	out[i]       = x[2i]·cos[i]         − x[2i+1]·sin[i]
//	out[D/2 + i] = x[2i+1]·cos[D/2 + i] + x[2i]·sin[D/2 + i]    (i < D/2)
//
// This is DeepSeek's apply_rotary_pos_emb (which de-interleaves q and k before rotate_half): the
// output order differs from the input's, unlike ApplyRotaryEmb with GPT-J style, which writes
// each pair back where it was read. Attention scores are the same either way as long as q and k
// both go through it.
//
// cos and sin are [B, 1, S, D] at full width in NeoX layout (cat(freqs, freqs)); any of their
// first three dimensions may be 1 or x's (broadcast). out has x's shape and dtype and may be x.
// The NPU kernel accepts only D = 64, N = 1 for cos/sin, S = 1 or x's, F16/BF16 with cos/sin in
// x's dtype, for inference; this reference takes any even D and float dtypes. d chooses the
// backend (nil: ops.Default). On error nothing is written.
func InterleaveRoPE(d *ops.Dispatcher, p InterleaveRoPEParams) error {
	a, err := ops.NewInterleaveRoPE(p)
	if err != nil {
		return err
	}
	_, err = ops.Run(dispatcher(d), ops.InterleaveRoPE, a)
	return err
}
