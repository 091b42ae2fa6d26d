package cpu_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/backend/cpu"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// TestInterleaveRoPEThreads runs calls large enough to split across the pool (the conformance
// sweep's are not), so chunks start mid-tensor, with cos/sin broadcast over heads or per head,
// out of place and in place: bit for bit against native.
func TestInterleaveRoPEThreads(t *testing.T) {
	defer cpu.SetImplementation(cpu.Implementations()[0])
	r := rand.New(rand.NewPCG(5, 6))
	for _, d := range []tensor.DType{tensor.BF16, tensor.F16, tensor.F32} {
		for _, cosN := range []int{1, 16} {
			const B, N, S, D = 3, 16, 171, 64
			x := randomFloats(r, d, B, N, S, D)
			cos, sin := randomFloats(r, d, B, cosN, S, D), randomFloats(r, d, B, cosN, S, D)
			for _, inPlace := range []bool{false, true} {
				run := func(disp *ops.Dispatcher) tensor.Tensor {
					in := x.Clone()
					out := tensor.Zeros(d, B, N, S, D)
					if inPlace {
						out = in
					}
					if err := rotary.InterleaveRoPE(disp, in, cos, sin, out); err != nil {
						t.Fatal(err)
					}
					return out
				}
				want := run(mustDispatcher(t, "none", ops.Auto))
				for _, impl := range cpu.Implementations() {
					if err := cpu.SetImplementation(impl); err != nil {
						t.Fatal(err)
					}
					got := run(mustDispatcher(t, "all", cpu.Name))
					if !slices.Equal(want.F32, got.F32) || !slices.Equal(want.Bits, got.Bits) {
						t.Errorf("%v/cosN=%d/%s/inplace=%v: differs from native", d, cosN, impl, inPlace)
					}
				}
			}
		}
	}
}
