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

// TestApplyRotaryEmbTHDThreads runs packed batches large enough to split across the pool (the
// conformance sweep's are not), so chunks start inside sequences and after empty ones, with
// start positions and context parallelism, forward and backward, out of place and in place,
// with special values among the inputs: bit for bit against native.
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
		for di, d := range []tensor.DType{tensor.BF16, tensor.F32} {
			if thinned(bi, di, 2) {
				continue
			}
			for _, st := range []rotary.Style{rotary.NeoX, rotary.GPTJ} {
				const H, D, rot, S = 4, 128, 96, 2100
				x := randomTensor(r, d, specialValues, T, H, D)
				cos, sin := randomTensor(r, d, normalValues, S, rot), randomTensor(r, d, normalValues, S, rot)
				for _, backward := range []bool{false, true} {
					inPlace := backward == (bi%2 == 0) // both ways in each direction over the batches
					name := fmt.Sprintf("batch%d/%v/%v/backward=%v/inplace=%v", bi, d, st, backward, inPlace)
					sameAsNative(t, name, func(disp *ops.Dispatcher) tensor.Tensor {
						in := x.Clone()
						out := tensor.Zeros(d, T, H, D)
						if inPlace {
							out = in
						}
						var err error
						if backward {
							err = rotary.ApplyRotaryEmbTHDBackward(disp, rotary.ApplyRotaryEmbTHDBackwardParams{DY: in, Cos: cos, Sin: sin, DX: out, Seqs: seqs, Style: st})
						} else {
							err = rotary.ApplyRotaryEmbTHD(disp, rotary.ApplyRotaryEmbTHDParams{X: in, Cos: cos, Sin: sin, Out: out, Seqs: seqs, Style: st})
						}
						if err != nil {
							t.Fatal(err)
						}
						return out
					})
				}
			}
		}
	}
}
