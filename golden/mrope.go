package golden

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/safetensors"
)

func init() {
	register(&Op{
		Name:    "mrope",
		Summary: "positions [T] or [3|4,T], query [T,Hq·D], optional key [T,Hk·D], cos_sin_cache [P,d] → query, key (torch_npu npu_mrope, also accepted as --op npu_mrope; --head-size, --mrope-section, --mrope-cache-mode)",
		// torch_npu npu_mrope's arguments; the pair layout comes from --rotary-mode.
		Params: []Param{
			{Name: "head-size", Kind: Int, Default: "0", Usage: "npu_mrope head_size `D`"},
			{Name: "mrope-section", Kind: String, Usage: "npu_mrope mrope_section, comma-separated `counts` (\"24,20,20\"); empty or zeros: plain RoPE"},
			{Name: "mrope-cache-mode", Kind: String, Default: "default", Usage: "npu_mrope cache_mode: `default` (chunked sections) or interleave (Qwen3-VL)"},
		},
		Reads:  []string{"head-size", "mrope-section", "mrope-cache-mode", "rotary-mode"},
		run:    runNPUMRoPE,
		inputs: goldenMRoPE,
		table:  true,
	})
}

// ParseMRoPESection parses --mrope-section: a comma-separated mrope_section (brackets
// allowed); empty means none.
func ParseMRoPESection(s string) ([]int, error) {
	s = strings.TrimSpace(strings.Trim(strings.TrimSpace(s), "[]"))
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("--mrope-section %q: %q is not an integer", s, f)
		}
		out = append(out, v)
	}
	return out, nil
}

func runNPUMRoPE(c *Call) ([]safetensors.Tensor, error) {
	headSize, err := c.Args.int("head-size")
	if err != nil {
		return nil, err
	}
	if headSize <= 0 {
		return nil, fmt.Errorf("--head-size: missing (want the head size > 0)")
	}
	sections, err := ParseMRoPESection(c.Args.str("mrope-section"))
	if err != nil {
		return nil, err
	}
	in, err := c.inputsNamed("positions", "query", "cos_sin_cache")
	if err != nil {
		return nil, err
	}
	positions, query, cache := in[0], in[1], in[2]
	if positions, err = BatchPositions(positions); err != nil {
		return nil, err
	}
	key := c.Inputs["key"]
	style, err := rotaryMode(c.Args)
	if err != nil {
		return nil, err
	}
	interleaved, err := ops.ParseMRoPECacheMode(c.Args.str("mrope-cache-mode"))
	if err != nil {
		return nil, fmt.Errorf("--mrope-cache-mode: %v", err)
	}
	p := rotary.NPUMRoPEParams{Positions: positions, Query: query, Key: key, CosSinCache: cache, HeadSize: headSize,
		Sections: sections, Style: style, Interleaved: interleaved}
	if err := rotary.NPUMRoPE(c.Dispatcher, p); err != nil {
		return nil, err
	}
	return queryKey(query, key), nil
}

// goldenMRoPE: npu_mrope's positions, query [T, Hq·D], key [T, Hk·D] and cos_sin_cache [P,
// rotary_dim] (each row cos then sin, P = the largest position + 1, in the bundle's dtype), with
// --head-size, --rotary-mode, and --mrope-section and --mrope-cache-mode of an MRoPE model.
func goldenMRoPE(g *gen) ([]input, error) {
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
	return []input{{"positions", pos}, {"query", q}, {"key", k}, {"cos_sin_cache", g.round(cache, int(rows), 2*half)}}, nil
}
