package ops

import (
	"fmt"

	"github.com/rotary-go/rotary/tensor"
)

// InterleaveRoPEParams are the caller's arguments of op interleave_rope: x, cos and sin in,
// out (which may be x) written.
type InterleaveRoPEParams struct {
	X, Cos, Sin, Out tensor.Tensor
}

// InterleaveRoPEArgs are the arguments of op interleave_rope (torch_npu npu_interleave_rope,
// aclnnInterleaveRope). Each row x of D elements is first de-interleaved,
// q = reshape(x, [D/2, 2]).transpose(-1, -2).reshape(D) = (x0, x2, …, x_{D−2}, x1, x3, …, x_{D−1}),
// and then rotated NeoX style, out = q·cos + rotate_half(q)·sin, written in q's order:
//
//	out[i]       = x[2i]·cos[i]         − x[2i+1]·sin[i]
//	out[D/2 + i] = x[2i+1]·cos[D/2 + i] + x[2i]·sin[D/2 + i]    (i < D/2)
//
// This is DeepSeek's apply_rotary_pos_emb (which de-interleaves q and k before rotate_half): the
// output order differs from the input's, unlike apply_rotary_emb with GPT-J style, which writes
// each pair back where it was read. Attention scores are the same either way as long as q and k
// both go through it. cos and sin are at full width in NeoX layout (cat(freqs, freqs)).
type InterleaveRoPEArgs struct {
	// X and Out are [B, N, S, D]; Out may be X.
	X, Out tensor.Tensor
	// Cos and Sin are [B', N', S', D], each leading dimension x's or 1 (broadcast).
	Cos, Sin tensor.Tensor
}

// InterleaveRoPE is the op.
var InterleaveRoPE = NewOp[InterleaveRoPEArgs]("interleave_rope")

// NewInterleaveRoPE checks interleave_rope's arguments. x is [B, N, S, D] with D even; cos and
// sin have x's rank, D as their last dimension, and each other dimension equal to x's or 1; out
// has x's shape and dtype. The NPU operator is narrower (D = 64, cos/sin N = 1, S = 1 or x's S,
// F16/BF16 with cos/sin in x's dtype); this reference accepts the general case.
func NewInterleaveRoPE(p InterleaveRoPEParams) (InterleaveRoPEArgs, error) {
	x, cos, sin, out := p.X, p.Cos, p.Sin, p.Out
	if err := checkFloat("x", x); err != nil {
		return InterleaveRoPEArgs{}, err
	}
	if x.Rank() != 4 {
		return InterleaveRoPEArgs{}, fmt.Errorf("x: shape %s: want [B, N, S, D] (BNSD)", tensor.ShapeString(x.Shape))
	}
	for _, a := range []struct {
		n string
		t tensor.Tensor
	}{{"cos", cos}, {"sin", sin}, {"out", out}} {
		if err := checkFloat(a.n, a.t); err != nil {
			return InterleaveRoPEArgs{}, err
		}
	}
	D := x.Shape[3]
	if D == 0 || D%2 != 0 {
		return InterleaveRoPEArgs{}, fmt.Errorf("x: head dim %d (shape %s): want an even number > 0", D, tensor.ShapeString(x.Shape))
	}
	if err := checkSameShape("sin", sin, "cos", cos); err != nil {
		return InterleaveRoPEArgs{}, err
	}
	if cos.Rank() != 4 {
		return InterleaveRoPEArgs{}, fmt.Errorf("cos: shape %s: want [B, 1, S, D] like x %s", tensor.ShapeString(cos.Shape), tensor.ShapeString(x.Shape))
	}
	for k := range 3 {
		if cos.Shape[k] != x.Shape[k] && cos.Shape[k] != 1 {
			return InterleaveRoPEArgs{}, fmt.Errorf("cos: shape %s does not broadcast to x %s (dimension %d is %d, want %d or 1)", tensor.ShapeString(cos.Shape), tensor.ShapeString(x.Shape), k, cos.Shape[k], x.Shape[k])
		}
	}
	if cos.Shape[3] != D {
		return InterleaveRoPEArgs{}, fmt.Errorf("cos: last dimension %d (shape %s): want x's head dim %d", cos.Shape[3], tensor.ShapeString(cos.Shape), D)
	}
	if err := checkSameShape("out", out, "x", x); err != nil {
		return InterleaveRoPEArgs{}, err
	}
	for _, a := range []struct {
		n string
		t tensor.Tensor
	}{{"x", x}, {"cos", cos}, {"sin", sin}, {"out", out}} {
		if a.t.Stride(3) != 1 {
			return InterleaveRoPEArgs{}, fmt.Errorf("%s: the last dimension must be contiguous (stride %d)", a.n, a.t.Stride(3))
		}
	}
	return InterleaveRoPEArgs{X: x, Cos: cos, Sin: sin, Out: out}, nil
}
