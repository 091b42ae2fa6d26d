package main

import (
	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

func init() { goldenMakers["kv_rmsnorm_rope_cache"] = goldenKVRMSNormRoPECache }

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
	mode, err := ops.ParseCacheMode(g.flag("cache-mode"))
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
