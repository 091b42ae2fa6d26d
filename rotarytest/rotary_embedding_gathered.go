package rotarytest

import (
	"fmt"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

func init() { register(ops.RotaryEmbeddingGather, (*sweep).rotaryEmbeddingGathered) }

// rotaryEmbeddingGathered checks the rotation by per-token cos/sin, which Embedding.Forward takes
// for positions past its cache: positions up to 2^20, far past any cache, and the last one
// exactly 2^20; past the rotary dim the heads keep their bits.
func (s *sweep) rotaryEmbeddingGathered() {
	op := ops.RotaryEmbeddingGather.Name()
	for _, d := range dtypes {
		for _, st := range styles {
			name := fmt.Sprintf("%v/%v/head128/positions2^20", d, st)
			s.qkCase(op, name, spec(128, 128, st), d, s.tokenCounts(), positions1D(1<<20+1))
		}
	}
	forPass(passShapes, func(d tensor.DType, sh passShape) {
		s.passQK(op, d, sh, spec(sh.D, sh.rd, sh.style), 1, passCacheLen)
	})
}
