package bench

import (
	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

func init() {
	Register(Case{Op: ops.KVRMSNormRoPECache.Name(), Model: "deepseek-v3", MaxTokens: 16384, Setup: kvRmsNormRopeCacheSetup})
}

// kvRmsNormRopeCacheSetup times one layer's cache update of `tokens` decode tokens (B = tokens,
// S = 1) into PA_BNSD caches of the kv dtype, as vLLM-Ascend calls it, slots in order: kv, gamma,
// cos, sin and the index read, and in both caches the slots of the tokens written (the first
// `tokens`: the rest of the last block is not touched).
func kvRmsNormRopeCacheSetup(d tensor.DType, tokens int, disp *ops.Dispatcher) (func() error, []Operand, error) {
	blocks := (tokens + dsBlockSize - 1) / dsBlockSize
	index := make([]int64, tokens)
	for i := range index {
		index[i] = int64(i)
	}
	p := ops.KVRMSNormRoPECacheParams{
		KV: Filled(d, tokens, 1, 1, dsDv+dsDk), Gamma: Filled(d, dsDv),
		Cos: Filled(d, tokens, 1, 1, dsDk), Sin: Filled(d, tokens, 1, 1, dsDk),
		Index:  tensor.FromI64(index, tokens),
		KCache: tensor.Zeros(d, blocks, dsBlockSize, 1, dsDk), CKVCache: tensor.Zeros(d, blocks, dsBlockSize, 1, dsDv),
		Epsilon: 1e-6, CacheMode: ops.CachePABNSD,
	}
	touched := append(Reads(p.KV, p.Gamma, p.Cos, p.Sin, p.Index),
		Operand{Write, TensorBytes(p.KCache)[:tokens*dsDk*d.Size()]},
		Operand{Write, TensorBytes(p.CKVCache)[:tokens*dsDv*d.Size()]})
	return func() error { return rotary.KVRMSNormRoPECache(disp, p) }, touched, nil
}
