package explain

import (
	"fmt"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/compare"
	"github.com/rotary-go/rotary/tensor"
)

// VisionCase is one failed vision_rope_2d (ops.VisionRoPE2DArgs): a vision tower's query and
// key rotated by each patch's two coordinates. Besides the readings of a rotation at positions,
// its own: the two coordinates swapped, the other layout of the frequencies, the default theta.
type VisionCase struct {
	// Params are the op's arguments, Query and Key the inputs before rotation.
	Params rotary.VisionRoPE2DParams
	// Want and Got hold the exact and the candidate's "query" (and "key" when Params has one).
	Want, Got map[string]tensor.Tensor
}

// ExplainVision is Explain for vision_rope_2d.
func ExplainVision(c VisionCase, opts compare.Options) (Report, error) {
	p := c.Params
	p.Positions, p.Query, p.Key = p.Positions.Clone(), p.Query.Clone(), p.Key.Clone()
	if p.Query.IsZero() || p.Positions.IsZero() {
		return Report{}, fmt.Errorf("%w: Params: want Positions and Query", ErrCase)
	}
	// The op's own checks, on copies: a case the op refuses has no exact result to explain.
	probe := p
	probe.Query, probe.Key = p.Query.Clone(), p.Key.Clone()
	if err := rotary.VisionRoPE2D(nil, probe); err != nil {
		return Report{}, fmt.Errorf("%w: %v", ErrCase, err)
	}
	s := blankState(opts)
	s.vision = &p
	s.headSize, s.rotaryDim, s.style = p.HeadSize, p.HeadSize, p.Style
	if err := s.markQueryKey(p.Query, p.Key, c.Want, c.Got); err != nil {
		return Report{}, err
	}
	if err := s.setPositions(p.Positions); err != nil {
		return Report{}, err
	}
	return s.report(), nil
}

// applyVision is the exact op on inputs (copies are rotated) with the arguments as mutate
// changes them.
func (s *state) applyVision(inputs map[string]tensor.Tensor, mutate func(p *rotary.VisionRoPE2DParams)) (map[string]tensor.Tensor, error) {
	p := *s.vision
	p.Query, p.Key = inputs["query"].Clone(), tensor.Tensor{}
	if k, ok := inputs["key"]; ok {
		p.Key = k.Clone()
	}
	mutate(&p)
	if err := rotary.VisionRoPE2D(nil, p); err != nil {
		return nil, err
	}
	out := map[string]tensor.Tensor{"query": p.Query}
	if !p.Key.IsZero() {
		out["key"] = p.Key
	}
	return out, nil
}

// swappedRows is positions [2, T] with its two rows exchanged.
func swappedRows(pos tensor.Tensor) tensor.Tensor {
	T := pos.Shape[1]
	v := make([]int64, 2*T)
	for t := range T {
		v[t], v[T+t] = pos.Int64At(T+t), pos.Int64At(t)
	}
	return tensor.FromI64(v, 2, T)
}
