package golden

import (
	"fmt"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/safetensors"
)

func init() {
	register(&Op{
		Name:        "rotary_embedding_gathered",
		Summary:     "as rotary_embedding (--layout included), through the hoisted gather: cos/sin gathered once for the positions, then applied to query and key",
		Model:       ModelRequired,
		Reads:       []string{"layout"},
		run:         runRotaryEmbeddingGathered,
		inputs:      goldenQueryKey,
		withoutRoPE: true,
	})
}

// runRotaryEmbeddingGathered runs the per-forward-pass path a model runner takes (Gather once,
// Apply per layer) on one layer's query and key; its output equals rotary_embedding's bit for
// bit.
func runRotaryEmbeddingGathered(c *Call) ([]safetensors.Tensor, error) {
	in, err := c.inputsNamed("positions", "query")
	if err != nil {
		return nil, err
	}
	positions, query := in[0], in[1]
	if positions, err = BatchPositions(positions); err != nil {
		return nil, err
	}
	key := c.Inputs["key"]
	positions, query, key, back, err := TokenMajor("rotary_embedding_gathered", c.Args.str("layout"), positions, query, key)
	if err != nil {
		return nil, err
	}
	if c.Spec.DualChunk != nil {
		return nil, fmt.Errorf("rotary_embedding_gathered: dual-chunk models map positions per query variant (use --op rotary_embedding)")
	}
	emb, err := c.embedding(positions)
	if err != nil {
		return nil, err
	}
	var cs rotary.CosSin
	if err := emb.Gather(positions, &cs); err != nil {
		return nil, err
	}
	if err := cs.Apply(query, key); err != nil {
		return nil, err
	}
	return queryKey(back(query), back(key)), nil
}
