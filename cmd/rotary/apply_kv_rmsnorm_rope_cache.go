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
		golden:  goldenKVRMSNormRoPECache,
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

// goldenKVRMSNormRoPECache: DeepSeek MLA's kv [1, 1, T, Dv+Dk] (Dv = the config's kv_lora_rank,
// Dk = the rotary dim), gamma [Dv], cos/sin [1, 1, T, Dk] gathered at the positions as cat(c, c),
// and caches of twice the slots the tokens need, filled with random values, with the tokens
// placed at shuffled distinct slots: index [1, T] into [1, 1, 2T, D] caches (Norm), [T] global
// slots of blocks of goldenBlockSize (PA, PA_BNSD, PA_NZ), or one shuffled block per
// goldenBlockSize tokens (PA_BLK_*). The NZ modes take their caches' logical shape. --epsilon is
// the config's rms_norm_eps when it has one. --kv-quant sym makes the caches int8 with per-channel
// scales k_rope_scale [Dk] and c_kv_scale [Dv]; asym adds k_rope_offset and c_kv_offset.
func goldenKVRMSNormRoPECache(g *goldenGen) ([]goldenInput, error) {
	if eps, ok := configRMSNormEps(g.o.configJSON); ok {
		g.opFlag("epsilon", eps) // DeepSeek's kv_a_layernorm
	}
	mode, err := ops.ParseCacheMode(kvcFlag("cache-mode"))
	if err != nil {
		return nil, usagef("--cache-mode: %v", err)
	}
	T, Dk := g.c.tokens, g.spec.RotaryDim
	Dv := kvLoraRank(g.o.configJSON)
	pos := g.positions(g.positionRows())
	in := []goldenInput{{"kv", g.values("kv", 1, 1, T, Dv+Dk)}, {"gamma", g.values("gamma", Dv)}}
	cs, err := g.gathered(pos)
	if err != nil {
		return nil, err
	}
	cos, sin, err := g.fullWidth(cs, rotary.NeoX, 1, 1, T, Dk)
	if err != nil {
		return nil, err
	}
	in = append(in, goldenInput{"cos", cos}, goldenInput{"sin", sin})

	bs := goldenBlockSize
	var index tensor.Tensor
	var cacheShape []int // without the row width
	switch {
	case mode == ops.CacheNorm:
		index = tensor.FromI64(g.shuffled(2 * T)[:T], 1, T)
		cacheShape = []int{1, 1, 2 * T}
	case mode.PerBlock():
		per := (T + bs - 1) / bs
		blocks := g.shuffled(2 * per)[:per]
		for i := range blocks {
			blocks[i] *= int64(bs)
		}
		index = tensor.FromI64(blocks, per)
		cacheShape = []int{2 * per, bs, 1}
	default:
		blocks := (2*T + bs - 1) / bs
		index = tensor.FromI64(g.shuffled(blocks * bs)[:T], T)
		cacheShape = []int{blocks, bs, 1}
	}
	in = append(in, goldenInput{"index", index})
	if g.o.kvQuant == "none" {
		return append(in, goldenInput{"k_cache", g.values("k_cache", append(cacheShape, Dk)...)},
			goldenInput{"ckv_cache", g.values("ckv_cache", append(cacheShape, Dv)...)}), nil
	}
	// int8 caches, quantised per channel: q = clamp(round_half_even(y·scale + offset), −128, 127).
	in = append(in, goldenInput{"k_cache", g.int8s("k_cache", append(cacheShape, Dk)...)},
		goldenInput{"ckv_cache", g.int8s("ckv_cache", append(cacheShape, Dv)...)},
		goldenInput{"k_rope_scale", g.scales(Dk)}, goldenInput{"c_kv_scale", g.scales(Dv)})
	if g.o.kvQuant == "asym" {
		in = append(in, goldenInput{"k_rope_offset", g.offsets(Dk)}, goldenInput{"c_kv_offset", g.offsets(Dv)})
	}
	return in, nil
}
