package bench

import (
	"fmt"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

func init() {
	Register(Case{Op: ops.KVRMSNormRoPECache.Name(), Model: "deepseek-v3", MaxTokens: 16384, Setup: kvSetup(dsDv, dsDk),
		Derive: func(s Shape) (SetupFunc, error) {
			if s.KVLoRARank <= 0 {
				return nil, fmt.Errorf("%s is not an MLA model (no kv_lora_rank)", s.Name)
			}
			return kvSetup(s.KVLoRARank, s.Spec.RotaryDim), nil
		}})
}

// kvSetup times one layer's cache update of `tokens` decode tokens (B = tokens, S = 1) of a
// latent of dv and a rope part of dk into PA_BNSD caches of the kv dtype, as vLLM-Ascend calls
// it, slots in order: kv, gamma, cos, sin and the index read, and in both caches the slots of
// the tokens written (the first `tokens`: the rest of the last block is not touched).
func kvSetup(dv, dk int) SetupFunc {
	return func(d tensor.DType, tokens int, disp *ops.Dispatcher) (func() error, []Operand, error) {
		blocks := (tokens + dsBlockSize - 1) / dsBlockSize
		index := make([]int64, tokens)
		for i := range index {
			index[i] = int64(i)
		}
		p := ops.KVRMSNormRoPECacheParams{
			KV: Filled(d, tokens, 1, 1, dv+dk), Gamma: Filled(d, dv),
			Cos: Filled(d, tokens, 1, 1, dk), Sin: Filled(d, tokens, 1, 1, dk),
			Index:  tensor.FromI64(index, tokens),
			KCache: tensor.Zeros(d, blocks, dsBlockSize, 1, dk), CKVCache: tensor.Zeros(d, blocks, dsBlockSize, 1, dv),
			Epsilon: 1e-6, CacheMode: ops.CachePABNSD,
		}
		touched := append(Reads(p.KV, p.Gamma, p.Cos, p.Sin, p.Index),
			Operand{Write, TensorBytes(p.KCache)[:tokens*dk*d.Size()]},
			Operand{Write, TensorBytes(p.CKVCache)[:tokens*dv*d.Size()]})
		return func() error { return rotary.KVRMSNormRoPECache(disp, p) }, touched, nil
	}
}
