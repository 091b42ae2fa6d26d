package native

import "github.com/rotary-go/rotary/ops"

// The reference kernels serve every op when no other backend does.
func init() {
	ops.RotaryEmbedding.Register(&ops.Impl[ops.RotaryEmbeddingArgs]{Backend: ops.Native, Fn: func(a ops.RotaryEmbeddingArgs) { RotaryEmbedding(&a) }})
	ops.RotaryEmbeddingGather.Register(&ops.Impl[ops.GatheredArgs]{Backend: ops.Native, Fn: func(a ops.GatheredArgs) { Gathered(&a) }})
	ops.MRoPE.Register(&ops.Impl[ops.MRoPEArgs]{Backend: ops.Native, Fn: func(a ops.MRoPEArgs) { MRoPE(&a) }})
	ops.ApplyRotaryEmb.Register(&ops.Impl[ops.ApplyRotaryEmbArgs]{Backend: ops.Native, Fn: func(a ops.ApplyRotaryEmbArgs) { ApplyRotaryEmb(&a) }})
	ops.ApplyRotaryEmbBackward.Register(&ops.Impl[ops.ApplyRotaryEmbBackwardArgs]{Backend: ops.Native, Fn: func(a ops.ApplyRotaryEmbBackwardArgs) { ApplyRotaryEmbBackward(&a) }})
}
