package bench

import (
	"fmt"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// query_scale on Llama 4 Scout's query (40 heads of 128) with its temperature tuning
// (floor_scale 8192, attn_scale 0.1), a prefill from position 0: past 8191 tokens the scale
// is above 1. Timed over and over in place, those tokens' values grow towards infinity, which
// costs no more than finite values (no subnormals ever appear: nothing shrinks). The query is
// updated in place, the positions read.
func init() {
	Register(Case{Op: ops.QueryScale.Name(), Model: "llama-4-scout", MaxTokens: 16384,
		Setup: queryScaleSetup(40, 128, rotary.QueryScaleRule{Kind: rotary.QueryScaleLlama4, FloorScale: 8192, AttnScale: 0.1}),
		Derive: func(s Shape) (SetupFunc, error) {
			if s.QueryScale.Kind == rotary.QueryScaleNone {
				return nil, fmt.Errorf("%s has no position-dependent query scale", s.Name)
			}
			return queryScaleSetup(s.Heads, s.Spec.HeadSize, s.QueryScale), nil
		}})
}

// queryScaleSetup: a query [T,H,D] scaled in place, positions 0..T−1 read.
func queryScaleSetup(H, D int, rule rotary.QueryScaleRule) SetupFunc {
	return func(d tensor.DType, T int, disp *ops.Dispatcher) (func() error, []Operand, error) {
		q := Filled(d, T, H, D)
		p := make([]int64, T)
		for i := range p {
			p[i] = int64(i)
		}
		pos := tensor.FromI64(p, T)
		return func() error {
			return rotary.QueryScale(disp, rotary.QueryScaleParams{Positions: pos, Query: q, Rule: rule})
		}, append(Updates(q), Reads(pos)...), nil
	}
}
