package rotarytest

import (
	"fmt"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// qkCase runs one q/k rotation through both dispatchers; call applies it given an embedding.
func (s *sweep) qkCase(op, name string, sp rotary.Spec, d tensor.DType, tokens []int, positions func(r *rng, T int) tensor.Tensor) {
	if s.lacks(op, name) {
		return
	}
	res := Result{Op: op, Case: name}
	defer func() {
		if p := recover(); p != nil {
			res.Err = fmt.Errorf("panic: %v", p)
		}
		s.results = append(s.results, res)
	}()
	embRef, err := rotary.New(sp, rotary.WithCacheLen(4096), rotary.WithDispatcher(s.ref))
	if err != nil {
		res.Err = err
		return
	}
	embUnder, _ := rotary.New(sp, rotary.WithCacheLen(4096), rotary.WithDispatcher(s.under))
	r := rng(len(name))
	for _, T := range tokens {
		pos := positions(&r, T)
		q := newGuarded(d, T, 4, sp.HeadSize, 3, r.next())
		k := newGuarded(d, T, 2, sp.HeadSize, 5, r.next())
		q2, k2 := q.clone(), k.clone()
		if err := embRef.Forward(pos, q.t, k.t); err != nil {
			res.Err = err
			return
		}
		if err := embUnder.Forward(pos, q2.t, k2.t); err != nil {
			res.Err = err
			return
		}
		for _, pair := range [][2]guarded{{q, q2}, {k, k2}} {
			u, err := compare(pair[0], pair[1])
			if err != nil {
				res.Err = fmt.Errorf("%d tokens: %v", T, err)
				return
			}
			res.MaxULP = max(res.MaxULP, u)
		}
	}
}

func positions1D(limit int64) func(r *rng, T int) tensor.Tensor {
	return func(r *rng, T int) tensor.Tensor {
		p := make([]int64, T)
		for i := range p {
			p[i] = int64(r.next() % uint64(limit))
		}
		if T > 1 {
			p[T-1] = limit - 1 // the last row of the range
		}
		return tensor.FromI64(p, T)
	}
}

func (s *sweep) rotaryEmbedding() {
	hds := headDim
	if s.opts.Short {
		hds = []int{64, 80, 128, 256}
	}
	for _, d := range dtypes {
		for _, st := range styles {
			for _, hd := range hds {
				for _, rd := range []int{hd, hd / 2 &^ 1} {
					name := fmt.Sprintf("%v/%v/head%d/rot%d", d, st, hd, rd)
					s.qkCase(ops.RotaryEmbedding.Name(), name, spec(hd, rd, st), d, s.tokenCounts(), positions1D(4096))
				}
			}
			name := fmt.Sprintf("%v/%v/head128/positions2^20", d, st)
			s.qkCase(ops.RotaryEmbeddingGather.Name(), name, spec(128, 128, st), d, s.tokenCounts(), positions1D(1<<20+1))
		}
	}
}

func (s *sweep) mrope() {
	for _, d := range dtypes {
		for _, st := range styles {
			for _, m := range []struct {
				sections    []int
				interleaved bool
			}{{[]int{16, 24, 24}, false}, {[]int{24, 20, 20}, true}, {[]int{16, 16, 16, 16}, false}} {
				sp := spec(128, 128, st)
				sp.MRoPE = &rotary.MRoPE{Sections: m.sections, Interleaved: m.interleaved}
				name := fmt.Sprintf("%v/%v/sections%v/interleaved=%t", d, st, m.sections, m.interleaved)
				rows := len(m.sections)
				s.qkCase(ops.MRoPE.Name(), name, sp, d, s.tokenCounts(), func(r *rng, T int) tensor.Tensor {
					p := make([]int64, rows*T)
					for i := range p {
						p[i] = int64(r.next() % 4096)
					}
					return tensor.FromI64(p, rows, T)
				})
			}
		}
	}
}

// applyRotaryEmb checks the forward and backward passes over the torch_npu layouts.
func (s *sweep) applyRotaryEmb() {
	type layout struct {
		name   ops.Layout
		x, cos []int
	}
	layouts := []layout{
		{ops.BSND, []int{2, 7, 3, 128}, []int{1, 7, 1, 128}},
		{ops.BNSD, []int{2, 3, 7, 64}, []int{2, 1, 7, 64}},
		{ops.SBND, []int{7, 2, 3, 80}, []int{7, 1, 1, 80}},
		{ops.THD, []int{9, 4, 128}, []int{9, 1, 64}}, // partial: rotates 64 of 128
	}
	for _, d := range dtypes {
		for _, st := range styles {
			for _, l := range layouts {
				name := fmt.Sprintf("%v/%v/%s%v", d, st, l.name, l.x)
				s.applyCase(name, l.name, d, st, l.x, l.cos)
			}
		}
	}
}

func randomTensor(d tensor.DType, shape []int, r *rng) tensor.Tensor {
	t := tensor.Zeros(d, shape...)
	for i := range t.Len() {
		if d == tensor.F32 {
			t.F32[i] = r.value()
		} else {
			t.Bits[i] = tensor.FromFloat32(d, r.value())
		}
	}
	return t
}

func whole(t tensor.Tensor) guarded { return guarded{t: t, guard: make([]bool, t.Len())} }

func (s *sweep) applyCase(name string, layout ops.Layout, d tensor.DType, st rotary.Style, xs, cs []int) {
	r := rng(len(name) * 7)
	x, cos, sin := randomTensor(d, xs, &r), randomTensor(d, cs, &r), randomTensor(d, cs, &r)
	dy := randomTensor(d, xs, &r)
	s.compareOp(ops.ApplyRotaryEmb.Name(), name, func(disp *ops.Dispatcher) ([]tensor.Tensor, error) {
		out := tensor.Zeros(d, xs...)
		return []tensor.Tensor{out}, rotary.ApplyRotaryEmb(disp, rotary.ApplyRotaryEmbParams{Layout: layout, X: x, Cos: cos, Sin: sin, Out: out, Style: st})
	})
	s.compareOp(ops.ApplyRotaryEmb.Name(), name+"/in-place", func(disp *ops.Dispatcher) ([]tensor.Tensor, error) {
		out := x.Clone()
		return []tensor.Tensor{out}, rotary.ApplyRotaryEmb(disp, rotary.ApplyRotaryEmbParams{Layout: layout, X: out, Cos: cos, Sin: sin, Out: out, Style: st})
	})
	s.compareOp(ops.ApplyRotaryEmbBackward.Name(), name, func(disp *ops.Dispatcher) ([]tensor.Tensor, error) {
		dx, dcos, dsin := tensor.Zeros(d, xs...), tensor.Zeros(d, cs...), tensor.Zeros(d, cs...)
		return []tensor.Tensor{dx, dcos, dsin}, rotary.ApplyRotaryEmbBackward(disp, rotary.ApplyRotaryEmbBackwardParams{Layout: layout, DY: dy, X: x, Cos: cos, Sin: sin, DX: dx, DCos: dcos, DSin: dsin, Style: st})
	})
}

// compareOp runs f once under the reference dispatcher and once under the backend's, on inputs
// f must not modify (it allocates its outputs), and records the worst ULP difference over the
// outputs it returns (F32, F16 or BF16 tensors; integer outputs must match exactly).
func (s *sweep) compareOp(op, name string, f func(disp *ops.Dispatcher) ([]tensor.Tensor, error)) {
	if s.lacks(op, name) {
		return
	}
	res := Result{Op: op, Case: name}
	defer func() {
		if p := recover(); p != nil {
			res.Err = fmt.Errorf("panic: %v", p)
		}
		s.results = append(s.results, res)
	}()
	want, err := f(s.ref)
	if err != nil {
		res.Err = err
		return
	}
	got, err := f(s.under)
	if err != nil {
		res.Err = err
		return
	}
	for i := range want {
		u, err := compareAny(want[i], got[i])
		if err != nil {
			res.Err = fmt.Errorf("output %d: %v", i, err)
			return
		}
		res.MaxULP = max(res.MaxULP, u)
	}
}

// compareAny compares two contiguous tensors of the same type: floats in ULP, others exactly.
func compareAny(want, got tensor.Tensor) (int64, error) {
	if want.DType != got.DType || want.Len() != got.Len() {
		return 0, fmt.Errorf("dtype/shape %v%v vs %v%v", want.DType, want.Shape, got.DType, got.Shape)
	}
	if want.DType.IsFloat() {
		return compare(whole(want), whole(got))
	}
	for i := range want.Len() {
		if want.Float64At(i) != got.Float64At(i) {
			return 0, fmt.Errorf("element %d: %v, want %v", i, got.Float64At(i), want.Float64At(i))
		}
	}
	return 0, nil
}
