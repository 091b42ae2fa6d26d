package bench

import (
	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// qwen3_8B is Qwen3-8B's attention: 32 query and 8 key/value heads of 128, q_norm/k_norm
// before a full-width NeoX RoPE with theta 1e6.
var qwen3_8B = rotary.Spec{HeadSize: 128, RotaryDim: 128, Base: 1000000, Style: rotary.NeoX, MaxPositions: 16384}

func init() {
	Register(Case{Op: ops.QKRMSNormRoPE.Name(), Model: "qwen3-8b", MaxTokens: 16384, Setup: forwardSetup(qwen3_8B, 32, 8, true),
		Derive: plainRoPE(func(s Shape) SetupFunc { return forwardSetup(s.Spec, s.Heads, s.KVHeads, true) })})
}

// signs is a norm weight of ±1 (random signs). The bench applies qk_rmsnorm_rope to the same
// tensors over and over, in place: with weights of other magnitudes each application scales
// elements apart and renormalizes, so the data would converge to a few large elements and
// zeros and subnormals everywhere else, and the figures would time the kernels' subnormal
// fallback instead of the op. Unit weights keep every element's scale; the arithmetic done is
// the same for any weight.
func signs(d tensor.DType, n int) tensor.Tensor {
	w := Filled(d, n)
	for i := range n {
		v := float32(1)
		if w.Float64At(i) < 0 {
			v = -1
		}
		if d == tensor.F32 {
			w.F32[i] = v
		} else {
			w.Bits[i] = tensor.FromFloat32(d, v)
		}
	}
	return w
}
