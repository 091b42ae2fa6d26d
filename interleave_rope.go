package rotary

import "github.com/rotary-go/rotary/ops"

// InterleaveRoPEParams are InterleaveRoPE's arguments (see ops.InterleaveRoPEParams).
type InterleaveRoPEParams = ops.InterleaveRoPEParams

// InterleaveRoPE is op interleave_rope, torch_npu's npu_interleave_rope: GPT-J-paired input
// rotated into NeoX order, DeepSeek's apply_rotary_pos_emb (ops.InterleaveRoPEArgs gives the
// formula and the shapes). out may be x. d chooses the backend (nil: ops.Default). On error
// nothing is written.
func InterleaveRoPE(d *ops.Dispatcher, p InterleaveRoPEParams) error {
	a, err := ops.NewInterleaveRoPE(p)
	if err != nil {
		return err
	}
	_, err = ops.Run(dispatcher(d), ops.InterleaveRoPE, a)
	return err
}
