package cpu_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/backend/cpu"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// TestInterleaveRoPEThreads runs calls large enough to split across the pool (the conformance
// sweep's are not), so chunks start mid-tensor, with cos/sin broadcast over heads or per head,
// decode (S = 1) and prefill shapes, out of place and in place (rows of 128 in place take the
// Go path, rows of 64 the kernel), with special values among the inputs: bit for bit against
// native.
func TestInterleaveRoPEThreads(t *testing.T) {
	defer cpu.SetImplementation(cpu.Implementations()[0])
	r := rand.New(rand.NewPCG(5, 6))
	shapes := []struct{ B, N, S, D, cosN int }{
		{3, 16, 171, 64, 1},
		{3, 16, 171, 64, 16},
		{160, 128, 1, 64, 1}, // DeepSeek decode: the heads of a token share one cos/sin row
		{2, 8, 161, 128, 1},
	}
	for di, d := range []tensor.DType{tensor.BF16, tensor.F16, tensor.F32} {
		for si, sh := range shapes {
			if thinned(si, di, 3) {
				continue
			}
			x := randomTensor(r, d, specialValues, sh.B, sh.N, sh.S, sh.D)
			cos, sin := randomTensor(r, d, normalValues, sh.B, sh.cosN, sh.S, sh.D), randomTensor(r, d, normalValues, sh.B, sh.cosN, sh.S, sh.D)
			for _, inPlace := range []bool{false, true} {
				name := fmt.Sprintf("%v/x[%d,%d,%d,%d]/cosN=%d/inplace=%v", d, sh.B, sh.N, sh.S, sh.D, sh.cosN, inPlace)
				sameAsNative(t, name, func(disp *ops.Dispatcher) tensor.Tensor {
					in := x.Clone()
					out := tensor.Zeros(d, sh.B, sh.N, sh.S, sh.D)
					if inPlace {
						out = in
					}
					if err := rotary.InterleaveRoPE(disp, rotary.InterleaveRoPEParams{X: in, Cos: cos, Sin: sin, Out: out}); err != nil {
						t.Fatal(err)
					}
					return out
				})
			}
		}
	}
}
