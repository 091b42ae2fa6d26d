package rotarytest

import (
	"fmt"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

func init() {
	register(ops.ApplyRotaryEmb, (*sweep).applyRotaryEmb)
	register(ops.ApplyRotaryEmbBackward, (*sweep).applyRotaryEmbBackward)
}

// applyRotaryEmb checks the forward pass over the torch_npu layouts, out of place and in place.
// Out's elements past the rotary dim must be x's bits, in place or not.
func (s *sweep) applyRotaryEmb() {
	op := ops.ApplyRotaryEmb.Name()
	forApply(func(c applyInput) {
		s.compareOp(op, c.name, func(disp *ops.Dispatcher) ([]tensor.Tensor, error) {
			out := tensor.Zeros(c.d, c.xs...)
			return []tensor.Tensor{out}, rotary.ApplyRotaryEmb(disp, rotary.ApplyRotaryEmbParams{Layout: c.layout, X: c.x, Cos: c.cos, Sin: c.sin, Out: out, Style: c.st})
		})
		s.compareOp(op, c.name+"/in-place", func(disp *ops.Dispatcher) ([]tensor.Tensor, error) {
			out := c.x.Clone()
			return []tensor.Tensor{out}, rotary.ApplyRotaryEmb(disp, rotary.ApplyRotaryEmbParams{Layout: c.layout, X: out, Cos: c.cos, Sin: c.sin, Out: out, Style: c.st})
		})
	})
	forPass(passShapes, func(d tensor.DType, sh passShape) {
		p := newPassApply(d, sh)
		for _, inPlace := range []bool{false, true} {
			s.passCase(op, p.name+passMode(inPlace), func() error {
				in, out := p.x.Clone(), tensor.Zeros(d, p.xs...)
				if inPlace {
					out = in
				}
				if err := rotary.ApplyRotaryEmb(s.under, rotary.ApplyRotaryEmbParams{Layout: ops.THD, X: in, Cos: p.cos, Sin: p.sin, Out: out, Style: sh.style}); err != nil {
					return err
				}
				return checkPass("out", p.x, out, sh.D, sh.rd)
			})
		}
	})
}

// applyRotaryEmbBackward checks the backward pass over the same layouts and inputs as the
// forward one. Dx's elements past the rotary dim must be dy's bits, in place or not.
func (s *sweep) applyRotaryEmbBackward() {
	op := ops.ApplyRotaryEmbBackward.Name()
	forApply(func(c applyInput) {
		s.compareOp(op, c.name, func(disp *ops.Dispatcher) ([]tensor.Tensor, error) {
			dx, dcos, dsin := tensor.Zeros(c.d, c.xs...), tensor.Zeros(c.d, c.cs...), tensor.Zeros(c.d, c.cs...)
			return []tensor.Tensor{dx, dcos, dsin}, rotary.ApplyRotaryEmbBackward(disp, rotary.ApplyRotaryEmbBackwardParams{Layout: c.layout, DY: c.dy, X: c.x, Cos: c.cos, Sin: c.sin, DX: dx, DCos: dcos, DSin: dsin, Style: c.st})
		})
	})
	forPass(passShapes, func(d tensor.DType, sh passShape) {
		p := newPassApply(d, sh)
		for _, inPlace := range []bool{false, true} {
			s.passCase(op, p.name+passMode(inPlace), func() error {
				g, dx := p.dy.Clone(), tensor.Zeros(d, p.xs...)
				if inPlace {
					dx = g
				}
				dcos, dsin := tensor.Zeros(d, p.cs...), tensor.Zeros(d, p.cs...)
				if err := rotary.ApplyRotaryEmbBackward(s.under, rotary.ApplyRotaryEmbBackwardParams{Layout: ops.THD, DY: g, X: p.x, Cos: p.cos, Sin: p.sin, DX: dx, DCos: dcos, DSin: dsin, Style: sh.style}); err != nil {
					return err
				}
				return checkPass("dx", p.dy, dx, sh.D, sh.rd)
			})
		}
	})
}

// applyInput is one case of both passes: x, cos and sin for the forward, dy as well for the
// backward, drawn from a seed of the case's name so that both passes see the same.
type applyInput struct {
	name            string
	layout          ops.Layout
	d               tensor.DType
	st              rotary.Style
	xs, cs          []int
	x, cos, sin, dy tensor.Tensor
}

// forApply runs f on every dtype, style and layout; the THD one rotates 64 of 128.
func forApply(f func(c applyInput)) {
	layouts := []struct {
		name   ops.Layout
		x, cos []int
	}{
		{ops.BSND, []int{2, 7, 3, 128}, []int{1, 7, 1, 128}},
		{ops.BNSD, []int{2, 3, 7, 64}, []int{2, 1, 7, 64}},
		{ops.SBND, []int{7, 2, 3, 80}, []int{7, 1, 1, 80}},
		{ops.THD, []int{9, 4, 128}, []int{9, 1, 64}},
	}
	for _, d := range dtypes {
		for _, st := range styles {
			for _, l := range layouts {
				c := applyInput{name: fmt.Sprintf("%v/%v/%s%v", d, st, l.name, l.x), layout: l.name, d: d, st: st, xs: l.x, cs: l.cos}
				r := rng(len(c.name) * 7)
				c.x, c.cos, c.sin = randomTensor(d, c.xs, &r), randomTensor(d, c.cs, &r), randomTensor(d, c.cs, &r)
				c.dy = randomTensor(d, c.xs, &r)
				f(c)
			}
		}
	}
}

// passApply is a pass-through case of both passes: x [T, 8, D] and dy with the patterns past
// the rotary dim (THD layout), cos and sin broadcast over the heads.
type passApply struct {
	name            string
	xs, cs          []int
	x, dy, cos, sin tensor.Tensor
}

func newPassApply(d tensor.DType, sh passShape) passApply {
	const H = 8
	pat := passPatterns(d, sh.full)
	T := (passRows(pat, sh.D-sh.rd) + H - 1) / H
	p := passApply{name: fmt.Sprintf("%v/%v", d, sh), xs: []int{T, H, sh.D}, cs: []int{T, 1, sh.rd}}
	r := rng(len(p.name) * 43)
	p.x, p.dy = tensor.Zeros(d, p.xs...), tensor.Zeros(d, p.xs...)
	fillPass(p.x, sh.D, sh.rd, pat, &r)
	fillPass(p.dy, sh.D, sh.rd, pat, &r)
	p.cos, p.sin = randomTensor(d, p.cs, &r), randomTensor(d, p.cs, &r)
	return p
}
