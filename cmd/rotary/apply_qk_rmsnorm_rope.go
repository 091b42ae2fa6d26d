package main

import ()

func init() { goldenMakers["qk_rmsnorm_rope"] = goldenQKRMSNorm }

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
