package main

import (
	"github.com/rotary-go/rotary/golden"
	"github.com/rotary-go/rotary/ops"
)

func init() { goldenMakers["rotary_embedding"] = goldenQueryKey }

// goldenQueryKey: positions (one row per MRoPE section), query [T, Hq, D], key [T, Hk, D]; with
// --layout (rotary_embedding and its gathered form), one sequence's q/k in the layout, BNSD
// [1, H, T, D] as Hugging Face holds them, and positions [1, T] (MRoPE [rows, 1, T]).
func goldenQueryKey(g *goldenGen) ([]goldenInput, error) {
	hq, hk := g.heads()
	T, D := g.c.tokens, g.spec.HeadSize
	pos := g.positions(g.positionRows())
	shape := func(h int) []int { return []int{T, h, D} }
	if g.o.userSet["layout"] && (g.o.op == "rotary_embedding" || g.o.op == "rotary_embedding_gathered") {
		layout, err := ops.ParseLayout(g.opFlag("layout", ""))
		if err != nil {
			return nil, usagef("--layout: %v", err)
		}
		if axes, ok := golden.QKLayoutAxes[layout]; ok {
			shape = func(h int) []int {
				bshd, s := []int{1, T, h, D}, make([]int, 4)
				for k, a := range axes {
					s[a] = bshd[k]
				}
				return s
			}
			if pos.Rank() == 1 {
				pos.Shape = []int{1, T}
			} else if pos.Rank() == 2 {
				pos.Shape = []int{pos.Shape[0], 1, T}
			}
		}
	}
	return []goldenInput{{"positions", pos}, {"query", g.values("query", shape(hq)...)}, {"key", g.values("key", shape(hk)...)}}, nil
}
