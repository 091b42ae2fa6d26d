package explain

import (
	"fmt"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/compare"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/tensor"
)

// CosSinCase is one failed apply_rotary_emb (torch_npu npu_rotary_mul): out = x·cos +
// rotate(x)·sin with cos and sin given at full rotary width, as ops.ApplyRotaryEmbParams
// describes them. The readings that need a spec (base, scaling, positions, angles) do not apply.
type CosSinCase struct {
	Layout ops.Layout
	Style  rope.Style
	// Interleaved is op interleave_rope (torch_npu npu_interleave_rope, ops.InterleaveRoPEArgs):
	// X [B, N, S, D] is de-interleaved, then rotated NeoX style by cos and sin in NeoX layout,
	// the output kept in the de-interleaved order. Layout and Style are then unused.
	Interleaved bool
	// Backward is apply_rotary_emb's backward pass (ops.ApplyRotaryEmbBackwardArgs): X is the
	// output gradient dy, Want and Got the input gradient dx = dy·cos + rotateᵀ(dy·sin) (dcos
	// and dsin, which need the forward input, are not explained; dy stands in for that input,
	// which dx does not read).
	Backward bool
	// X, Cos and Sin are the op's inputs; Want and Got the exact and the candidate's out.
	X, Cos, Sin tensor.Tensor
	Want, Got   tensor.Tensor
}

// ExplainCosSin is Explain for apply_rotary_emb and interleave_rope.
func ExplainCosSin(c CosSinCase, opts compare.Options) (Report, error) {
	s := blankState(opts)
	if c.X.Rank() < 1 || c.Cos.Rank() != c.X.Rank() || c.Sin.Rank() != c.X.Rank() {
		return Report{}, fmt.Errorf("%w: X, Cos and Sin: want tensors of one rank", ErrCase)
	}
	// The op's own checks, on copies: a case the op refuses has no exact result to explain.
	cs := c
	cs.X, cs.Cos, cs.Sin = c.X.Clone(), c.Cos.Clone(), c.Sin.Clone()
	var err error
	switch {
	case c.Interleaved && c.Backward:
		return Report{}, fmt.Errorf("%w: Interleaved and Backward: interleave_rope has no backward op", ErrCase)
	case c.Interleaved:
		_, err = ops.NewInterleaveRoPE(ops.InterleaveRoPEParams{X: cs.X, Out: cs.X, Cos: cs.Cos, Sin: cs.Sin})
	case c.Backward:
		_, err = ops.NewApplyRotaryEmbBackward(ops.ApplyRotaryEmbBackwardParams{Layout: cs.Layout, DY: cs.X, X: cs.X, DX: cs.X, Cos: cs.Cos, Sin: cs.Sin, Style: cs.Style})
	default:
		_, err = ops.NewApplyRotaryEmb(ops.ApplyRotaryEmbParams{Layout: cs.Layout, X: cs.X, Out: cs.X, Cos: cs.Cos, Sin: cs.Sin, Style: cs.Style})
	}
	if err != nil {
		return Report{}, fmt.Errorf("%w: %v", ErrCase, err)
	}
	if err := s.mark("out", cs.X, c.Want, c.Got); err != nil {
		return Report{}, err
	}
	if c.Interleaved {
		// interleave_rope is apply_rotary_emb, NeoX style, of the de-interleaved x: the
		// readings recompute it that way, bit for bit.
		D := cs.X.Shape[cs.X.Rank()-1]
		cs.X = eachDims(map[string]tensor.Tensor{"x": cs.X}, D, halves(D))["x"]
		cs.Layout, cs.Style = ops.BNSD, rope.NeoX
	}
	s.cs = &cs
	x := cs.X.Shape
	s.headSize, s.rotaryDim, s.style = x[len(x)-1], cs.Cos.Shape[len(x)-1], cs.Style
	switch {
	case len(x) == 4 && cs.Layout == ops.SBND:
		s.swap = [4]int{1, x[0], x[1], x[2] * x[3]}
	case len(x) == 4:
		s.swap = [4]int{x[0], x[1], x[2], x[3]}
	case len(x) == 3:
		s.swap = [4]int{1, x[0], x[1], x[2]}
	}
	if s.swap[1] < 2 || s.swap[2] < 2 {
		s.swap = [4]int{}
	}
	return s.report(), nil
}

// applyCS is the exact op (or its backward pass) on x with the given pairing, cos and sin.
func (s *state) applyCS(style rope.Style, cos, sin tensor.Tensor) (map[string]tensor.Tensor, error) {
	if s.thd != nil {
		return s.applyTHD(style, cos, sin, s.thd.params.Seqs)
	}
	out := tensor.Zeros(s.cs.X.DType, s.cs.X.Shape...)
	var err error
	if s.cs.Backward {
		err = rotary.ApplyRotaryEmbBackward(nil, ops.ApplyRotaryEmbBackwardParams{Layout: s.cs.Layout, DY: s.cs.X, X: s.cs.X, DX: out, Cos: cos, Sin: sin, Style: style})
	} else {
		err = rotary.ApplyRotaryEmb(nil, ops.ApplyRotaryEmbParams{Layout: s.cs.Layout, X: s.cs.X, Out: out, Cos: cos, Sin: sin, Style: style})
	}
	return map[string]tensor.Tensor{"out": out}, err
}

// negated is t with every element's sign flipped (exact).
func negated(t tensor.Tensor) tensor.Tensor {
	n := t.Clone()
	for i := range n.Len() {
		switch n.DType {
		case tensor.F32:
			n.F32[i] = -n.F32[i]
		case tensor.F16, tensor.BF16:
			n.Bits[i] ^= 0x8000
		case tensor.F64:
			n.F64[i] = -n.F64[i]
		}
	}
	return n
}

// productsInDType is apply_rotary_emb with each product and the sum rounded to x's dtype, as
// torch computes x * cos + rotate_half(x) * sin on BF16 or F16 tensors.
func (s *state) productsInDType() map[string]tensor.Tensor {
	x, cos, sin := s.cs.X, s.cs.Cos, s.cs.Sin
	d := x.DType
	r := func(v float32) float32 { return tensor.ToFloat32(d, tensor.FromFloat32(d, v)) }
	out := x.Clone()
	D, rd, rank := s.headSize, s.rotaryDim, x.Rank()
	coords := make([]int, rank)
	for row := 0; row < x.Len(); row += D {
		// coords of the row's first element; cos and sin broadcast where their dimension is 1.
		rest := row
		for k := rank - 1; k >= 0; k-- {
			coords[k] = rest % x.Shape[k]
			rest /= x.Shape[k]
		}
		off := 0
		for k := range rank - 1 {
			if cos.Shape[k] != 1 {
				off += coords[k] * cos.Stride(k)
			}
		}
		for j := range rd {
			partner, sign := j+rd/2, float32(-1)
			switch {
			case s.style == rope.GPTJ && j%2 == 0:
				partner = j + 1
			case s.style == rope.GPTJ:
				partner, sign = j-1, 1
			case j >= rd/2:
				partner, sign = j-rd/2, 1
			}
			c, sn := cos.Float32At(off+j), sin.Float32At(off+j)
			v, p := x.Float32At(row+j), sign*x.Float32At(row+partner)
			out.SetFloat32(row+j, r(r(float32(v*c))+r(float32(p*sn))))
		}
	}
	return map[string]tensor.Tensor{"out": out}
}
