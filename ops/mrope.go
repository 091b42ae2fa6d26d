package ops

import (
	"fmt"

	"github.com/rotary-go/rotary/rope"
)

// MRoPEArgs are the arguments of op mrope: pair i of token t takes its cos/sin from row
// Positions.At(axis(i), t) of Cache, where the axis follows Sections (chunked) or the
// Qwen3-VL interleaving (Hugging Face's, or llama.cpp's IMROPE with its fourth row).
type MRoPEArgs struct {
	RoPE
	Positions   Positions
	Cache       CosSinCache
	Sections    []int
	Interleaved bool
	// AlternateHW is ERNIE-4.5-VL's layout (rope.MRoPE.AlternateHW); the caller has checked
	// that Sections suit it.
	AlternateHW bool
	// GGMLFourth is llama.cpp's IMROPE layout (rope.MRoPE.GGMLFourth): the pairs no section
	// claims take position row 3. The caller has checked that Sections has four entries and
	// Positions four rows.
	GGMLFourth bool
}

// Axis is the position row pair i takes its cos/sin from (rope.MRoPE.Axis).
func (a *MRoPEArgs) Axis(i int) int {
	m := rope.MRoPE{Sections: a.Sections, Interleaved: a.Interleaved, AlternateHW: a.AlternateHW, GGMLFourth: a.GGMLFourth}
	return m.Axis(i)
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
