package ops

import (
	"fmt"
	"math"

	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/tensor"
)

// Packed sequences (THD) and context parallelism, as TransformerEngine's fused RoPE defines them
// (fused_apply_rotary_pos_emb_thd, tensor_format "thd"): x holds the tokens of B sequences back
// to back, and CuSeqlens[b]..CuSeqlens[b+1] delimits sequence b.
//
// CuSeqlens are the full sequences' boundaries, the same on every context-parallel rank (TE's
// cu_seqlens_padded): with CPSize ranks each sequence is cut into 2·CPSize equal chunks and rank
// r holds chunks r and 2·CPSize−1−r (the load-balanced split of TE and Megatron), so its x holds
// CuSeqlens[B]/CPSize tokens and sequence b occupies local rows CuSeqlens[b]/CPSize up to
// CuSeqlens[b+1]/CPSize. Every sequence length must then be a multiple of 2·CPSize.

// MaxCPSize bounds the context-parallel size the checks accept.
const MaxCPSize = 1 << 16

// PackedSeqs describes how the tokens of a THD tensor belong to sequences.
type PackedSeqs struct {
	// CuSeqlens is I32 or I64 [B+1]: 0, then the cumulative full sequence lengths. Equal
	// neighbours (empty sequences, as padded batches have) are allowed; a decrease is not.
	CuSeqlens tensor.Tensor
	// StartPositions, optional I32 or I64 [B], shifts every position of sequence b by
	// StartPositions[b] (TE's start_positions: a sequence continuing at that offset).
	StartPositions tensor.Tensor
	// CPSize is the number of context-parallel ranks (0 means 1) and CPRank this one.
	CPSize, CPRank int
}

// NumSeqs is B, the number of sequences of checked PackedSeqs.
func (p *PackedSeqs) NumSeqs() int { return p.CuSeqlens.Shape[0] - 1 }

func (p *PackedSeqs) cu(b int) int64 {
	return p.CuSeqlens.Int64At(p.CuSeqlens.Offset + b*p.CuSeqlens.Stride(0))
}

// Local returns the rows [lo, hi) of x that hold this rank's tokens of sequence b.
func (p *PackedSeqs) Local(b int) (lo, hi int) {
	return int(p.cu(b) / int64(p.CPSize)), int(p.cu(b+1) / int64(p.CPSize))
}

// Start is the position offset of sequence b (0 without StartPositions).
func (p *PackedSeqs) Start(b int) int64 {
	if p.StartPositions.IsZero() {
		return 0
	}
	s := p.StartPositions
	return s.Int64At(s.Offset + b*s.Stride(0))
}

// Position is the table row of the s-th local token of sequence b: its start offset plus its
// index in the full sequence.
func (p *PackedSeqs) Position(b, s int) int64 {
	lo, hi := p.Local(b)
	return p.Start(b) + int64(CPIndex(s, hi-lo, p.CPSize, p.CPRank))
}

// CPIndex maps the s-th of the localLen tokens a context-parallel rank holds of one sequence to
// its index in the full sequence (localLen·cpSize tokens). The rank holds chunks cpRank and
// 2·cpSize−1−cpRank of size localLen/2: the first half of its tokens starts at cpRank·localLen/2,
// the second at (2·cpSize−1−cpRank)·localLen/2.
func CPIndex(s, localLen, cpSize, cpRank int) int {
	if cpSize <= 1 {
		return s
	}
	chunk := localLen / 2
	if s < chunk {
		return cpRank*chunk + s
	}
	return (2*cpSize-1-cpRank)*chunk + s - chunk
}

// ApplyRotaryEmbTHDParams are the caller's arguments of op apply_rotary_emb_thd
// (TransformerEngine's fused_apply_rotary_pos_emb_thd).
type ApplyRotaryEmbTHDParams struct {
	// X is [T, H, D], rotated into Out (X's shape; it may be X itself).
	X, Out tensor.Tensor
	// Cos and Sin are [S, d] tables at full rotary width, d even and ≤ D.
	Cos, Sin tensor.Tensor
	// Seqs gives cu_seqlens, start positions and the context-parallel split.
	Seqs  PackedSeqs
	Style rope.Style
}

// ApplyRotaryEmbTHDBackwardParams are the caller's arguments of apply_rotary_emb_thd's backward
// pass: shaped as in the forward pass, with DY for X and DX (which may be DY) for Out.
type ApplyRotaryEmbTHDBackwardParams struct {
	DY, DX   tensor.Tensor
	Cos, Sin tensor.Tensor
	Seqs     PackedSeqs
	Style    rope.Style
}

// ApplyRotaryEmbTHDArgs are the arguments of op apply_rotary_emb_thd: out = x·cos + rotate(x)·sin
// over the first RotaryDim elements of each head, with token t of sequence b taking row
// Position(b, ·) of the cos and sin tables; the rest of each head is copied. Out may be X.
type ApplyRotaryEmbTHDArgs struct {
	PackedSeqs
	// X and Out are [T, H, D].
	X, Out tensor.Tensor
	// Cos and Sin are tables [S, RotaryDim] at full rotary width, like apply_rotary_emb's cos and
	// sin (each pair's value in both of its slots).
	Cos, Sin  tensor.Tensor
	GPTJ      bool
	RotaryDim int
}

// ApplyRotaryEmbTHDBackwardArgs are the arguments of apply_rotary_emb_thd's backward pass:
// DX = DY·cos + rotateᵀ(DY·sin) on the rotated elements, DX = DY on the rest. DX may be DY.
type ApplyRotaryEmbTHDBackwardArgs struct {
	PackedSeqs
	DY, DX    tensor.Tensor
	Cos, Sin  tensor.Tensor
	GPTJ      bool
	RotaryDim int
}

// The packed-sequence ops.
var (
	ApplyRotaryEmbTHD         = NewOp[ApplyRotaryEmbTHDArgs]("apply_rotary_emb_thd")
	ApplyRotaryEmbTHDBackward = NewOp[ApplyRotaryEmbTHDBackwardArgs]("apply_rotary_emb_thd_backward")
)

// thdCheckX checks x (named xName) as [T, H, D] and out (outName) like it.
func thdCheckX(xName string, x tensor.Tensor, outName string, out tensor.Tensor) error {
	if err := checkFloat(xName, x); err != nil {
		return err
	}
	if x.Rank() != 3 {
		return fmt.Errorf("%s: shape %s: want [tokens, heads, head_dim] (THD)", xName, tensor.ShapeString(x.Shape))
	}
	if err := checkFloat(outName, out); err != nil {
		return err
	}
	if err := checkSameShape(outName, out, xName, x); err != nil {
		return err
	}
	for _, a := range []struct {
		n string
		t tensor.Tensor
	}{{xName, x}, {outName, out}} {
		if a.t.Shape[2] > 1 && a.t.Stride(2) != 1 {
			return fmt.Errorf("%s: the last dimension must be contiguous (stride %d)", a.n, a.t.Stride(2))
		}
	}
	return nil
}

// thdCheckTable checks cos and sin as [S, d] tables for heads of headDim elements and returns d.
func thdCheckTable(cos, sin tensor.Tensor, headDim int) (int, error) {
	if err := checkFloat("cos", cos); err != nil {
		return 0, err
	}
	if err := checkFloat("sin", sin); err != nil {
		return 0, err
	}
	if err := checkSameShape("sin", sin, "cos", cos); err != nil {
		return 0, err
	}
	if cos.Rank() != 2 {
		return 0, fmt.Errorf("cos: shape %s: want a table [positions, rotary_dim]", tensor.ShapeString(cos.Shape))
	}
	d := cos.Shape[1]
	if d == 0 || d%2 != 0 || d > headDim {
		return 0, fmt.Errorf("cos: rotary dim %d (shape %s): want an even number from 2 to the head dim %d", d, tensor.ShapeString(cos.Shape), headDim)
	}
	if cos.Stride(1) != 1 || sin.Stride(1) != 1 {
		return 0, fmt.Errorf("cos and sin: the last dimension must be contiguous")
	}
	return d, nil
}

func thdCheckIndex(name string, t tensor.Tensor) error {
	if err := t.Check(name); err != nil {
		return err
	}
	if t.DType != tensor.I32 && t.DType != tensor.I64 {
		return fmt.Errorf("%s: dtype %v: want I32 or I64", name, t.DType)
	}
	if t.Rank() != 1 {
		return fmt.Errorf("%s: shape %s: want one dimension", name, tensor.ShapeString(t.Shape))
	}
	return nil
}

// CheckContextParallel checks a context-parallel size and rank (TransformerEngine's cp_size
// and cp_rank) as apply_rotary_emb_thd does, for callers that size inputs by them first.
func CheckContextParallel(size, rank int) error {
	if size < 1 || size > MaxCPSize {
		return fmt.Errorf("cp_size %d: want 1..%d", size, MaxCPSize)
	}
	if rank < 0 || rank >= size {
		return fmt.Errorf("cp_rank %d: want 0..%d (cp_size %d)", rank, size-1, size)
	}
	return nil
}

// check validates p for a THD tensor of `tokens` local tokens and a table of `rows` positions,
// and normalizes CPSize.
func (p *PackedSeqs) check(tokens, rows int) error {
	if p.CPSize == 0 {
		p.CPSize = 1
	}
	if err := CheckContextParallel(p.CPSize, p.CPRank); err != nil {
		return err
	}
	if p.CuSeqlens.IsZero() {
		return fmt.Errorf("cu_seqlens: missing")
	}
	if err := thdCheckIndex("cu_seqlens", p.CuSeqlens); err != nil {
		return err
	}
	n := p.CuSeqlens.Shape[0]
	if n < 1 {
		return fmt.Errorf("cu_seqlens: empty: want [B+1] values starting at 0")
	}
	if n > 1 && p.CuSeqlens.Stride(0) == 0 {
		// A broadcast view could claim any number of sequences over one value.
		return fmt.Errorf("cu_seqlens: stride 0 repeats one value %d times: want distinct elements", n)
	}
	if first := p.cu(0); first != 0 {
		return fmt.Errorf("cu_seqlens: starts at %d, want 0", first)
	}
	cp := int64(p.CPSize)
	for b := range n - 1 {
		lo, hi := p.cu(b), p.cu(b+1)
		if hi < lo {
			return fmt.Errorf("cu_seqlens: decreases at [%d]: %d after %d (want non-decreasing)", b+1, hi, lo)
		}
		if (hi-lo)%(2*cp) != 0 && cp > 1 {
			return fmt.Errorf("cu_seqlens: sequence %d has %d tokens, not a multiple of 2·cp_size = %d (pad it)", b, hi-lo, 2*cp)
		}
	}
	// Divided, not multiplied: an x without elements can claim any token count, and tokens·cp
	// could wrap around to the end cu_seqlens gives.
	if last := p.cu(n - 1); last%cp != 0 || last/cp != int64(tokens) {
		if cp > 1 {
			if want, ok := mulInt(tokens, p.CPSize); ok {
				return fmt.Errorf("cu_seqlens: ends at %d, want x's %d local tokens × cp_size %d = %d", last, tokens, cp, want)
			}
			return fmt.Errorf("cu_seqlens: ends at %d, want x's %d local tokens × cp_size %d, which overflows int", last, tokens, cp)
		}
		return fmt.Errorf("cu_seqlens: ends at %d, want x's %d tokens", last, tokens)
	}
	if !p.StartPositions.IsZero() {
		if err := thdCheckIndex("start_positions", p.StartPositions); err != nil {
			return err
		}
		if p.StartPositions.Shape[0] != n-1 {
			return fmt.Errorf("start_positions: %d values for %d sequences", p.StartPositions.Shape[0], n-1)
		}
	}
	// Positions grow within each half of a rank's tokens and the second half lies after the
	// first, so a sequence's last local token has its largest position.
	for b := range n - 1 {
		start := p.Start(b)
		if start < 0 {
			return fmt.Errorf("start_positions: %d for sequence %d is negative", start, b)
		}
		lo, hi := p.Local(b)
		if hi == lo {
			continue
		}
		if start >= int64(rows) {
			return fmt.Errorf("cos: %d rows, but sequence %d starts at position %d", rows, b, start)
		}
		// start + index is compared by subtracting: a table broadcast over rows (stride 0) can
		// claim nearly 2^63 of them, and a start near that plus the index would wrap negative.
		if index := int64(CPIndex(hi-lo-1, hi-lo, p.CPSize, p.CPRank)); index >= int64(rows)-start {
			if index > math.MaxInt64-start {
				return fmt.Errorf("cos: %d rows, but sequence %d starts at position %d and has %d more tokens, past int64", rows, b, start, index)
			}
			last := start + index
			return fmt.Errorf("cos: %d rows, but sequence %d reaches position %d (want a table of at least %d positions)", rows, b, last, last+1)
		}
	}
	return nil
}

// NewApplyRotaryEmbTHD checks the forward arguments: X and Out [T, H, D] (Out may be X), Cos
// and Sin [S, d] tables with d even and ≤ D, and the packed sequences.
func NewApplyRotaryEmbTHD(p ApplyRotaryEmbTHDParams) (ApplyRotaryEmbTHDArgs, error) {
	x, cos, sin, out, seqs := p.X, p.Cos, p.Sin, p.Out, p.Seqs
	if err := checkStyle(p.Style); err != nil {
		return ApplyRotaryEmbTHDArgs{}, err
	}
	if err := thdCheckX("x", x, "out", out); err != nil {
		return ApplyRotaryEmbTHDArgs{}, err
	}
	d, err := thdCheckTable(cos, sin, x.Shape[2])
	if err != nil {
		return ApplyRotaryEmbTHDArgs{}, err
	}
	if err := seqs.check(x.Shape[0], cos.Shape[0]); err != nil {
		return ApplyRotaryEmbTHDArgs{}, err
	}
	return ApplyRotaryEmbTHDArgs{PackedSeqs: seqs, X: x, Out: out, Cos: cos, Sin: sin, GPTJ: p.Style == rope.GPTJ, RotaryDim: d}, nil
}

// NewApplyRotaryEmbTHDBackward checks the backward arguments, shaped as in the forward pass
// with DY for X and DX for Out.
func NewApplyRotaryEmbTHDBackward(p ApplyRotaryEmbTHDBackwardParams) (ApplyRotaryEmbTHDBackwardArgs, error) {
	dy, cos, sin, dx, seqs := p.DY, p.Cos, p.Sin, p.DX, p.Seqs
	if err := checkStyle(p.Style); err != nil {
		return ApplyRotaryEmbTHDBackwardArgs{}, err
	}
	if err := thdCheckX("dy", dy, "dx", dx); err != nil {
		return ApplyRotaryEmbTHDBackwardArgs{}, err
	}
	d, err := thdCheckTable(cos, sin, dy.Shape[2])
	if err != nil {
		return ApplyRotaryEmbTHDBackwardArgs{}, err
	}
	if err := seqs.check(dy.Shape[0], cos.Shape[0]); err != nil {
		return ApplyRotaryEmbTHDBackwardArgs{}, err
	}
	return ApplyRotaryEmbTHDBackwardArgs{PackedSeqs: seqs, DY: dy, DX: dx, Cos: cos, Sin: sin, GPTJ: p.Style == rope.GPTJ, RotaryDim: d}, nil
}
