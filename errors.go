package rotary

import (
	"errors"
	"fmt"
)

var (
	errNotGathered = errors.New("cos/sin: nothing gathered yet (call Embedding.Gather first)")
	errDualChunk   = errors.New("dual-chunk rope: use Embedding.DualChunk, which maps positions per query variant")
)

func errTokens(got, want int) error {
	return fmt.Errorf("query: %d tokens, but cos/sin were gathered for %d positions", got, want)
}
