package cpu

import "github.com/rotary-go/rotary/ops"

func init() {
	ops.RotaryEmbedding.Register(&ops.Impl[ops.RotaryEmbeddingArgs]{Backend: Name, Priority: 10, Fn: func(a ops.RotaryEmbeddingArgs) {
		j := (*rotaryEmbeddingJob)(&a)
		if !worthThreads(a.Query.Tokens, &a.RoPE) || !parallel(j, a.Query.Tokens) {
			j.run(0, a.Query.Tokens)
		}
	}})
}

// rotaryEmbeddingJob is a rotary_embedding call as the pool runs it, by token: the arguments
// themselves, so that a call run inline runs them where they are.
type rotaryEmbeddingJob ops.RotaryEmbeddingArgs

var rotaryEmbeddingSlot rotaryEmbeddingJob

func (*rotaryEmbeddingJob) slot() *rotaryEmbeddingJob { return &rotaryEmbeddingSlot }

func (j *rotaryEmbeddingJob) run(lo, hi int) {
	k := active
	if j.Cache.Half == 0 {
		return
	}
	var rows [tokenBlock]*float32
	for t0 := lo; t0 < hi; t0 += tokenBlock {
		t1 := min(hi, t0+tokenBlock)
		for t := t0; t < t1; t++ {
			cos, _ := j.Cache.Row(j.Positions.At(0, t))
			rows[t-t0] = &cos[0]
		}
		rotateTokens(k, &j.RoPE, t0, rows[:t1-t0], j.Cache.Half)
	}
}
