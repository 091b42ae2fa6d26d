package ops

// GatheredArgs are the arguments of a rotation by cos/sin already gathered per token (the
// hoisted gather): token t uses Cos[t·Half : (t+1)·Half] and the same of Sin.
type GatheredArgs struct {
	RoPE
	Cos, Sin []float32
	Half     int
}

// RotaryEmbeddingGather is the op: rotary_embedding with the per-pass gather hoisted out.
var RotaryEmbeddingGather = NewOp[GatheredArgs]("rotary_embedding_gathered")
