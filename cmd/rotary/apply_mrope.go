package main

import (
	"strconv"
	"strings"
)

func init() { goldenMakers["mrope"] = goldenMRoPE }

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
