package rotary

import "github.com/rotary-go/rotary/ops"

// ApplyRotaryEmbParams are ApplyRotaryEmb's arguments (see ops.ApplyRotaryEmbParams).
type ApplyRotaryEmbParams = ops.ApplyRotaryEmbParams

// ApplyRotaryEmbBackwardParams are ApplyRotaryEmbBackward's arguments.
type ApplyRotaryEmbBackwardParams = ops.ApplyRotaryEmbBackwardParams

// ApplyRotaryEmb is op apply_rotary_emb (torch_npu npu_rotary_mul, npu_apply_rotary_pos_emb):
// out = x·cos + rotate(x)·sin with cos and sin already gathered at full rotary width (each
// pair's value in both of its slots: cat(freqs, freqs) for NeoX, repeat_interleave for GPT-J).
//
// p.Layout is BSND, BNSD, SBND (4-D) or THD (3-D), or "" for any rank; cos and sin have x's
// rank and each of their dimensions equals x's or is 1 (broadcast). A cos last dimension below
// x's rotates only that many leading elements and copies the rest. out has x's shape and dtype
// and may be x itself. d chooses the backend (nil: ops.Default). On error nothing is written.
func ApplyRotaryEmb(d *ops.Dispatcher, p ApplyRotaryEmbParams) error {
	a, err := ops.NewApplyRotaryEmb(p)
	if err != nil {
		return err
	}
	_, err = ops.Run(dispatcher(d), ops.ApplyRotaryEmb, a)
	return err
}

// ApplyRotaryEmbBackward is apply_rotary_emb's backward pass for training: from the output
// gradient dy it writes dx = dy·cos + rotateᵀ(dy·sin) and, when given (non-zero tensors, shaped
// like cos), dcos = Σ dy·x and dsin = Σ dy·rotate(x) over the dimensions cos broadcasts along.
func ApplyRotaryEmbBackward(d *ops.Dispatcher, p ApplyRotaryEmbBackwardParams) error {
	a, err := ops.NewApplyRotaryEmbBackward(p)
	if err != nil {
		return err
	}
	_, err = ops.Run(dispatcher(d), ops.ApplyRotaryEmbBackward, a)
	return err
}
