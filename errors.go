package rotary

import (
	"errors"
	"fmt"
)

var (
	errNotGathered = errors.New("cos/sin: nothing gathered yet (call Embedding.Gather first)")
	errDualChunk   = errors.New("dual-chunk rope: use Embedding.DualChunk, which maps positions per query variant")
	errNotBuilt    = errors.New("rotary: the Embedding is nil or zero: build it with rotary.New")
	errNilDst      = errors.New("dst: nil *CosSin: want a CosSin to gather into")
	errNoRoPE      = errors.New("the spec has no RoPE (NoRoPE: a layer without position embedding): there is no cos/sin table")
)

func errTokens(got, want int) error {
	return fmt.Errorf("query: %d tokens, but cos/sin were gathered for %d positions", got, want)
}
