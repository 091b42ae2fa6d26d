package rotarytest

import (
	"fmt"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

func init() { register(ops.MRoPE, (*sweep).mrope) }

// mrope checks Embedding.Forward with MRoPE positions: three sections split three ways
// (Qwen2-VL's blocks, Qwen3-VL's interleave, ERNIE-4.5-VL's alternating h/w), four sections,
// and llama.cpp's IMROPE with its fourth row (Qwen3-VL's GGUF sections); past the rotary dim
// the heads keep their bits.
func (s *sweep) mrope() {
	op := ops.MRoPE.Name()
	for _, d := range dtypes {
		for _, st := range styles {
			for _, m := range []struct {
				sections               []int
				interleaved, alt, ggml bool
			}{
				{[]int{16, 24, 24}, false, false, false}, {[]int{24, 20, 20}, true, false, false},
				{[]int{16, 16, 16, 16}, false, false, false}, {[]int{22, 22, 20}, false, true, false},
				{[]int{24, 20, 20, 0}, true, false, true},
			} {
				sp := spec(128, 128, st)
				sp.MRoPE = &rotary.MRoPE{Sections: m.sections, Interleaved: m.interleaved, AlternateHW: m.alt, GGMLFourth: m.ggml}
				name := fmt.Sprintf("%v/%v/sections%v/interleaved=%t", d, st, m.sections, m.interleaved)
				switch {
				case m.alt:
					name = fmt.Sprintf("%v/%v/sections%v/alternate-hw", d, st, m.sections)
				case m.ggml:
					name = fmt.Sprintf("%v/%v/sections%v/ggml-fourth", d, st, m.sections)
				}
				rows := len(m.sections)
				s.qkCase(op, name, sp, d, s.tokenCounts(), func(r *rng, T int) tensor.Tensor {
					p := make([]int64, rows*T)
					for i := range p {
						p[i] = int64(r.next() % 4096)
					}
					if m.ggml {
						// Besides image tokens, llama.cpp's text tokens (t, h and w at the
						// position, the fourth row 0: llm_graph_input_pos::set_input) and
						// tokens with every row at one position (a kernel's text shortcut).
						for t := 0; t < T; t += 3 {
							for row := 1; row < rows; row++ {
								p[row*T+t] = p[t]
							}
							p[3*T+t] = 0
							if t+1 < T {
								for row := 1; row < rows; row++ {
									p[row*T+t+1] = p[t+1]
								}
							}
						}
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
