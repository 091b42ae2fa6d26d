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
	Register(Case{Op: ops.QKRMSNormRoPE.Name(), Model: "qwen3-8b", MaxTokens: 16384, Setup: qkNormSetup(qwen3_8B, 32, 8)})
}

// qkNormSetup times Embedding.ForwardQKNorm of q and k. The bytes are q's and k's read and
// write, as for the rotation alone: the fused norm moves no more memory than that.
func qkNormSetup(spec rotary.Spec, heads, kvHeads int) func(tensor.DType, int, *ops.Dispatcher) (func() error, int, error) {
	return func(d tensor.DType, T int, disp *ops.Dispatcher) (func() error, int, error) {
		emb, err := rotary.New(spec, rotary.WithDispatcher(disp))
		if err != nil {
			return nil, 0, err
		}
		D := spec.HeadSize
		q := Filled(d, T, heads, D)
		k := Filled(d, T, kvHeads, D)
		qw, kw := Filled(d, D), Filled(d, D)
		pos := positions(spec, T)
		bytes := 2 * (q.Len() + k.Len()) * d.Size()
		return func() error { return emb.ForwardQKNorm(pos, q, k, qw, kw, 1e-6) }, bytes, nil
	}
}
