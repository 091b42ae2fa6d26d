package cpu

import "github.com/rotary-go/rotary/ops"

func init() {
	ops.RotaryEmbedding.Register(&ops.Impl[ops.RotaryEmbeddingArgs]{Backend: Name, Priority: 10, Fn: func(a ops.RotaryEmbeddingArgs) {
		if !worthThreads(a.Query.Tokens, &a.RoPE) {
			rotaryEmbedding(&a, 0, a.Query.Tokens)
			return
		}
		parallel(&job{kind: jobRotaryEmbedding, re: a}, a.Query.Tokens)
	}})
}

func rotaryEmbedding(a *ops.RotaryEmbeddingArgs, lo, hi int) {
	k := active
	for t := lo; t < hi; t++ {
		cos, sin := a.Cache.Row(a.Positions.At(0, t))
		rotateQK(k, &a.RoPE, t, cos, sin)
	}
}
