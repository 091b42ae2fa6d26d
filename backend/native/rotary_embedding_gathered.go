package native

import "github.com/rotary-go/rotary/ops"

func init() {
	ops.RotaryEmbeddingGather.Register(&ops.Impl[ops.GatheredArgs]{Backend: ops.Native, Fn: func(a ops.GatheredArgs) { Gathered(&a) }})
}

// Gathered rotates token t by the t-th row of already gathered cos/sin.
func Gathered(a *ops.GatheredArgs) {
	for t := range a.Query.Tokens {
		rotateQK(&a.RoPE, t, a.Cos[t*a.Half:(t+1)*a.Half], a.Sin[t*a.Half:(t+1)*a.Half])
	}
}
