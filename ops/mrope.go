package ops

import "fmt"

// MRoPEArgs are the arguments of op mrope: pair i of token t takes its cos/sin from row
// Positions.At(axis(i), t) of Cache, where the axis follows Sections (chunked) or the
// Qwen3-VL interleaving.
type MRoPEArgs struct {
	RoPE
	Positions   Positions
	Cache       CosSinCache
	Sections    []int
	Interleaved bool
}

// MRoPE is the op.
var MRoPE = NewOp[MRoPEArgs]("mrope")

// ParseMRoPECacheMode reads torch_npu npu_mrope's cache_mode: "default" (chunked sections,
// Qwen2-VL) or "interleave" (Qwen3-VL), reporting whether it is the interleaved one.
func ParseMRoPECacheMode(s string) (interleaved bool, err error) {
	switch s {
	case "default":
		return false, nil
	case "interleave":
		return true, nil
	}
	return false, fmt.Errorf("cache_mode %q: want default or interleave", s)
}
