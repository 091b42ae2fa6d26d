package main

import (
	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

func init() {
	registerApplyOp("rotary_embedding", &applyOp{
		golden:     goldenQueryKey,
		reads:      []string{"layout"},
		summary:    "positions, query [T,H,D] or [T,H·D], optional key → query, key rotated in place (mrope for MRoPE models); --layout BNSD: Hugging Face's q/k [B,H,S,D] and position_ids [B,S] (BSND, SBND likewise)",
		needsModel: true,
		run:        runRotaryEmbedding,
	})
}

// runRotaryEmbedding is the default op: the model's RoPE at the given positions.
func runRotaryEmbedding(env *applyEnv) ([]safetensors.Tensor, error) {
	spec := env.spec
	positions, err := env.tensor("positions")
	if err != nil {
		return nil, err
	}
	if positions, err = batchPositions(positions); err != nil {
		return nil, err
	}
	query, err := env.tensor("query")
	if err != nil {
		return nil, err
	}
	key := env.inputs["key"] // optional: the zero Tensor means none
	positions, query, key, back, err := qkTokenMajor("rotary_embedding", rotaryLayout, positions, query, key)
	if err != nil {
		return nil, err
	}

	emb, err := env.embedding(positions)
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
			return nil, usageError{err}
		}
		results = append(results, toFile("query_succ", back(extra.Succ)), toFile("query_inter", back(extra.Inter)),
			toFile("query_succ_critical", back(extra.SuccCritical)), toFile("query_inter_critical", back(extra.InterCritical)))
	} else if err := emb.Forward(positions, query, key); err != nil {
		return nil, usageError{err}
	}
	return append(results, queryKey(back(query), back(key))...), nil
}

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
	return []goldenInput{{"positions", pos}, {"query", g.values("query", shape(hq)...)}, {"key", g.values("key", shape(hk)...)}}, nil
}
