package golden

import (
	"fmt"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

func init() {
	register(&Op{
		Name:        "rotary_embedding",
		Summary:     "positions, query [T,H,D] or [T,H·D], optional key → query, key rotated in place (mrope for MRoPE models); --layout BNSD: Hugging Face's q/k [B,H,S,D] and position_ids [B,S] (BSND, SBND likewise)",
		Model:       ModelRequired,
		Reads:       []string{"layout"},
		run:         runRotaryEmbedding,
		inputs:      goldenQueryKey,
		withoutRoPE: true,
	})
}

// runRotaryEmbedding is the model's RoPE at the given positions.
func runRotaryEmbedding(c *Call) ([]safetensors.Tensor, error) {
	spec := c.Spec
	positions, err := c.tensor("positions")
	if err != nil {
		return nil, err
	}
	if positions, err = BatchPositions(positions); err != nil {
		return nil, err
	}
	query, err := c.tensor("query")
	if err != nil {
		return nil, err
	}
	key := c.Inputs["key"] // optional: the zero Tensor means none
	positions, query, key, back, err := TokenMajor("rotary_embedding", c.Args.str("layout"), positions, query, key)
	if err != nil {
		return nil, err
	}

	emb, err := c.embedding(positions)
	if err != nil {
		return nil, err
	}
	results := []safetensors.Tensor{}
	if spec.DualChunk != nil {
		extra := rotary.DualChunkQueries{
			Succ: tensor.Zeros(query.DType, query.Shape...), Inter: tensor.Zeros(query.DType, query.Shape...),
			SuccCritical: tensor.Zeros(query.DType, query.Shape...), InterCritical: tensor.Zeros(query.DType, query.Shape...),
		}
		if err := emb.DualChunk(positions, query, key, extra); err != nil {
			return nil, err
		}
		results = append(results, toFile("query_succ", back(extra.Succ)), toFile("query_inter", back(extra.Inter)),
			toFile("query_succ_critical", back(extra.SuccCritical)), toFile("query_inter_critical", back(extra.InterCritical)))
	} else if err := emb.Forward(positions, query, key); err != nil {
		return nil, err
	}
	return append(results, queryKey(back(query), back(key))...), nil
}

// goldenQueryKey: positions (one row per MRoPE section), query [T, Hq, D], key [T, Hk, D]; with
// --layout (rotary_embedding and its gathered form), one sequence's q/k in the layout, BNSD
// [1, H, T, D] as Hugging Face holds them, and positions [1, T] (MRoPE [rows, 1, T]).
func goldenQueryKey(g *gen) ([]input, error) {
	hq, hk := g.heads()
	T, D := g.c.tokens, g.spec.HeadSize
	pos := g.positions(g.positionRows())
	shape := func(h int) []int { return []int{T, h, D} }
	if g.o.Args.given("layout") && (g.o.Op == "rotary_embedding" || g.o.Op == "rotary_embedding_gathered") {
		layout, err := ops.ParseLayout(g.opFlag("layout", ""))
		if err != nil {
			return nil, fmt.Errorf("--layout: %v", err)
		}
		if axes, ok := qkLayoutAxes[layout]; ok {
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
	return []input{{"positions", pos}, {"query", g.values("query", shape(hq)...)}, {"key", g.values("key", shape(hk)...)}}, nil
}
