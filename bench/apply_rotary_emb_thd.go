package bench

import (
	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// apply_rotary_emb_thd (TransformerEngine's fused RoPE on packed sequences) on Llama-3-8B query
// shapes: x [T, 32, 128] packing four sequences (T/4 tokens each, the last taking the
// remainder; fewer when T < 4) without context parallelism, cos and sin tables [T, 128].
// x read, out written (backward: dy for x, dx for out), and the cos and sin rows of the
// positions the sequences have: every sequence starts at position 0, so the first rows of the
// tables, as many as the longest sequence has tokens (the others read them again).
func init() {
	for _, backward := range []bool{false, true} {
		op := ops.ApplyRotaryEmbTHD.Name()
		if backward {
			op = ops.ApplyRotaryEmbTHDBackward.Name()
		}
		Register(Case{Op: op, Model: "llama-3-8b", MaxTokens: 16384,
			Setup: thdSetup(32, 128, 128, rotary.NeoX, backward),
			Derive: anyRoPE(func(s Shape) SetupFunc {
				return thdSetup(s.Heads, s.Spec.HeadSize, s.Spec.RotaryDim, s.Spec.Style, backward)
			})})
	}
}

// thdSetup: x [T,H,D] in four packed sequences, cos and sin tables [T,rd].
func thdSetup(H, D, rd int, style rotary.Style, backward bool) SetupFunc {
	return func(d tensor.DType, T int, disp *ops.Dispatcher) (func() error, []Operand, error) {
		x := Filled(d, T, H, D)
		out := tensor.Zeros(d, T, H, D)
		cos, sin := Filled(d, T, rd), Filled(d, T, rd)
		cu := packed(T, 4)
		seqs := ops.PackedSeqs{CuSeqlens: cu}
		longest := 0
		for b := 1; b < cu.Len(); b++ {
			longest = max(longest, int(cu.I64[b]-cu.I64[b-1]))
		}
		rows := longest * rd * d.Size()
		touched := append(Reads(x), Operand{Read, TensorBytes(cos)[:rows]}, Operand{Read, TensorBytes(sin)[:rows]})
		touched = append(touched, Writes(out)...)
		if backward {
			return func() error {
				return rotary.ApplyRotaryEmbTHDBackward(disp, rotary.ApplyRotaryEmbTHDBackwardParams{DY: x, Cos: cos, Sin: sin, DX: out, Seqs: seqs, Style: style})
			}, touched, nil
		}
		return func() error {
			return rotary.ApplyRotaryEmbTHD(disp, rotary.ApplyRotaryEmbTHDParams{X: x, Cos: cos, Sin: sin, Out: out, Seqs: seqs, Style: style})
		}, touched, nil
	}
}

// packed is cu_seqlens for T tokens in up to n sequences of T/n tokens, the last one taking
// the remainder.
func packed(T, n int) tensor.Tensor {
	n = max(1, min(n, T))
	cu := make([]int64, n+1)
	for b := 1; b < n; b++ {
		cu[b] = int64(b * (T / n))
	}
	cu[n] = int64(T)
	return tensor.FromI64(cu, n+1)
}
