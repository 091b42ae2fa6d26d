package main

import (
	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/safetensors"
)

func init() {
	registerApplyOp("rotary_embedding_gathered", &applyOp{
		golden:     goldenQueryKey,
		reads:      []string{"layout"},
		summary:    "as rotary_embedding (--layout included), through the hoisted gather: cos/sin gathered once for the positions, then applied to query and key",
		needsModel: true,
		run:        runRotaryEmbeddingGathered,
	})
}

// runRotaryEmbeddingGathered runs the per-forward-pass path a model runner takes (Gather once,
// Apply per layer) on one layer's query and key; its output equals rotary_embedding's bit for
// bit.
func runRotaryEmbeddingGathered(env *applyEnv) ([]safetensors.Tensor, error) {
	in, err := env.inputsNamed("positions", "query")
	if err != nil {
		return nil, err
	}
	positions, query := in[0], in[1]
	if positions, err = batchPositions(positions); err != nil {
		return nil, err
	}
	key := env.inputs["key"]
	positions, query, key, back, err := qkTokenMajor("rotary_embedding_gathered", rotaryLayout, positions, query, key)
	if err != nil {
		return nil, err
	}
	if env.spec.DualChunk != nil {
		return nil, usagef("rotary_embedding_gathered: dual-chunk models map positions per query variant (use --op rotary_embedding)")
	}
	emb, err := env.embedding(positions)
	if err != nil {
		return nil, err
	}
	var cs rotary.CosSin
	if err := emb.Gather(positions, &cs); err != nil {
		return nil, usageError{err}
	}
	if err := cs.Apply(query, key); err != nil {
		return nil, usageError{err}
	}
	return queryKey(back(query), back(key)), nil
}
