package golden

import (
	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

func init() {
	register(&Op{
		Name:    "rotary_embedding",
		Summary: "positions, query [T,H,D] or [T,H·D], optional key → query, key rotated in place (mrope for MRoPE models); --layout BNSD: Hugging Face's q/k [B,H,S,D] and position_ids [B,S] (BSND, SBND likewise)",
		Model:   ModelRequired,
		Reads:   []string{"layout"},
		Run:     runRotaryEmbedding,
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
