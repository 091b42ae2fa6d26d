package rotarytest

import (
	"fmt"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

func init() { register(ops.RotaryEmbedding, (*sweep).rotaryEmbedding) }

// rotaryEmbedding checks Embedding.Forward from the cos/sin cache over every head size, full and
// partial rotary dims, both styles and all dtypes; past the rotary dim the heads keep their bits.
func (s *sweep) rotaryEmbedding() {
	op := ops.RotaryEmbedding.Name()
	hds := headDim
	if s.opts.Short {
		hds = []int{64, 80, 128, 256}
	}
	for _, d := range dtypes {
		for _, st := range styles {
			for _, hd := range hds {
				for _, rd := range []int{hd, hd / 2 &^ 1} {
					name := fmt.Sprintf("%v/%v/head%d/rot%d", d, st, hd, rd)
					s.qkCase(op, name, spec(hd, rd, st), d, s.tokenCounts(), positions1D(4096))
				}
			}
		}
	}
	forPass(passShapes, func(d tensor.DType, sh passShape) {
		s.passQK(op, d, sh, spec(sh.D, sh.rd, sh.style), 1, 0)
	})
}
