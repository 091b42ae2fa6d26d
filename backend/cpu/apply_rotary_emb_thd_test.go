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

// TestApplyRotaryEmbTHDThreads runs packed batches large enough to split across the pool (the
// conformance sweep's are not), so chunks start inside sequences and after empty ones, with
// start positions and context parallelism, forward and backward, out of place and in place:
// bit for bit against native.
func TestApplyRotaryEmbTHDThreads(t *testing.T) {
	defer cpu.SetImplementation(cpu.Implementations()[0])
	batches := []struct {
		lens   []int32
		starts []int64
		cp, r  int
	}{
		{lens: []int32{700, 0, 1401, 3}, cp: 1},
		{lens: []int32{1200, 0, 2000}, starts: []int64{5, 0, 17}, cp: 2, r: 1},
		{lens: []int32{600, 1800}, cp: 3, r: 2},
	}
	r := rand.New(rand.NewPCG(3, 4))
	for bi, bt := range batches {
		cu := []int32{0}
		for _, n := range bt.lens {
			cu = append(cu, cu[len(cu)-1]+n)
		}
		seqs := ops.PackedSeqs{CuSeqlens: tensor.FromI32(cu, len(cu)), CPSize: bt.cp, CPRank: bt.r}
		if bt.starts != nil {
			seqs.StartPositions = tensor.FromI64(bt.starts, len(bt.starts))
		}
		T := int(cu[len(cu)-1]) / bt.cp
		for _, d := range []tensor.DType{tensor.BF16, tensor.F32} {
			for _, st := range []rotary.Style{rotary.NeoX, rotary.GPTJ} {
				const H, D, rot, S = 8, 128, 96, 2100
				x := randomFloats(r, d, T, H, D)
				cos, sin := randomFloats(r, d, S, rot), randomFloats(r, d, S, rot)
				run := func(disp *ops.Dispatcher, backward, inPlace bool) tensor.Tensor {
					in := x.Clone()
					out := tensor.Zeros(d, T, H, D)
					if inPlace {
						out = in
					}
					var err error
					if backward {
						err = rotary.ApplyRotaryEmbTHDBackward(disp, in, cos, sin, out, seqs, st)
					} else {
						err = rotary.ApplyRotaryEmbTHD(disp, in, cos, sin, out, seqs, st)
					}
					if err != nil {
						t.Fatal(err)
					}
					return out
				}
				for _, backward := range []bool{false, true} {
					inPlace := backward == (bi%2 == 0) // both ways in each direction over the batches
					want := run(mustDispatcher(t, "none", ops.Auto), backward, inPlace)
					for _, impl := range cpu.Implementations() {
						if err := cpu.SetImplementation(impl); err != nil {
							t.Fatal(err)
						}
						got := run(mustDispatcher(t, "all", cpu.Name), backward, inPlace)
						if !slices.Equal(want.F32, got.F32) || !slices.Equal(want.Bits, got.Bits) {
							t.Errorf("batch%d/%v/%v/%s/backward=%v/inplace=%v: differs from native", bi, d, st, impl, backward, inPlace)
						}
					}
				}
			}
		}
	}
}

// randomFloats is a contiguous tensor of values in [-1, 1).
func randomFloats(r *rand.Rand, d tensor.DType, shape ...int) tensor.Tensor {
	t := tensor.Zeros(d, shape...)
	for i := range t.Len() {
		v := float32(r.Float64()*2 - 1)
		if d == tensor.F32 {
			t.F32[i] = v
		} else {
			t.Bits[i] = tensor.FromFloat32(d, v)
		}
	}
	return t
}
