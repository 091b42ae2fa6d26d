package rotarytest

import (
	"fmt"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

func init() {
	addCases("apply_rotary_emb_thd", (*sweep).applyRotaryEmbTHD)
	addCases("qk_rmsnorm_rope", (*sweep).qkRMSNormRoPE)
	addCases("interleave_rope", (*sweep).interleaveRoPE)
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

// applyRotaryEmbTHD checks packed sequences forward and backward: plain, with an empty sequence
// and start positions, and two context-parallel ranks; full and partial rotary dims.
func (s *sweep) applyRotaryEmbTHD() {
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
					name := fmt.Sprintf("%v/%v/batch%d/head%d/rot%d", d, st, bi, dims[0], dims[1])
					r := rng(len(name)*31 + bi)
					seqs, T := sq.packed()
					x, dy := randomTensor(d, []int{T, 3, dims[0]}, &r), randomTensor(d, []int{T, 3, dims[0]}, &r)
					cos, sin := randomTensor(d, []int{160, dims[1]}, &r), randomTensor(d, []int{160, dims[1]}, &r)
					s.compareOp(ops.ApplyRotaryEmbTHD.Name(), name, func(disp *ops.Dispatcher) ([]tensor.Tensor, error) {
						out := tensor.Zeros(d, T, 3, dims[0])
						return []tensor.Tensor{out}, rotary.ApplyRotaryEmbTHD(disp, rotary.ApplyRotaryEmbTHDParams{X: x, Cos: cos, Sin: sin, Out: out, Seqs: seqs, Style: st})
					})
					s.compareOp(ops.ApplyRotaryEmbTHDBackward.Name(), name, func(disp *ops.Dispatcher) ([]tensor.Tensor, error) {
						dx := tensor.Zeros(d, T, 3, dims[0])
						return []tensor.Tensor{dx}, rotary.ApplyRotaryEmbTHDBackward(disp, rotary.ApplyRotaryEmbTHDBackwardParams{DY: dy, Cos: cos, Sin: sin, DX: dx, Seqs: seqs, Style: st})
					})
				}
			}
		}
	}
}

// qkRMSNormRoPE checks the fused norm and rotation through Embedding.ForwardQKNorm: positions
// the cache holds, positions past it (the gathered path), and MRoPE positions; GQA head counts,
// partial rotary dims, and weights of another dtype than the activations.
func (s *sweep) qkRMSNormRoPE() {
	hds := []int{64, 80, 112, 128, 256} // 80 and 112: a 16-element tail past the 32-lane sums
	if s.opts.Short {
		hds = []int{128}
	}
	for _, d := range dtypes {
		for _, st := range styles {
			for _, hd := range hds {
				for _, rd := range []int{hd, hd / 2} {
					for _, path := range []string{"cached", "past-cache", "mrope"} {
						name := fmt.Sprintf("%v/%v/head%d/rot%d/%s", d, st, hd, rd, path)
						sp := spec(hd, rd, st)
						rows := 1
						limit := int64(256)
						switch path {
						case "past-cache":
							limit = 3000
						case "mrope":
							h := rd / 2
							sp.MRoPE = &rotary.MRoPE{Sections: []int{h - 2*(h/3), h / 3, h / 3}, Interleaved: hd == 128}
							rows = 3
						}
						wd := d
						if hd == 64 {
							wd = tensor.F32 // a float32 weight with 16-bit activations
						}
						s.qkNormCase(name, sp, d, wd, rows, limit)
					}
				}
			}
		}
	}
}

func (s *sweep) qkNormCase(name string, sp rotary.Spec, d, wd tensor.DType, rows int, limit int64) {
	type input struct{ pos, q, k tensor.Tensor }
	r := rng(len(name) * 17)
	var inputs []input
	for _, T := range s.tokenCounts() {
		p := make([]int64, rows*T)
		for i := range p {
			p[i] = int64(r.next() % uint64(limit))
		}
		pos := tensor.FromI64(p, T)
		if rows > 1 {
			pos = tensor.FromI64(p, rows, T)
		}
		inputs = append(inputs, input{pos, randomTensor(d, []int{T, 5, sp.HeadSize}, &r), randomTensor(d, []int{T, 1, sp.HeadSize}, &r)})
	}
	qw, kw := randomTensor(wd, []int{sp.HeadSize}, &r), randomTensor(wd, []int{sp.HeadSize}, &r)
	s.compareOp(ops.QKRMSNormRoPE.Name(), name, func(disp *ops.Dispatcher) ([]tensor.Tensor, error) {
		emb, err := rotary.New(sp, rotary.WithCacheLen(256), rotary.WithDispatcher(disp))
		if err != nil {
			return nil, err
		}
		var outs []tensor.Tensor
		for _, in := range inputs {
			q, k := in.q.Clone(), in.k.Clone()
			if err := emb.ForwardQKNorm(in.pos, q, k, qw, kw, 1e-6); err != nil {
				return nil, err
			}
			outs = append(outs, q, k)
		}
		return outs, nil
	})
}

// interleaveRoPE checks npu_interleave_rope's BNSD form with the documented cos/sin broadcasts
// (per batch and sequence, per batch only) and wider heads.
func (s *sweep) interleaveRoPE() {
	shapes := []struct{ x, cos []int }{
		{[]int{2, 3, 5, 64}, []int{2, 1, 5, 64}},
		{[]int{3, 4, 1, 64}, []int{3, 1, 1, 64}},
		{[]int{2, 2, 7, 128}, []int{1, 1, 7, 128}},
		{[]int{1, 2, 3, 18}, []int{1, 2, 3, 18}},
	}
	for _, d := range dtypes {
		for _, sh := range shapes {
			name := fmt.Sprintf("%v/x%v/cos%v", d, sh.x, sh.cos)
			r := rng(len(name) * 13)
			x, cos, sin := randomTensor(d, sh.x, &r), randomTensor(d, sh.cos, &r), randomTensor(d, sh.cos, &r)
			s.compareOp(ops.InterleaveRoPE.Name(), name, func(disp *ops.Dispatcher) ([]tensor.Tensor, error) {
				out := tensor.Zeros(d, sh.x...)
				return []tensor.Tensor{out}, rotary.InterleaveRoPE(disp, rotary.InterleaveRoPEParams{X: x, Cos: cos, Sin: sin, Out: out})
			})
		}
	}
}
