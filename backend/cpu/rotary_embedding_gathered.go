package cpu

import "github.com/rotary-go/rotary/ops"

func init() {
	ops.RotaryEmbeddingGather.Register(&ops.Impl[ops.GatheredArgs]{Backend: Name, Priority: 10, Fn: func(a ops.GatheredArgs) {
		j := (*gatheredJob)(&a)
		if !worthThreads(a.Query.Tokens, &a.RoPE) || !parallel(j, a.Query.Tokens) {
			j.run(0, a.Query.Tokens)
		}
	}})
}

// gatheredJob is a call of rotary_embedding's gathered form as the pool runs it, by token.
type gatheredJob ops.GatheredArgs

var gatheredSlot gatheredJob

func (*gatheredJob) slot() *gatheredJob { return &gatheredSlot }

func (j *gatheredJob) run(lo, hi int) {
	k := active
	h := j.Half
	for t := lo; t < hi; t++ {
		rotateQK(k, &j.RoPE, t, j.Cos[t*h:(t+1)*h], j.Sin[t*h:(t+1)*h])
	}
}
