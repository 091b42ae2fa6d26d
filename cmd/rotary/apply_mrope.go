package main

import (
	"flag"
	"strconv"
	"strings"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// Flags of mrope (torch_npu npu_mrope's arguments); the pair layout comes from --rotary-mode
// (rotaryMode).
var (
	npuMRoPEHeadSize  int
	npuMRoPESection   string
	npuMRoPECacheMode string
)

func init() {
	registerApplyOp("mrope", &applyOp{
		golden:  goldenMRoPE,
		reads:   []string{"head-size", "mrope-section", "mrope-cache-mode", "rotary-mode"},
		summary: "positions [T] or [3|4,T], query [T,Hq·D], optional key [T,Hk·D], cos_sin_cache [P,d] → query, key (torch_npu npu_mrope, also accepted as --op npu_mrope; --head-size, --mrope-section, --mrope-cache-mode)",
		flags: func(fs *flag.FlagSet) {
			fs.IntVar(&npuMRoPEHeadSize, "head-size", 0, "npu_mrope head_size `D`")
			fs.StringVar(&npuMRoPESection, "mrope-section", "", "npu_mrope mrope_section, comma-separated `counts` (\"24,20,20\"); empty or zeros: plain RoPE")
			fs.StringVar(&npuMRoPECacheMode, "mrope-cache-mode", "default", "npu_mrope cache_mode: `default` (chunked sections) or interleave (Qwen3-VL)")
		},
		run: runNPUMRoPE,
	})
}

// batchPositions reads a rank-3 positions tensor, the [rows, B, S] that `rotary positions`
// writes, as [rows, B·S]: the batch's tokens one after another, as vLLM flattens a batch and as
// a query [B·S, H, D] holds them, so [rows, 1, T] is [rows, T]. Other ranks pass unchanged.
func batchPositions(p tensor.Tensor) (tensor.Tensor, error) {
	if p.Rank() != 3 {
		return p, nil
	}
	flat, err := p.Reshape(p.Shape[0], p.Shape[1]*p.Shape[2])
	if err != nil {
		return tensor.Tensor{}, usagef("positions: shape %s: %v", tensor.ShapeString(p.Shape), err)
	}
	return flat, nil
}

// parseNPUMRoPESections parses a comma-separated mrope_section; empty means none.
func parseNPUMRoPESections(s string) ([]int, error) {
	s = strings.TrimSpace(strings.Trim(strings.TrimSpace(s), "[]"))
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, usagef("--mrope-section %q: %q is not an integer", s, f)
		}
		out = append(out, v)
	}
	return out, nil
}

func runNPUMRoPE(env *applyEnv) ([]safetensors.Tensor, error) {
	if npuMRoPEHeadSize <= 0 {
		return nil, usagef("--head-size: missing (want the head size > 0)")
	}
	sections, err := parseNPUMRoPESections(npuMRoPESection)
	if err != nil {
		return nil, err
	}
	in, err := env.inputsNamed("positions", "query", "cos_sin_cache")
	if err != nil {
		return nil, err
	}
	positions, query, cache := in[0], in[1], in[2]
	if positions, err = batchPositions(positions); err != nil {
		return nil, err
	}
	key := env.inputs["key"]
	style, err := parseRotaryMode()
	if err != nil {
		return nil, err
	}
	interleaved, err := ops.ParseMRoPECacheMode(npuMRoPECacheMode)
	if err != nil {
		return nil, usagef("--mrope-cache-mode: %v", err)
	}
	p := rotary.NPUMRoPEParams{Positions: positions, Query: query, Key: key, CosSinCache: cache, HeadSize: npuMRoPEHeadSize,
		Sections: sections, Style: style, Interleaved: interleaved}
	if err := rotary.NPUMRoPE(env.disp, p); err != nil {
		return nil, usageError{err}
	}
	return queryKey(query, key), nil
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
