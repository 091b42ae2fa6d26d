package ops_test

import (
	"testing"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// FuzzPackedAndInterleaveArgs feeds arbitrary tensors and context-parallel numbers to
// NewApplyRotaryEmbTHD (and its backward) and NewInterleaveRoPE: no panic, accepted views lie in
// their buffers, every accepted token maps to a table row that exists, and small accepted calls
// run through the kernels without a panic.
func FuzzPackedAndInterleaveArgs(f *testing.F) {
	vals := func(v ...int) []byte { return []byte(fuzzEncode(nil).i(v...)) }
	// x [6,2,8] F32, cos/sin [16,8], cu_seqlens [0,2,6] I32, no start positions, cp 1/0.
	seed := fuzzEncode(nil).contiguous(tensor.F32, 6, 2, 8).contiguous(tensor.F32, 16, 8).contiguous(tensor.F32, 16, 8)
	f.Add([]byte(seed.b(byte(tensor.I32), 1).i(3).b(0).i(0, 3).b(0)), vals(0, 2, 6), 1, 0)
	// cp 2 rank 1: cu_seqlens [0, 4, 12] for 6 local tokens, start positions.
	seed = fuzzEncode(nil).contiguous(tensor.BF16, 6, 1, 8).contiguous(tensor.F32, 32, 4).contiguous(tensor.F32, 32, 4)
	f.Add([]byte(seed.b(byte(tensor.I32), 1).i(3).b(0).i(0, 3).b(1)), vals(0, 4, 12, 5, 7), 2, 1)
	// BNSD for interleave_rope.
	seed = fuzzEncode(nil).contiguous(tensor.F16, 2, 3, 4, 8).contiguous(tensor.F16, 2, 1, 4, 8).contiguous(tensor.F16, 2, 1, 4, 8)
	f.Add([]byte(seed.b(byte(tensor.I64), 1).i(2).b(0).i(0, 2).b(0)), vals(0, 2), 0, 0)
	// Decreasing cu_seqlens, huge values, negative rank.
	f.Add([]byte(fuzzEncode(nil).contiguous(tensor.F32, 4, 1, 2).contiguous(tensor.F32, 4, 2).contiguous(tensor.F32, 4, 2)), vals(0, 3, 1, 4), 1, -1)
	f.Add([]byte(fuzzEncode(nil).contiguous(tensor.F32, 4, 1, 2).contiguous(tensor.F32, 4, 2).contiguous(tensor.F32, 4, 2)), vals(0, 1<<30, 4), 1<<20, 3)
	// An x without elements claiming 2^48 tokens: 2^48 × cp_size 2^16 wrapped to 0, the end of
	// cu_seqlens [0, 0].
	seed = fuzzEncode(nil).contiguous(tensor.F32, 1<<48, 0, 4).contiguous(tensor.F32, 4, 2).contiguous(tensor.F32, 4, 2)
	f.Add([]byte(seed.b(byte(tensor.I32), 1).i(2).b(0).i(0, 2).b(0)), vals(0, 0), ops.MaxCPSize, 0)

	f.Fuzz(func(t *testing.T, data, valueBytes []byte, cpSize, cpRank int) {
		r := &fuzzReader{b: data}
		var values []int32
		for vr := (&fuzzReader{b: valueBytes}); len(vr.b) > 0 && len(values) < 64; {
			values = append(values, int32(vr.int()))
		}
		x, cos, sin := r.tensor(), r.tensor(), r.tensor()
		cu := r.tensor()
		// Fill the integer tensor from values (the reader leaves it zeroed), and optionally take
		// start positions from what follows.
		if cu.DType == tensor.I32 || cu.DType == tensor.I64 {
			for i := range max(len(cu.I32), len(cu.I64)) {
				v := int32(0)
				if i < len(values) {
					v = values[i]
				}
				if cu.I32 != nil {
					cu.I32[i] = v
				} else {
					cu.I64[i] = int64(v) * int64(1+i%3)
				}
			}
		}
		var starts tensor.Tensor
		if r.byte()%2 == 1 && len(values) > 0 {
			n := len(values) / 2
			starts = tensor.FromI32(append([]int32(nil), values[len(values)-n:]...), n)
		}
		seqs := ops.PackedSeqs{CuSeqlens: cu, StartPositions: starts, CPSize: cpSize, CPRank: cpRank}
		for _, inPlace := range []bool{true, false} {
			out := x
			if !inPlace {
				if x.Check("x") != nil || elements(x.Shape, maxBacking) > maxBacking {
					continue
				}
				out = tensor.Zeros(x.DType, x.Shape...)
			}
			a, err := ops.NewApplyRotaryEmbTHD(ops.ApplyRotaryEmbTHDParams{X: x, Cos: cos, Sin: sin, Out: out, Seqs: seqs, Style: styleOf(inPlace)})
			if err != nil {
				continue
			}
			for _, v := range []struct {
				n string
				t tensor.Tensor
			}{{"x", a.X}, {"cos", a.Cos}, {"sin", a.Sin}, {"out", a.Out}} {
				checkTensorSpan(t, "NewApplyRotaryEmbTHD "+v.n, v.t)
			}
			if a.CPSize < 1 || a.CPRank < 0 || a.CPRank >= a.CPSize {
				t.Fatalf("accepted cp_size %d, cp_rank %d", a.CPSize, a.CPRank)
			}
			covered := 0
			for b := range a.NumSeqs() {
				lo, hi := a.Local(b)
				if lo != covered || hi < lo {
					t.Fatalf("sequence %d covers local rows [%d, %d) after %d", b, lo, hi, covered)
				}
				covered = hi
				if hi-lo > 1<<12 {
					continue
				}
				for s := range hi - lo {
					if p := a.Position(b, s); p < 0 || p >= int64(a.Cos.Shape[0]) {
						t.Fatalf("sequence %d token %d: row %d of a %d-row table", b, s, p, a.Cos.Shape[0])
					}
				}
			}
			if covered != a.X.Shape[0] {
				t.Fatalf("sequences cover %d of %d tokens", covered, a.X.Shape[0])
			}
			if elements(a.X.Shape, 1<<14) <= 1<<14 {
				if _, err := ops.Run(ops.Default, ops.ApplyRotaryEmbTHD, a); err != nil {
					t.Fatal(err)
				}
				b, err := ops.NewApplyRotaryEmbTHDBackward(ops.ApplyRotaryEmbTHDBackwardParams{DY: out, Cos: cos, Sin: sin, DX: out, Seqs: seqs, Style: styleOf(inPlace)})
				if err != nil {
					t.Fatalf("the backward pass refuses what the forward accepted: %v", err)
				}
				if _, err := ops.Run(ops.Default, ops.ApplyRotaryEmbTHDBackward, b); err != nil {
					t.Fatal(err)
				}
			}
		}

		a, err := ops.NewInterleaveRoPE(ops.InterleaveRoPEParams{X: x, Cos: cos, Sin: sin, Out: x})
		if err != nil {
			return
		}
		for _, v := range []struct {
			n string
			t tensor.Tensor
		}{{"x", a.X}, {"cos", a.Cos}, {"sin", a.Sin}} {
			checkTensorSpan(t, "NewInterleaveRoPE "+v.n, v.t)
		}
		if elements(a.X.Shape, 1<<14) <= 1<<14 {
			if _, err := ops.Run(ops.Default, ops.InterleaveRoPE, a); err != nil {
				t.Fatal(err)
			}
		}
	})
}
