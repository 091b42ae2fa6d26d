package native

import "github.com/rotary-go/rotary/ops"

func init() {
	ops.RotaryEmbedding.Register(&ops.Impl[ops.RotaryEmbeddingArgs]{Backend: ops.Native, Fn: func(a ops.RotaryEmbeddingArgs) { RotaryEmbedding(&a) }})
}

// RotaryEmbedding is op rotary_embedding: token t rotates by cache row positions[t].
func RotaryEmbedding(a *ops.RotaryEmbeddingArgs) {
	for t := range a.Query.Tokens {
		cos, sin := a.Cache.Row(a.Positions.At(0, t))
		rotateQK(&a.RoPE, t, cos, sin)
	}
}
