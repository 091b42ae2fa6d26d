package main

import (
	"flag"

	"github.com/rotary-go/rotary/safetensors"
)

// qkNormEpsilon is qk_rmsnorm_rope's ε (Qwen3's rms_norm_eps).
var qkNormEpsilon float64

func init() {
	registerApplyOp("qk_rmsnorm_rope", &applyOp{
		golden:     goldenQKRMSNorm,
		reads:      []string{"epsilon-qk"},
		summary:    "positions, query, key, q_weight [D], k_weight [D] → query, key RMS-normalized per head (Qwen3 q_norm/k_norm) then rotated",
		needsModel: true,
		flags: func(fs *flag.FlagSet) {
			fs.Float64Var(&qkNormEpsilon, "epsilon-qk", 1e-6, "qk_rmsnorm_rope norm `epsilon` (rms_norm_eps)")
		},
		run: runQKRMSNormRoPE,
	})
}

func runQKRMSNormRoPE(env *applyEnv) ([]safetensors.Tensor, error) {
	in, err := env.inputsNamed("positions", "query", "q_weight")
	if err != nil {
		return nil, err
	}
	positions, query, qWeight := in[0], in[1], in[2]
	if positions, err = batchPositions(positions); err != nil {
		return nil, err
	}
	key, kWeight := env.inputs["key"], env.inputs["k_weight"]
	if !key.IsZero() && kWeight.IsZero() {
		return nil, usagef("%s: missing tensor %q (the input has a key)", env.inPath, "k_weight")
	}
	spec := env.spec
	if spec.DualChunk != nil {
		return nil, usagef("qk_rmsnorm_rope: dual-chunk models are not supported (use --op rotary_embedding)")
	}
	emb, err := env.embedding(positions)
	if err != nil {
		return nil, err
	}
	if err := emb.ForwardQKNorm(positions, query, key, qWeight, kWeight, qkNormEpsilon); err != nil {
		return nil, usageError{err}
	}
	return queryKey(query, key), nil
}

// goldenQKRMSNorm: goldenQueryKey's tensors and the norms' weights q_weight, k_weight [D];
// --epsilon-qk is the config's rms_norm_eps when it has one (Qwen3's q_norm and k_norm use it).
func goldenQKRMSNorm(g *goldenGen) ([]goldenInput, error) {
	if eps, ok := configRMSNormEps(g.o.configJSON); ok {
		g.opFlag("epsilon-qk", eps)
	}
	in, _ := goldenQueryKey(g)
	D := g.spec.HeadSize
	return append(in, goldenInput{"q_weight", g.values("q_weight", D)}, goldenInput{"k_weight", g.values("k_weight", D)}), nil
}
