package bench

import (
	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
)

// qwen3_8B is Qwen3-8B's attention: 32 query and 8 key/value heads of 128, q_norm/k_norm
// before a full-width NeoX RoPE with theta 1e6.
var qwen3_8B = rotary.Spec{HeadSize: 128, RotaryDim: 128, Base: 1000000, Style: rotary.NeoX, MaxPositions: 16384}

func init() {
	Register(Case{Op: ops.QKRMSNormRoPE.Name(), Model: "qwen3-8b", MaxTokens: 16384, Setup: forwardSetup(qwen3_8B, 32, 8, true)})
}
