package oot

import (
	"sync/atomic"

	"github.com/rotary-go/rotary/backend/native"
	"github.com/rotary-go/rotary/ops"
)

// Backend is the name the override registers under: ops.Calls and Dispatcher.Which report it.
const Backend = "oot-example"

// Op is the op this package overrides.
const Op = "rotary_embedding"

// Calls counts the rotary_embedding calls Rotate has served.
var Calls atomic.Uint64

// Register installs Rotate as the out-of-tree implementation of rotary_embedding, replacing any
// earlier override of it.
func Register() error {
	return ops.RegisterOOT(Op, Backend, Rotate)
}

// Rotate is the override: it receives arguments the registry has already checked, and must
// rotate a.Query (and a.Key when present) in place, token t by cache row a.Positions.At(0, t).
// The arguments arrive by value, as every op's do, so the hot path does not allocate.
func Rotate(a ops.RotaryEmbeddingArgs) {
	Calls.Add(1)
	native.RotaryEmbedding(&a)
}
