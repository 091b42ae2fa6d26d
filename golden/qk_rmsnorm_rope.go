package golden

import (
	"fmt"

	"github.com/rotary-go/rotary/safetensors"
)

func init() {
	register(&Op{
		Name:    "qk_rmsnorm_rope",
		Summary: "positions, query, key, q_weight [D], k_weight [D] → query, key RMS-normalized per head (Qwen3 q_norm/k_norm) then rotated",
		Model:   ModelRequired,
		Params:  []Param{{Name: "epsilon-qk", Kind: Float, Default: "1e-06", Usage: "qk_rmsnorm_rope norm `epsilon` (rms_norm_eps)"}},
		Reads:   []string{"epsilon-qk"},
		run:     runQKRMSNormRoPE,
		inputs:  goldenQKRMSNorm,
	})
}

func runQKRMSNormRoPE(c *Call) ([]safetensors.Tensor, error) {
	in, err := c.inputsNamed("positions", "query", "q_weight")
	if err != nil {
		return nil, err
	}
	positions, query, qWeight := in[0], in[1], in[2]
	if positions, err = BatchPositions(positions); err != nil {
		return nil, err
	}
	key, kWeight := c.Inputs["key"], c.Inputs["k_weight"]
	if !key.IsZero() && kWeight.IsZero() {
		return nil, fmt.Errorf("%s: missing tensor %q (the input has a key)", c.Source, "k_weight")
	}
	if c.Spec.DualChunk != nil {
		return nil, fmt.Errorf("qk_rmsnorm_rope: dual-chunk models are not supported (use --op rotary_embedding)")
	}
	eps, err := c.Args.float("epsilon-qk")
	if err != nil {
		return nil, err
	}
	emb, err := c.embedding(positions)
	if err != nil {
		return nil, err
	}
	if err := emb.ForwardQKNorm(positions, query, key, qWeight, kWeight, eps); err != nil {
		return nil, err
	}
	return queryKey(query, key), nil
}

// goldenQKRMSNorm: goldenQueryKey's tensors and the norms' weights q_weight, k_weight [D];
// --epsilon-qk is the config's rms_norm_eps when it has one (Qwen3's q_norm and k_norm use it).
func goldenQKRMSNorm(g *gen) ([]input, error) {
	if eps, ok := configRMSNormEps(g.o.Model.JSON); ok {
		g.opFlag("epsilon-qk", eps)
	}
	in, _ := goldenQueryKey(g)
	D := g.spec.HeadSize
	return append(in, input{"q_weight", g.values("q_weight", D)}, input{"k_weight", g.values("k_weight", D)}), nil
}
