package explain

import (
	"fmt"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/compare"
	"github.com/rotary-go/rotary/tensor"
)

// CacheCase is one failed rotation by an explicit cos/sin cache at positions: op mrope,
// torch_npu npu_mrope. The readings that need a spec (base, scaling, angles) do not apply; the
// cache is what it is.
type CacheCase struct {
	// Params are the op's arguments, Query and Key the inputs before rotation.
	Params rotary.NPUMRoPEParams
	// Want and Got hold the exact and the candidate's "query" (and "key" when Params has one).
	Want, Got map[string]tensor.Tensor
}

// ExplainCache is Explain for op mrope.
func ExplainCache(c CacheCase, opts compare.Options) (Report, error) {
	p := c.Params
	p.Positions, p.CosSinCache = p.Positions.Clone(), p.CosSinCache.Clone()
	p.Query, p.Key = p.Query.Clone(), p.Key.Clone()
	if p.Query.IsZero() || p.Positions.IsZero() || p.CosSinCache.IsZero() {
		return Report{}, fmt.Errorf("%w: Params: want Positions, Query and CosSinCache", ErrCase)
	}
	// The op's own checks, on copies: a case the op refuses has no exact result to explain.
	probe := p
	probe.Query, probe.Key = p.Query.Clone(), p.Key.Clone()
	if err := rotary.NPUMRoPE(nil, probe); err != nil {
		return Report{}, fmt.Errorf("%w: %v", ErrCase, err)
	}
	s := blankState(opts)
	s.npu = &p
	s.headSize, s.rotaryDim, s.style = p.HeadSize, p.CosSinCache.Shape[1], p.Style
	if err := s.markQueryKey(p.Query, p.Key, c.Want, c.Got); err != nil {
		return Report{}, err
	}
	if err := s.setPositions(p.Positions); err != nil {
		return Report{}, err
	}
	return s.report(), nil
}

// applyCache is the exact op with the arguments as mutate changes them (copies of the inputs).
func (s *state) applyCache(mutate func(p *rotary.NPUMRoPEParams)) (map[string]tensor.Tensor, error) {
	p := *s.npu
	p.Query, p.Key = s.inputs["query"].Clone(), tensor.Tensor{}
	if k, ok := s.inputs["key"]; ok {
		p.Key = k.Clone()
	}
	mutate(&p)
	if err := rotary.NPUMRoPE(nil, p); err != nil {
		return nil, err
	}
	out := map[string]tensor.Tensor{"query": p.Query}
	if !p.Key.IsZero() {
		out["key"] = p.Key
	}
	return out, nil
}

// cacheHalves is the cache with each row's sin half negated (flip) or its halves swapped.
func cacheHalves(cache tensor.Tensor, flip bool) tensor.Tensor {
	out := cache.Clone()
	rd := cache.Shape[1]
	for row := 0; row < cache.Len(); row += rd {
		for j := range rd / 2 {
			c, s := row+j, row+rd/2+j
			if flip {
				out.SetFloat32(s, -cache.Float32At(s))
				continue
			}
			copyElem(out, c, cache, s)
			copyElem(out, s, cache, c)
		}
	}
	return out
}
