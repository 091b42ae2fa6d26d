package rotarytest

import (
	"fmt"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

func init() { register(ops.MRoPE, (*sweep).mrope) }

// mrope checks Embedding.Forward with MRoPE positions: three sections split three ways
// (Qwen2-VL's blocks, Qwen3-VL's interleave, ERNIE-4.5-VL's alternating h/w) and four
// sections; past the rotary dim the heads keep their bits.
func (s *sweep) mrope() {
	op := ops.MRoPE.Name()
	for _, d := range dtypes {
		for _, st := range styles {
			for _, m := range []struct {
				sections         []int
				interleaved, alt bool
			}{{[]int{16, 24, 24}, false, false}, {[]int{24, 20, 20}, true, false}, {[]int{16, 16, 16, 16}, false, false}, {[]int{22, 22, 20}, false, true}} {
				sp := spec(128, 128, st)
				sp.MRoPE = &rotary.MRoPE{Sections: m.sections, Interleaved: m.interleaved, AlternateHW: m.alt}
				name := fmt.Sprintf("%v/%v/sections%v/interleaved=%t", d, st, m.sections, m.interleaved)
				if m.alt {
					name = fmt.Sprintf("%v/%v/sections%v/alternate-hw", d, st, m.sections)
				}
				rows := len(m.sections)
				s.qkCase(op, name, sp, d, s.tokenCounts(), func(r *rng, T int) tensor.Tensor {
					p := make([]int64, rows*T)
					for i := range p {
						p[i] = int64(r.next() % 4096)
					}
					return tensor.FromI64(p, rows, T)
				})
			}
		}
	}
	forPass(passShapes, func(d tensor.DType, sh passShape) {
		h := sh.rd / 2
		sp := spec(sh.D, sh.rd, sh.style)
		sp.MRoPE = &rotary.MRoPE{Sections: []int{h - 2*(h/3), h / 3, h / 3}}
		s.passQK(op, d, sh, sp, 3, 0)
	})
}
