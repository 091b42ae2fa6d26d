package explain

import (
	"fmt"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/compare"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/tensor"
)

// THDCase is one failed apply_rotary_emb_thd (TransformerEngine's fused RoPE on packed
// sequences, ops.ApplyRotaryEmbTHDArgs), or with Backward its backward pass's dx: Params.X is
// then dy. Params.Out is not used. Besides the readings of a rotation by given cos and sin,
// those of the packing: the start positions, the context-parallel split or the sequence
// boundaries left out.
type THDCase struct {
	Params    rotary.ApplyRotaryEmbTHDParams
	Backward  bool
	Want, Got tensor.Tensor
}

// ExplainTHD is Explain for apply_rotary_emb_thd.
func ExplainTHD(c THDCase, opts compare.Options) (Report, error) {
	p := c.Params
	p.X, p.Cos, p.Sin = p.X.Clone(), p.Cos.Clone(), p.Sin.Clone()
	p.Seqs.CuSeqlens, p.Seqs.StartPositions = p.Seqs.CuSeqlens.Clone(), p.Seqs.StartPositions.Clone()
	if p.X.IsZero() || p.Cos.IsZero() || p.Sin.IsZero() || p.Seqs.CuSeqlens.IsZero() {
		return Report{}, fmt.Errorf("%w: Params: want X, Cos, Sin and Seqs.CuSeqlens", ErrCase)
	}
	// The op's own checks, on copies: a case the op refuses has no exact result to explain.
	probe := p
	probe.Out = tensor.Zeros(p.X.DType, p.X.Shape...)
	if _, err := ops.NewApplyRotaryEmbTHD(probe); err != nil {
		return Report{}, fmt.Errorf("%w: %v", ErrCase, err)
	}
	s := blankState(opts)
	if err := s.mark("out", p.X, c.Want, c.Got); err != nil {
		return Report{}, err
	}
	s.thd = &thdCase{params: p, backward: c.Backward}
	s.cs = &CosSinCase{Layout: ops.THD, Style: p.Style, X: p.X, Cos: p.Cos, Sin: p.Sin, Backward: c.Backward}
	x := p.X.Shape
	s.headSize, s.rotaryDim, s.style = x[len(x)-1], p.Cos.Shape[1], p.Style
	if len(x) == 3 && x[0] > 1 && x[1] > 1 {
		s.swap = [4]int{1, x[0], x[1], x[2]}
	}
	return s.report(), nil
}

// thdCase is what the THD readings change: the packing.
type thdCase struct {
	params   rotary.ApplyRotaryEmbTHDParams
	backward bool
}

// applyTHD is the exact op (or its backward pass) with the pairing, tables and packing given.
func (s *state) applyTHD(style rope.Style, cos, sin tensor.Tensor, seqs ops.PackedSeqs) (map[string]tensor.Tensor, error) {
	p := s.thd.params
	out := tensor.Zeros(p.X.DType, p.X.Shape...)
	var err error
	if s.thd.backward {
		err = rotary.ApplyRotaryEmbTHDBackward(nil, rotary.ApplyRotaryEmbTHDBackwardParams{DY: p.X, DX: out, Cos: cos, Sin: sin, Seqs: seqs, Style: style})
	} else {
		err = rotary.ApplyRotaryEmbTHD(nil, rotary.ApplyRotaryEmbTHDParams{X: p.X, Out: out, Cos: cos, Sin: sin, Seqs: seqs, Style: style})
	}
	return map[string]tensor.Tensor{"out": out}, err
}

// cuSeqlens is CuSeqlens as int64s.
func (t *thdCase) cuSeqlens() []int64 {
	cu := t.params.Seqs.CuSeqlens
	v := make([]int64, cu.Len())
	for i := range v {
		v[i] = cu.Int64At(i)
	}
	return v
}

// startsGiven: some sequence starts past position 0.
func (t *thdCase) startsGiven() bool {
	sp := t.params.Seqs.StartPositions
	for i := range sp.Len() {
		if sp.Int64At(i) != 0 {
			return true
		}
	}
	return false
}
