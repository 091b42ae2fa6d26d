package rotarytest

import (
	"fmt"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

func init() { register(ops.QKRMSNormRoPE, (*sweep).qkRMSNormRoPE) }

// qkRMSNormRoPE checks the fused norm and rotation through Embedding.ForwardQKNorm: positions
// the cache holds, positions past it (the gathered path), and MRoPE positions; GQA head counts,
// partial rotary dims, and weights of another dtype than the activations.
//
// Past the rotary dim nothing passes through untouched: Hugging Face norms the whole head and
// rotates its first RotaryDim elements, so the rest are the normed values w·norm(x), rounded to
// the dtype as the norm rounds them and then stored as they are. With x = 1 and ε = 0 the norm
// is exactly 1, so those elements come out as the weight's bits; a NaN weight goes through the
// norm's multiplication and only has to stay a NaN.
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
	forPass(passShapes[:2], s.passQKNorm)
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

// passQKNorm runs qk_rmsnorm_rope on heads of ones with ε = 0 (a norm of exactly 1) and the
// patterns as the weights of the pass-through elements, query and key taking the next ones
// in turn, and checks that those elements come out as the weights.
func (s *sweep) passQKNorm(d tensor.DType, sh passShape) {
	name := fmt.Sprintf("%v/%v", d, sh)
	s.passCase(ops.QKRMSNormRoPE.Name(), name, func() error {
		const T, hq, hk = 2, 3, 1
		emb, err := rotary.New(spec(sh.D, sh.rd, sh.style), rotary.WithCacheLen(16), rotary.WithDispatcher(s.under))
		if err != nil {
			return err
		}
		pat := passPatterns(d, sh.full)
		pos := tensor.FromI64([]int64{3, 11}, T)
		ones := func(w tensor.Tensor, from, to int) {
			for i := from; i < to; i++ {
				if d == tensor.F32 {
					w.F32[i] = 1
				} else {
					w.Bits[i] = tensor.FromFloat32(d, 1)
				}
			}
		}
		weight := func(k int) (tensor.Tensor, int) {
			w := tensor.Zeros(d, sh.D)
			ones(w, 0, sh.rd)
			for j := sh.rd; j < sh.D; j++ {
				setBits(w, j, pat[k%len(pat)])
				k++
			}
			return w, k
		}
		for k := 0; k < len(pat); {
			var qw, kw tensor.Tensor
			qw, k = weight(k)
			kw, k = weight(k)
			q, key := tensor.Zeros(d, T, hq, sh.D), tensor.Zeros(d, T, hk, sh.D)
			ones(q, 0, q.Len())
			ones(key, 0, key.Len())
			if err := emb.ForwardQKNorm(pos, q, key, qw, kw, 0); err != nil {
				return err
			}
			for _, c := range []struct {
				what   string
				out, w tensor.Tensor
			}{{"query", q, qw}, {"key", key, kw}} {
				for i := range c.out.Len() {
					j := i % sh.D
					if j < sh.rd {
						continue
					}
					g, w := bitsAt(c.out, i), bitsAt(c.w, j)
					if g == w || isNaNBits(d, w) && isNaNBits(d, g) {
						continue
					}
					return fmt.Errorf("%s: head %d element %d: bits %#x, want the weight's %#x", c.what, i/sh.D, j, g, w)
				}
			}
		}
		return nil
	})
}
