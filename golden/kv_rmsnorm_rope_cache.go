package golden

import (
	"fmt"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

func init() {
	register(&Op{
		Name:    "kv_rmsnorm_rope_cache",
		Summary: "kv, gamma, cos, sin, index, k_cache, ckv_cache [, k_rope_scale, c_kv_scale, k_rope_offset, c_kv_offset] → k_cache, ckv_cache updated [, k_rope, c_kv] (DeepSeek MLA, --cache-mode)",
		// torch_npu npu_kv_rmsnorm_rope_cache's cache_mode, epsilon, is_output_kv.
		Params: []Param{
			{Name: "cache-mode", Kind: String, Default: "Norm", Usage: "kv_rmsnorm_rope_cache cache `MODE`: Norm, PA, PA_BNSD, PA_NZ, PA_BLK_BNSD, PA_BLK_NZ"},
			{Name: "epsilon", Kind: Float, Default: "1e-05", Usage: "RMSNorm `EPSILON` added to the mean square"},
			{Name: "output-kv", Kind: Bool, Default: "false", Usage: "kv_rmsnorm_rope_cache: also write k_rope and c_kv (every token's unquantised results)"},
		},
		Reads: []string{"cache-mode", "epsilon", "output-kv"},
		Run:   runKVRMSNormRoPECache,
	})
}

// cacheMode reads --cache-mode.
func cacheMode(a Args) (ops.CacheMode, error) {
	mode, err := ops.ParseCacheMode(a.str("cache-mode"))
	if err != nil {
		return mode, fmt.Errorf("--cache-mode: %v", err)
	}
	return mode, nil
}

func runKVRMSNormRoPECache(c *Call) ([]safetensors.Tensor, error) {
	mode, err := cacheMode(c.Args)
	if err != nil {
		return nil, err
	}
	eps, err := c.Args.float("epsilon")
	if err != nil {
		return nil, err
	}
	outputKV, err := c.Args.bool("output-kv")
	if err != nil {
		return nil, err
	}
	in, err := c.inputsNamed("kv", "gamma", "cos", "sin", "index", "k_cache", "ckv_cache")
	if err != nil {
		return nil, err
	}
	p := ops.KVRMSNormRoPECacheParams{
		KV: in[0], Gamma: in[1], Cos: in[2], Sin: in[3], Index: in[4], KCache: in[5], CKVCache: in[6],
		// Optional: a missing name is the zero Tensor, which the op reads as absent.
		KRoPEScale: c.Inputs["k_rope_scale"], CKVScale: c.Inputs["c_kv_scale"],
		KRoPEOffset: c.Inputs["k_rope_offset"], CKVOffset: c.Inputs["c_kv_offset"],
		Epsilon: eps, CacheMode: mode,
	}
	if outputKV {
		kv := p.KV
		if kv.Rank() != 4 || !kv.DType.IsFloat() || p.Cos.Rank() != 4 || p.Gamma.Rank() != 1 {
			// Let the op's checks describe what is wrong.
			_, err := ops.NewKVRMSNormRoPECache(p)
			if err == nil {
				err = fmt.Errorf("kv: want [B, 1, S, Dv+Dk]")
			}
			return nil, err
		}
		p.KRoPE = tensor.Zeros(kv.DType, kv.Shape[0], 1, kv.Shape[2], p.Cos.Shape[3])
		p.CKV = tensor.Zeros(kv.DType, kv.Shape[0], 1, kv.Shape[2], p.Gamma.Shape[0])
	}
	// The caches are the inputs' tensors: updated in place.
	if err := rotary.KVRMSNormRoPECache(c.Dispatcher, p); err != nil {
		return nil, err
	}
	results := []safetensors.Tensor{toFile("k_cache", p.KCache), toFile("ckv_cache", p.CKVCache)}
	if outputKV {
		results = append(results, toFile("k_rope", p.KRoPE), toFile("c_kv", p.CKV))
	}
	return results, nil
}
