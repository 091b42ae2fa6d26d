package bench

import "github.com/rotary-go/rotary/ops"

// rotary_embedding is Embedding.Forward of q and k from the cos/sin cache on Llama-3-8B shapes.
func init() {
	Register(Case{Op: ops.RotaryEmbedding.Name(), Model: "llama-3-8b", MaxTokens: 16384, Setup: forwardSetup(llama3, 32, 8, false),
		Derive: plainRoPE(func(s Shape) SetupFunc { return forwardSetup(s.Spec, s.Heads, s.KVHeads, false) })})
}
