package main

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/tensor"
)

// goldenInputs makes each op's input tensors for `rotary golden`, named and shaped as the op's
// apply_<op>.go reads them, with the op flags that describe them set through goldenGen.opFlag.
// TestGoldenEveryOp fails for a registered op missing here.
var goldenInputs = map[string]func(g *goldenGen) ([]goldenInput, error){
	"rotary_embedding":              goldenQueryKey,
	"rotary_embedding_gathered":     goldenQueryKey,
	"qk_rmsnorm_rope":               goldenQKRMSNorm,
	"query_scale":                   goldenQueryScale,
	"mrope":                         goldenMRoPE,
	"interleave_rope":               goldenInterleaveRoPE,
	"apply_rotary_emb":              func(g *goldenGen) ([]goldenInput, error) { return goldenRotaryEmb(g, false) },
	"apply_rotary_emb_backward":     func(g *goldenGen) ([]goldenInput, error) { return goldenRotaryEmb(g, true) },
	"apply_rotary_emb_thd":          func(g *goldenGen) ([]goldenInput, error) { return goldenTHD(g, false) },
	"apply_rotary_emb_thd_backward": func(g *goldenGen) ([]goldenInput, error) { return goldenTHD(g, true) },
	"kv_rmsnorm_rope_cache":         goldenKVRMSNormRoPECache,
	"vision_rope_2d":                goldenVisionRoPE2D,
}

// goldenVisionRoPE2D: positions [2, T] (two coordinates per token), query [T, Hq, D], key [T, Hk,
// D] with the model's head size, --vision-layout split and --rotary-mode the model's pairing.
func goldenVisionRoPE2D(g *goldenGen) ([]goldenInput, error) {
	hq, hk := g.heads()
	T, D := g.c.tokens, g.spec.HeadSize
	g.opFlag("vision-layout", "split")
	g.opFlag("rotary-mode", rotaryModeOf(g.spec))
	return []goldenInput{{"positions", g.positions(2)}, {"query", g.values("query", T, hq, D)}, {"key", g.values("key", T, hk, D)}}, nil
}

// goldenQueryKey: positions (one row per MRoPE section), query [T, Hq, D], key [T, Hk, D]; with
// --layout (rotary_embedding and its gathered form), one sequence's q/k in the layout, BNSD
// [1, H, T, D] as Hugging Face holds them, and positions [1, T] (MRoPE [rows, 1, T]).
func goldenQueryKey(g *goldenGen) ([]goldenInput, error) {
	hq, hk := g.heads()
	T, D := g.c.tokens, g.spec.HeadSize
	pos := g.positions(g.positionRows())
	shape := func(h int) []int { return []int{T, h, D} }
	if g.o.userSet["layout"] && (g.o.op == "rotary_embedding" || g.o.op == "rotary_embedding_gathered") {
		layout, err := ops.ParseLayout(g.opFlag("layout", ""))
		if err != nil {
			return nil, usagef("--layout: %v", err)
		}
		if axes, ok := qkLayoutAxes[layout]; ok {
			shape = func(h int) []int {
				bshd, s := []int{1, T, h, D}, make([]int, 4)
				for k, a := range axes {
					s[a] = bshd[k]
				}
				return s
			}
			if pos.Rank() == 1 {
				pos.Shape = []int{1, T}
			} else if pos.Rank() == 2 {
				pos.Shape = []int{pos.Shape[0], 1, T}
			}
		}
	}
	return []goldenInput{{"positions", pos}, {"query", g.values("query", shape(hq)...)}, {"key", g.values("key", shape(hk)...)}}, nil
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

// goldenQueryScale: positions [T], query [T, Hq, D]; the rule is the model's (or --query-scale's).
func goldenQueryScale(g *goldenGen) ([]goldenInput, error) {
	hq, _ := g.heads()
	pos := g.positions(1)
	return []goldenInput{{"positions", pos}, {"query", g.values("query", g.c.tokens, hq, g.spec.HeadSize)}}, nil
}

// goldenMRoPE: npu_mrope's positions, query [T, Hq·D], key [T, Hk·D] and cos_sin_cache [P,
// rotary_dim] (each row cos then sin, P = the largest position + 1, in the bundle's dtype), with
// --head-size, --rotary-mode, and --mrope-section and --mrope-cache-mode of an MRoPE model.
func goldenMRoPE(g *goldenGen) ([]goldenInput, error) {
	hq, hk := g.heads()
	T, D := g.c.tokens, g.spec.HeadSize
	pos := g.positions(g.positionRows())
	q, k := g.values("query", T, hq*D), g.values("key", T, hk*D)
	if g.err != nil {
		return nil, g.err
	}
	rows := maxPosition(pos) + 1
	cs, err := g.table(rows)
	if err != nil {
		return nil, err
	}
	half := g.spec.Half()
	cos, sin := cs.Cos(), cs.Sin()
	cache := make([]float32, 0, 2*len(cos))
	for r := range int(rows) {
		cache = append(append(cache, cos[r*half:(r+1)*half]...), sin[r*half:(r+1)*half]...)
	}
	g.opFlag("head-size", strconv.Itoa(D))
	g.opFlag("rotary-mode", rotaryModeOf(g.spec))
	if m := g.spec.MRoPE; m != nil {
		s := make([]string, len(m.Sections))
		for i, n := range m.Sections {
			s[i] = strconv.Itoa(n)
		}
		g.opFlag("mrope-section", strings.Join(s, ","))
		if m.Interleaved {
			g.opFlag("mrope-cache-mode", "interleave")
		}
	}
	return []goldenInput{{"positions", pos}, {"query", q}, {"key", k}, {"cos_sin_cache", g.round(cache, int(rows), 2*half)}}, nil
}

// goldenInterleaveRoPE: x [1, Hq, T, rotary_dim] and cos, sin [1, 1, T, rotary_dim] gathered at
// the positions (not an input of the op) as cat(c, c), the NeoX order the op's output takes.
func goldenInterleaveRoPE(g *goldenGen) ([]goldenInput, error) {
	hq, _ := g.heads()
	T, rd := g.c.tokens, g.spec.RotaryDim
	pos := g.positions(g.positionRows())
	x := g.values("x", 1, hq, T, rd)
	cs, err := g.gathered(pos)
	if err != nil {
		return nil, err
	}
	cos, sin, err := g.fullWidth(cs, rotary.NeoX, 1, 1, T, rd)
	return []goldenInput{{"x", x}, {"cos", cos}, {"sin", sin}}, err
}

// goldenRotaryEmb: npu_rotary_mul's x in --layout (BSND unless given) with the model's head size,
// cos and sin gathered at the positions at full rotary width in --rotary-mode's pairing (the
// model's unless given), broadcast over heads; the backward pass's dy first.
func goldenRotaryEmb(g *goldenGen, backward bool) ([]goldenInput, error) {
	hq, _ := g.heads()
	T, D, rd := g.c.tokens, g.spec.HeadSize, g.spec.RotaryDim
	layout := g.opFlag("layout", string(ops.BSND))
	style, err := rope.ParseRotaryMode(g.opFlag("rotary-mode", rotaryModeOf(g.spec)))
	if err != nil {
		return nil, usagef("--rotary-mode: %v", err)
	}
	var xShape, csShape []int
	switch ops.Layout(layout) {
	case ops.BSND:
		xShape, csShape = []int{1, T, hq, D}, []int{1, T, 1, rd}
	case ops.BNSD:
		xShape, csShape = []int{1, hq, T, D}, []int{1, 1, T, rd}
	case ops.SBND:
		xShape, csShape = []int{T, 1, hq, D}, []int{T, 1, 1, rd}
	case ops.THD:
		xShape, csShape = []int{T, hq, D}, []int{T, 1, rd}
	default:
		return nil, usagef("--layout %q: want BSND, BNSD, SBND or THD", layout)
	}
	pos := g.positions(g.positionRows())
	var in []goldenInput
	if backward {
		in = append(in, goldenInput{"dy", g.values("dy", xShape...)})
	}
	in = append(in, goldenInput{"x", g.values("x", xShape...)})
	cs, err := g.gathered(pos)
	if err != nil {
		return nil, err
	}
	cos, sin, err := g.fullWidth(cs, style, csShape...)
	return append(in, goldenInput{"cos", cos}, goldenInput{"sin", sin}), err
}

// goldenTHD: one packed sequence of the positions START..START+N·cp−1 (this rank holding T
// tokens of it under --cp-size/--cp-rank): x (dy for the backward pass) [T, Hq, D], cu_seqlens
// [0, T·cp], start_positions [START] when START > 0, and cos/sin tables [START+T·cp, rotary_dim]
// at full width in --rotary-mode's pairing. The op derives positions from the sequence, so
// --positions random draws START and a positions file must hold consecutive positions.
func goldenTHD(g *goldenGen, backward bool) ([]goldenInput, error) {
	hq, _ := g.heads()
	T, D := g.c.tokens, g.spec.HeadSize
	style, err := rope.ParseRotaryMode(g.opFlag("rotary-mode", rotaryModeOf(g.spec)))
	if err != nil {
		return nil, usagef("--rotary-mode: %v", err)
	}
	cp := max(thdCPSize, 1)
	// Before anything is sized by cp: a size the op refuses would otherwise cost its inputs first.
	if err := ops.CheckContextParallel(cp, thdCPRank); err != nil {
		return nil, usageError{err}
	}
	full := int64(T) * int64(cp)
	if full > math.MaxInt32 {
		return nil, usagef("--cp-size %d: the sequence of %d tokens × %d ranks overflows cu_seqlens (I32)", cp, T, cp)
	}
	if cp > 1 && full%int64(2*cp) != 0 {
		return nil, usagef("--tokens %d: with --cp-size %d a rank holds 2 of 2·%d equal chunks of the sequence: want an even number of tokens", T, cp, cp)
	}
	start := g.pos.start
	switch g.pos.kind {
	case "random":
		start = g.intn(max(g.limit-full+1, 1))
	case "file":
		p := g.pos.file
		if p.Rank() != 1 || cp > 1 {
			return nil, usagef("--positions %s: --op %s takes one sequence's consecutive positions [T] (and no --cp-size)", g.pos.label, g.o.op)
		}
		start = p.Int64At(0)
		for i := range p.Len() {
			if p.Int64At(i) != start+int64(i) || start < 0 {
				return nil, usagef("--positions %s: position %d is %d: --op %s rotates consecutive positions from the first (%d)", g.pos.label, i, p.Int64At(i), g.o.op, start)
			}
		}
	}
	name := "x"
	if backward {
		name = "dy"
	}
	in := []goldenInput{{name, g.values(name, T, hq, D)}, {"cu_seqlens", tensor.FromI32([]int32{0, int32(full)}, 2)}}
	if start > 0 {
		in = append(in, goldenInput{"start_positions", tensor.FromI64([]int64{start}, 1)})
	}
	if g.err != nil {
		return nil, g.err
	}
	cs, err := g.table(start + full)
	if err != nil {
		return nil, err
	}
	cos, sin, err := g.fullWidth(cs, style, int(start+full), g.spec.RotaryDim)
	return append(in, goldenInput{"cos", cos}, goldenInput{"sin", sin}), err
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

// int8s is a tensor of uniform int8 values (the draw's top byte): an int8 cache's old contents.
func (g *goldenGen) int8s(name string, shape ...int) tensor.Tensor {
	n := g.elements(name, shape...)
	if n < 0 {
		return tensor.Tensor{}
	}
	v := make([]int8, n)
	for i := range v {
		v[i] = int8(g.rng.Uint64() >> 56)
	}
	return tensor.FromI8(v, shape...)
}

// scales are F32 per-channel quantisation scales 32·(1.5 + v), v uniform in (−1, 1): 16 to 80,
// so that the normalised part (|y| up to a few) and the rotated rope part (|y| < 2) use the int8
// range and some values saturate.
func (g *goldenGen) scales(n int) tensor.Tensor {
	v := make([]float32, n)
	for i := range v {
		v[i] = 32 * (1.5 + g.uniform())
	}
	return tensor.FromF32(v, n)
}

// offsets are F32 per-channel quantisation offsets 8·v, v uniform in (−1, 1).
func (g *goldenGen) offsets(n int) tensor.Tensor {
	v := make([]float32, n)
	for i := range v {
		v[i] = 8 * g.uniform()
	}
	return tensor.FromF32(v, n)
}

// shuffled is a seeded permutation of 0..n−1 (Fisher–Yates).
func (g *goldenGen) shuffled(n int) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = int64(i)
	}
	for i := n - 1; i > 0; i-- {
		j := g.intn(int64(i + 1))
		v[i], v[j] = v[j], v[i]
	}
	return v
}

// configRMSNormEps is the config's rms_norm_eps (text_config's first) as a flag value, when it is
// a finite number ≥ 0.
func configRMSNormEps(configJSON []byte) (string, bool) {
	var c struct {
		Eps        *float64 `json:"rms_norm_eps"`
		TextConfig *struct {
			Eps *float64 `json:"rms_norm_eps"`
		} `json:"text_config"`
	}
	if json.Unmarshal(configJSON, &c) != nil {
		return "", false
	}
	eps := c.Eps
	if c.TextConfig != nil && c.TextConfig.Eps != nil {
		eps = c.TextConfig.Eps
	}
	if eps == nil || !(*eps >= 0) || math.IsInf(*eps, 0) {
		return "", false
	}
	return strconv.FormatFloat(*eps, 'g', -1, 64), true
}

// kvLoraRank is the config's kv_lora_rank (DeepSeek MLA's compressed kv width), or
// goldenKVLoraRank.
func kvLoraRank(configJSON []byte) int {
	var c struct {
		Rank       int `json:"kv_lora_rank"`
		TextConfig *struct {
			Rank int `json:"kv_lora_rank"`
		} `json:"text_config"`
	}
	if json.Unmarshal(configJSON, &c) != nil {
		return goldenKVLoraRank
	}
	switch {
	case c.TextConfig != nil && c.TextConfig.Rank > 0 && c.TextConfig.Rank <= 1<<16:
		return c.TextConfig.Rank
	case c.Rank > 0 && c.Rank <= 1<<16:
		return c.Rank
	}
	return goldenKVLoraRank
}
