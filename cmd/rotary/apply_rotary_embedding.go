package main

import (
	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

func init() {
	registerApplyOp("rotary_embedding", &applyOp{
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
