package bench

import (
	"fmt"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
)

// qwen3VL is Qwen3-VL's text attention: 32 query and 8 key/value heads of 128, interleaved
// MRoPE sections.
var qwen3VL = rotary.Spec{HeadSize: 128, RotaryDim: 128, Base: 5000000, Style: rotary.NeoX, MaxPositions: 16384,
	MRoPE: &rotary.MRoPE{Sections: []int{24, 20, 20}, Interleaved: true}}

// mrope is Embedding.Forward of q and k at MRoPE positions (distinct per axis, as image tokens
// have) on Qwen3-VL shapes.
func init() {
	Register(Case{Op: ops.MRoPE.Name(), Model: "qwen3-vl", MaxTokens: 16384, Setup: forwardSetup(qwen3VL, 32, 8, false),
		Derive: func(s Shape) (SetupFunc, error) {
			if s.Spec.MRoPE == nil {
				return nil, fmt.Errorf("%s has no mrope_section: bench --op rotary_embedding", s.Name)
			}
			return forwardSetup(s.Spec, s.Heads, s.KVHeads, false), nil
		}})
}
