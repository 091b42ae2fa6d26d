package explain

import (
	"fmt"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/compare"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/tensor"
)

// QueryScaleCase is one failed query_scale (ops.QueryScaleArgs): Llama 4's or Ministral 3's
// position-dependent query scale. Its readings: the positions off by one or from 0, the scale
// not applied, and the other rounding order (a precision finding).
type QueryScaleCase struct {
	// Params are the op's arguments, Query the input before scaling.
	Params rotary.QueryScaleParams
	// Want and Got are the exact and the candidate's scaled query.
	Want, Got tensor.Tensor
}

// ExplainQueryScale is Explain for query_scale.
func ExplainQueryScale(c QueryScaleCase, opts compare.Options) (Report, error) {
	p := c.Params
	p.Positions, p.Query = p.Positions.Clone(), p.Query.Clone()
	if p.Query.IsZero() || p.Positions.IsZero() || p.Positions.Rank() != 1 {
		return Report{}, fmt.Errorf("%w: Params: want Positions [T] and Query", ErrCase)
	}
	probe := p
	probe.Query = p.Query.Clone()
	if err := rotary.QueryScale(nil, probe); err != nil {
		return Report{}, fmt.Errorf("%w: %v", ErrCase, err)
	}
	s := blankState(opts)
	s.qs = &p
	if err := s.mark("query", p.Query, c.Want, c.Got); err != nil {
		return Report{}, err
	}
	s.pos, s.posRows = p.Positions, 1
	s.tokens = s.pos.Shape[0]
	for i := range s.pos.Len() {
		s.maxPos = max(s.maxPos, s.pos.Int64At(i))
	}
	return s.report(), nil
}

// applyQS is the exact op on a copy of the query with the arguments as mutate changes them.
func (s *state) applyQS(mutate func(p *rotary.QueryScaleParams)) (map[string]tensor.Tensor, error) {
	p := *s.qs
	p.Query = s.inputs["query"].Clone()
	mutate(&p)
	if err := rotary.QueryScale(nil, p); err != nil {
		return nil, err
	}
	return map[string]tensor.Tensor{"query": p.Query}, nil
}

// otherCast is the rounding order the rule does not use.
func otherCast(r rope.QueryScaleRule) rope.QueryScaleCast {
	if r.ScaleFirst() {
		return rope.QueryScaleCastProduct
	}
	return rope.QueryScaleCastScale
}
