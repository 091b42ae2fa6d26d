package main

import (
	"flag"
	"strconv"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// Flags of kv_rmsnorm_rope_cache (torch_npu npu_kv_rmsnorm_rope_cache's cache_mode, epsilon,
// is_output_kv). Every op's flags share one flag set, so a name another op already defined is
// not defined twice: the value is read back from the set, whoever defined it.
var kvcFlagSet *flag.FlagSet

func init() {
	registerApplyOp("kv_rmsnorm_rope_cache", &applyOp{
		reads:   []string{"cache-mode", "epsilon", "output-kv"},
		summary: "kv, gamma, cos, sin, index, k_cache, ckv_cache [, k_rope_scale, c_kv_scale, k_rope_offset, c_kv_offset] → k_cache, ckv_cache updated [, k_rope, c_kv] (DeepSeek MLA, --cache-mode)",
		flags: func(fs *flag.FlagSet) {
			kvcFlagSet = fs
			if fs.Lookup("cache-mode") == nil {
				fs.String("cache-mode", "Norm", "kv_rmsnorm_rope_cache cache `MODE`: Norm, PA, PA_BNSD, PA_NZ, PA_BLK_BNSD, PA_BLK_NZ")
			}
			if fs.Lookup("epsilon") == nil {
				fs.Float64("epsilon", 1e-5, "RMSNorm `EPSILON` added to the mean square")
			}
			if fs.Lookup("output-kv") == nil {
				fs.Bool("output-kv", false, "kv_rmsnorm_rope_cache: also write k_rope and c_kv (every token's unquantised results)")
			}
		},
		run: runKVRMSNormRoPECache,
	})
}

func kvcFlag(name string) string {
	if kvcFlagSet == nil {
		return ""
	}
	if f := kvcFlagSet.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

func runKVRMSNormRoPECache(env *applyEnv) ([]safetensors.Tensor, error) {
	mode, err := ops.ParseCacheMode(kvcFlag("cache-mode"))
	if err != nil {
		return nil, usagef("--cache-mode: %v", err)
	}
	eps, err := strconv.ParseFloat(kvcFlag("epsilon"), 64)
	if err != nil {
		return nil, usagef("--epsilon %q: %v", kvcFlag("epsilon"), err)
	}
	outputKV, err := strconv.ParseBool(kvcFlag("output-kv"))
	if err != nil {
		return nil, usagef("--output-kv %q: %v", kvcFlag("output-kv"), err)
	}
	in, err := env.inputsNamed("kv", "gamma", "cos", "sin", "index", "k_cache", "ckv_cache")
	if err != nil {
		return nil, err
	}
	p := ops.KVRMSNormRoPECacheParams{
		KV: in[0], Gamma: in[1], Cos: in[2], Sin: in[3], Index: in[4], KCache: in[5], CKVCache: in[6],
		// Optional: a missing name is the zero Tensor, which the op reads as absent.
		KRoPEScale: env.inputs["k_rope_scale"], CKVScale: env.inputs["c_kv_scale"],
		KRoPEOffset: env.inputs["k_rope_offset"], CKVOffset: env.inputs["c_kv_offset"],
		Epsilon: eps, CacheMode: mode,
	}
	if outputKV {
		kv := p.KV
		if kv.Rank() != 4 || !kv.DType.IsFloat() || p.Cos.Rank() != 4 || p.Gamma.Rank() != 1 {
			// Let the op's checks describe what is wrong.
			_, err := ops.NewKVRMSNormRoPECache(p)
			if err == nil {
				err = usagef("kv: want [B, 1, S, Dv+Dk]")
			}
			return nil, usageError{err}
		}
		p.KRoPE = tensor.Zeros(kv.DType, kv.Shape[0], 1, kv.Shape[2], p.Cos.Shape[3])
		p.CKV = tensor.Zeros(kv.DType, kv.Shape[0], 1, kv.Shape[2], p.Gamma.Shape[0])
	}
	// The caches are the file's tensors, read into memory of their own: updated in place.
	if err := rotary.KVRMSNormRoPECache(env.disp, p); err != nil {
		return nil, usageError{err}
	}
	results := []safetensors.Tensor{toFile("k_cache", p.KCache), toFile("ckv_cache", p.CKVCache)}
	if outputKV {
		results = append(results, toFile("k_rope", p.KRoPE), toFile("c_kv", p.CKV))
	}
	return results, nil
}
