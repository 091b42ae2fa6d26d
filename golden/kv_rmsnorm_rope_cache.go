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
		Reads:  []string{"cache-mode", "epsilon", "output-kv"},
		run:    runKVRMSNormRoPECache,
		inputs: goldenKVRMSNormRoPECache,
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

// goldenKVRMSNormRoPECache: DeepSeek MLA's kv [1, 1, T, Dv+Dk] (Dv = the config's kv_lora_rank,
// Dk = the rotary dim), gamma [Dv], cos/sin [1, 1, T, Dk] gathered at the positions as cat(c, c),
// and caches of twice the slots the tokens need, filled with random values, with the tokens
// placed at shuffled distinct slots: index [1, T] into [1, 1, 2T, D] caches (Norm), [T] global
// slots of blocks of blockSize (PA, PA_BNSD, PA_NZ), or one shuffled block per
// blockSize tokens (PA_BLK_*). The NZ modes take their caches' logical shape. --epsilon is
// the config's rms_norm_eps when it has one. --kv-quant sym makes the caches int8 with per-channel
// scales k_rope_scale [Dk] and c_kv_scale [Dv]; asym adds k_rope_offset and c_kv_offset.
func goldenKVRMSNormRoPECache(g *gen) ([]input, error) {
	if eps, ok := configRMSNormEps(g.o.Model.JSON); ok {
		g.opFlag("epsilon", eps) // DeepSeek's kv_a_layernorm
	}
	mode, err := ops.ParseCacheMode(g.args.str("cache-mode"))
	if err != nil {
		return nil, fmt.Errorf("--cache-mode: %v", err)
	}
	T, Dk := g.c.tokens, g.spec.RotaryDim
	Dv := kvLoraRank(g.o.Model.JSON)
	pos := g.positions(g.positionRows())
	in := []input{{"kv", g.values("kv", 1, 1, T, Dv+Dk)}, {"gamma", g.values("gamma", Dv)}}
	cs, err := g.gathered(pos)
	if err != nil {
		return nil, err
	}
	cos, sin, err := g.fullWidth(cs, rotary.NeoX, 1, 1, T, Dk)
	if err != nil {
		return nil, err
	}
	in = append(in, input{"cos", cos}, input{"sin", sin})

	bs := blockSize
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
	in = append(in, input{"index", index})
	if g.o.KVQuant == "none" {
		return append(in, input{"k_cache", g.values("k_cache", append(cacheShape, Dk)...)},
			input{"ckv_cache", g.values("ckv_cache", append(cacheShape, Dv)...)}), nil
	}
	// int8 caches, quantised per channel: q = clamp(round_half_even(y·scale + offset), −128, 127).
	in = append(in, input{"k_cache", g.int8s("k_cache", append(cacheShape, Dk)...)},
		input{"ckv_cache", g.int8s("ckv_cache", append(cacheShape, Dv)...)},
		input{"k_rope_scale", g.scales(Dk)}, input{"c_kv_scale", g.scales(Dv)})
	if g.o.KVQuant == "asym" {
		in = append(in, input{"k_rope_offset", g.offsets(Dk)}, input{"c_kv_offset", g.offsets(Dv)})
	}
	return in, nil
}
