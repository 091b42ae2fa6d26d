package cpu

import "github.com/rotary-go/rotary/ops"

func init() {
	ops.RotaryEmbeddingGather.Register(&ops.Impl[ops.GatheredArgs]{Backend: Name, Priority: 10, Fn: func(a ops.GatheredArgs) {
		if !worthThreads(a.Query.Tokens, &a.RoPE) {
			gathered(&a, 0, a.Query.Tokens)
			return
		}
		parallel(&job{kind: jobGathered, g: a}, a.Query.Tokens)
	}})
}

func gathered(a *ops.GatheredArgs, lo, hi int) {
	k := active
	h := a.Half
	for t := lo; t < hi; t++ {
		rotateQK(k, &a.RoPE, t, a.Cos[t*h:(t+1)*h], a.Sin[t*h:(t+1)*h])
	}
}
