package ops

// RotaryEmbeddingArgs are the arguments of op rotary_embedding (vLLM RotaryEmbedding.forward):
// token t rotates by row Positions.At(0, t) of Cache.
type RotaryEmbeddingArgs struct {
	RoPE
	Positions Positions
	Cache     CosSinCache
}

// RotaryEmbedding is the op. Its native implementation is registered by backend/native.
var RotaryEmbedding = NewOp[RotaryEmbeddingArgs]("rotary_embedding")
