package rotarytest

import (
	"fmt"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

func init() {
	register(ops.ApplyRotaryEmbTHD, (*sweep).applyRotaryEmbTHD)
	register(ops.ApplyRotaryEmbTHDBackward, (*sweep).applyRotaryEmbTHDBackward)
}

// applyRotaryEmbTHD checks packed sequences: plain, with an empty sequence and start positions,
// and context-parallel ranks; full and partial rotary dims. Out's elements past the rotary dim
// must be x's bits, in place or not.
func (s *sweep) applyRotaryEmbTHD() {
	op := ops.ApplyRotaryEmbTHD.Name()
	forTHD(func(c thdInput) {
		s.compareOp(op, c.name, func(disp *ops.Dispatcher) ([]tensor.Tensor, error) {
			out := tensor.Zeros(c.d, c.x.Shape...)
			return []tensor.Tensor{out}, rotary.ApplyRotaryEmbTHD(disp, rotary.ApplyRotaryEmbTHDParams{X: c.x, Cos: c.cos, Sin: c.sin, Out: out, Seqs: c.seqs, Style: c.st})
		})
	})
	forPass(passShapes, func(d tensor.DType, sh passShape) {
		p := newPassTHD(d, sh)
		for _, inPlace := range []bool{false, true} {
			s.passCase(op, p.name+passMode(inPlace), func() error {
				in, out := p.x.Clone(), tensor.Zeros(d, p.x.Shape...)
				if inPlace {
					out = in
				}
				if err := rotary.ApplyRotaryEmbTHD(s.under, rotary.ApplyRotaryEmbTHDParams{X: in, Cos: p.cos, Sin: p.sin, Out: out, Seqs: p.seqs, Style: sh.style}); err != nil {
					return err
				}
				return checkPass("out", p.x, out, sh.D, sh.rd)
			})
		}
	})
}

// applyRotaryEmbTHDBackward checks the backward pass on the forward's batches and tables. Dx's
// elements past the rotary dim must be dy's bits, in place or not.
func (s *sweep) applyRotaryEmbTHDBackward() {
	op := ops.ApplyRotaryEmbTHDBackward.Name()
	forTHD(func(c thdInput) {
		s.compareOp(op, c.name, func(disp *ops.Dispatcher) ([]tensor.Tensor, error) {
			dx := tensor.Zeros(c.d, c.dy.Shape...)
			return []tensor.Tensor{dx}, rotary.ApplyRotaryEmbTHDBackward(disp, rotary.ApplyRotaryEmbTHDBackwardParams{DY: c.dy, Cos: c.cos, Sin: c.sin, DX: dx, Seqs: c.seqs, Style: c.st})
		})
	})
	forPass(passShapes, func(d tensor.DType, sh passShape) {
		p := newPassTHD(d, sh)
		for _, inPlace := range []bool{false, true} {
			s.passCase(op, p.name+passMode(inPlace), func() error {
				g, dx := p.dy.Clone(), tensor.Zeros(d, p.dy.Shape...)
				if inPlace {
					dx = g
				}
				if err := rotary.ApplyRotaryEmbTHDBackward(s.under, rotary.ApplyRotaryEmbTHDBackwardParams{DY: g, Cos: p.cos, Sin: p.sin, DX: dx, Seqs: p.seqs, Style: sh.style}); err != nil {
					return err
				}
				return checkPass("dx", p.dy, dx, sh.D, sh.rd)
			})
		}
	})
}

// thdSeqs is a packed batch for the sweep: the full sequence lengths (multiples of 2·cp), start
// positions (nil: none), and the context-parallel split.
type thdSeqs struct {
	lens   []int
	starts []int64
	cp, r  int
}

func (c thdSeqs) packed() (ops.PackedSeqs, int) {
	cu := make([]int32, len(c.lens)+1)
	for b, n := range c.lens {
		cu[b+1] = cu[b] + int32(n)
	}
	p := ops.PackedSeqs{CuSeqlens: tensor.FromI32(cu, len(cu)), CPSize: c.cp, CPRank: c.r}
	if c.starts != nil {
		p.StartPositions = tensor.FromI64(c.starts, len(c.starts))
	}
	return p, int(cu[len(c.lens)]) / max(c.cp, 1)
}

// thdInput is one case of both passes: x and cos/sin tables for the forward, dy for the
// backward, drawn from a seed of the case's name so that both passes see the same.
type thdInput struct {
	name            string
	d               tensor.DType
	st              rotary.Style
	seqs            ops.PackedSeqs
	x, dy, cos, sin tensor.Tensor
}

// forTHD runs f on every dtype and style, each batch, and heads of 128 rotated whole and of 80
// rotated 48.
func forTHD(f func(c thdInput)) {
	batches := []thdSeqs{
		{lens: []int{5, 1, 9}, cp: 1},
		{lens: []int{4, 0, 7}, starts: []int64{3, 0, 100}, cp: 1},
		{lens: []int{8, 16}, cp: 2, r: 1},
		{lens: []int{12, 0, 6}, starts: []int64{0, 9, 40}, cp: 3, r: 0},
	}
	for _, d := range dtypes {
		for _, st := range styles {
			for bi, sq := range batches {
				for _, dims := range [][2]int{{128, 128}, {80, 48}} {
					c := thdInput{name: fmt.Sprintf("%v/%v/batch%d/head%d/rot%d", d, st, bi, dims[0], dims[1]), d: d, st: st}
					r := rng(len(c.name)*31 + bi)
					var T int
					c.seqs, T = sq.packed()
					c.x, c.dy = randomTensor(d, []int{T, 3, dims[0]}, &r), randomTensor(d, []int{T, 3, dims[0]}, &r)
					c.cos, c.sin = randomTensor(d, []int{160, dims[1]}, &r), randomTensor(d, []int{160, dims[1]}, &r)
					f(c)
				}
			}
		}
	}
}

// passTHD is a pass-through case of both passes: two packed sequences of [T, 8, D], x and dy
// with the patterns past the rotary dim.
type passTHD struct {
	name            string
	seqs            ops.PackedSeqs
	x, dy, cos, sin tensor.Tensor
}

func newPassTHD(d tensor.DType, sh passShape) passTHD {
	const H = 8
	pat := passPatterns(d, sh.full)
	T := (passRows(pat, sh.D-sh.rd) + H - 1) / H
	p := passTHD{name: fmt.Sprintf("%v/%v", d, sh)}
	r := rng(len(p.name) * 47)
	p.x, p.dy = tensor.Zeros(d, T, H, sh.D), tensor.Zeros(d, T, H, sh.D)
	fillPass(p.x, sh.D, sh.rd, pat, &r)
	fillPass(p.dy, sh.D, sh.rd, pat, &r)
	p.cos, p.sin = randomTensor(d, []int{T, sh.rd}, &r), randomTensor(d, []int{T, sh.rd}, &r)
	p.seqs = ops.PackedSeqs{CuSeqlens: tensor.FromI32([]int32{0, int32(T / 3), int32(T)}, 3)}
	return p
}
