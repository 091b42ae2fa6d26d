package rotary

import "github.com/rotary-go/rotary/ops"

// ApplyRotaryEmbTHDParams are ApplyRotaryEmbTHD's arguments (see ops.ApplyRotaryEmbTHDParams).
type ApplyRotaryEmbTHDParams = ops.ApplyRotaryEmbTHDParams

// ApplyRotaryEmbTHDBackwardParams are ApplyRotaryEmbTHDBackward's arguments.
type ApplyRotaryEmbTHDBackwardParams = ops.ApplyRotaryEmbTHDBackwardParams

// ApplyRotaryEmbTHD is op apply_rotary_emb_thd, TransformerEngine's fused RoPE on packed
// sequences (fused_apply_rotary_pos_emb_thd) with its context-parallel split: x holds the tokens
// of several sequences back to back, and each token rotates by the cos/sin row of its position
// within its own sequence.
//
// p.X and p.Out are [T, H, D] (Out may be X itself). Cos and Sin are tables [S, d] at full rotary
// width, like ApplyRotaryEmb's (each pair's value in both of its slots: cat(freqs, freqs) for
// NeoX, repeat_interleave for GPT-J; TE's freqs table holds the same angles); d is even and at
// most D, and elements d..D of every head are copied. seqs gives cu_seqlens (the full
// sequences' boundaries, I32 or I64 [B+1], starting at 0, non-decreasing, ending at
// cp_size·T), optional start positions per sequence, and the context-parallel size and rank:
// with cp_size > 1 every sequence length is a multiple of 2·cp_size, and this rank's x holds
// chunks cp_rank and 2·cp_size−1−cp_rank of each sequence. Token s of sequence b rotates by row
// start_positions[b] + (its index in the full sequence); every such row must exist.
//
// d chooses the backend (nil: ops.Default). On error nothing is written.
func ApplyRotaryEmbTHD(d *ops.Dispatcher, p ApplyRotaryEmbTHDParams) error {
	a, err := ops.NewApplyRotaryEmbTHD(p)
	if err != nil {
		return err
	}
	_, err = ops.Run(dispatcher(d), ops.ApplyRotaryEmbTHD, a)
	return err
}

// ApplyRotaryEmbTHDBackward is ApplyRotaryEmbTHD's backward pass for training: from the output
// gradient dy it writes dx = dy·cos + rotateᵀ(dy·sin) on the rotated elements and dx = dy on the
// rest (dx may be dy itself). The tables are constants, as in TransformerEngine: no gradient
// flows to them.
func ApplyRotaryEmbTHDBackward(d *ops.Dispatcher, p ApplyRotaryEmbTHDBackwardParams) error {
	a, err := ops.NewApplyRotaryEmbTHDBackward(p)
	if err != nil {
		return err
	}
	_, err = ops.Run(dispatcher(d), ops.ApplyRotaryEmbTHDBackward, a)
	return err
}
