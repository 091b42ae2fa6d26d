package ops

import (
	"fmt"
	"slices"

	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/tensor"
)

// Layout names the dimension order of apply_rotary_emb's x (torch_npu's names): B batch, S
// sequence, N heads, D head dim; THD is packed tokens × heads × dim.
type Layout string

// The layouts apply_rotary_emb accepts.
const (
	BSND Layout = "BSND"
	BNSD Layout = "BNSD"
	SBND Layout = "SBND"
	THD  Layout = "THD"
)

// ParseLayout checks a layout name.
func ParseLayout(s string) (Layout, error) {
	switch l := Layout(s); l {
	case BSND, BNSD, SBND, THD:
		return l, nil
	}
	return "", fmt.Errorf("layout %q: want BSND, BNSD, SBND or THD", s)
}

func (l Layout) rank() int { return len(l) }

// CosSinShape is the shape of cos or sin for tokens rows of d values in layout l with one
// batch and one head, which the op broadcasts: [1,T,1,d] for BSND, [1,1,T,d] for BNSD,
// [T,1,1,d] for SBND, [T,1,d] for THD. All hold the same rows in the same order (what
// rotary.CosSin.FullWidth writes). nil for a layout ParseLayout refuses.
func (l Layout) CosSinShape(tokens, d int) []int {
	switch l {
	case BSND:
		return []int{1, tokens, 1, d}
	case BNSD:
		return []int{1, 1, tokens, d}
	case SBND:
		return []int{tokens, 1, 1, d}
	case THD:
		return []int{tokens, 1, d}
	}
	return nil
}

// ApplyRotaryEmbParams are the caller's arguments of op apply_rotary_emb (torch_npu
// npu_rotary_mul): x and the already gathered cos and sin, the output, and the pair style.
type ApplyRotaryEmbParams struct {
	// Layout is BSND, BNSD, SBND (4-D) or THD (3-D), or "" for any rank.
	Layout Layout
	// X is rotated into Out (which may be X itself, and has X's shape and dtype).
	X, Out tensor.Tensor
	// Cos and Sin have X's rank; each dimension equals X's or is 1 (broadcast).
	Cos, Sin tensor.Tensor
	Style    rope.Style
}

// ApplyRotaryEmbBackwardParams are the caller's arguments of apply_rotary_emb's backward pass.
type ApplyRotaryEmbBackwardParams struct {
	Layout Layout
	// DY is the output gradient; X the forward pass's input.
	DY, X tensor.Tensor
	// Cos and Sin as in the forward pass.
	Cos, Sin tensor.Tensor
	// DX receives the input gradient (x-shaped; it may be DY itself); DCos and DSin, when not
	// the zero Tensor, the gradients of cos and sin (cos-shaped). Every tensor's last dimension
	// is contiguous.
	DX, DCos, DSin tensor.Tensor
	Style          rope.Style
}

// The apply_rotary_emb ops.
var (
	ApplyRotaryEmb         = NewOp[ApplyRotaryEmbArgs]("apply_rotary_emb")
	ApplyRotaryEmbBackward = NewOp[ApplyRotaryEmbBackwardArgs]("apply_rotary_emb_backward")
)

// ApplyRotaryEmbArgs are the arguments of op apply_rotary_emb (torch_npu npu_rotary_mul):
// out = x·cos + rotate(x)·sin over the first D' = cos's last dimension of each row of x, the rest
// of the row copied. cos and sin carry the full rotary width (each pair's value twice, as
// cat(freqs, freqs) or repeat_interleave(freqs) produce) and broadcast over x: each of their
// dimensions equals x's or is 1. Out may be X itself.
type ApplyRotaryEmbArgs struct {
	X, Cos, Sin, Out tensor.Tensor
	GPTJ             bool
	// RotaryDim is cos's last dimension.
	RotaryDim int
}

// ApplyRotaryEmbBackwardArgs are the arguments of apply_rotary_emb's backward pass: given the
// output gradient DY, it writes DX (x-shaped) and, when present, DCos and DSin (cos-shaped,
// summed over broadcast dimensions).
type ApplyRotaryEmbBackwardArgs struct {
	DY, X, Cos, Sin tensor.Tensor
	DX, DCos, DSin  tensor.Tensor
	GPTJ            bool
	RotaryDim       int
}

func checkFloat(name string, t tensor.Tensor) error {
	if t.IsZero() {
		return fmt.Errorf("%s: missing", name)
	}
	if err := t.Check(name); err != nil {
		return err
	}
	if !t.DType.IsFloat() {
		return fmt.Errorf("%s: dtype %v: want F32, F16 or BF16", name, t.DType)
	}
	return nil
}

func checkSameShape(name string, t tensor.Tensor, refName string, ref tensor.Tensor) error {
	if !slices.Equal(t.Shape, ref.Shape) {
		return fmt.Errorf("%s: shape %s differs from %s's %s", name, tensor.ShapeString(t.Shape), refName, tensor.ShapeString(ref.Shape))
	}
	if t.DType != ref.DType {
		return fmt.Errorf("%s: dtype %v differs from %s's %v", name, t.DType, refName, ref.DType)
	}
	return nil
}

// checkRotaryOperands checks x, cos, sin for apply_rotary_emb and returns the rotary width.
func checkRotaryOperands(layout Layout, x, cos, sin tensor.Tensor) (int, error) {
	for _, a := range []struct {
		n string
		t tensor.Tensor
	}{{"x", x}, {"cos", cos}, {"sin", sin}} {
		if err := checkFloat(a.n, a.t); err != nil {
			return 0, err
		}
	}
	if layout != "" {
		if _, err := ParseLayout(string(layout)); err != nil {
			return 0, err
		}
	}
	if layout != "" && x.Rank() != layout.rank() {
		return 0, fmt.Errorf("x: shape %s: layout %s wants %d dimensions", tensor.ShapeString(x.Shape), layout, layout.rank())
	}
	if x.Rank() < 1 {
		return 0, fmt.Errorf("x: a scalar: want at least one dimension")
	}
	if err := checkSameShape("sin", sin, "cos", cos); err != nil {
		return 0, err
	}
	if cos.Rank() != x.Rank() {
		return 0, fmt.Errorf("cos: shape %s: want as many dimensions as x %s", tensor.ShapeString(cos.Shape), tensor.ShapeString(x.Shape))
	}
	last := x.Rank() - 1
	for k := range last {
		if cos.Shape[k] != x.Shape[k] && cos.Shape[k] != 1 {
			return 0, fmt.Errorf("cos: shape %s does not broadcast to x %s (dimension %d is %d, want %d or 1)", tensor.ShapeString(cos.Shape), tensor.ShapeString(x.Shape), k, cos.Shape[k], x.Shape[k])
		}
	}
	d := cos.Shape[last]
	if d == 0 || d%2 != 0 || d > x.Shape[last] {
		return 0, fmt.Errorf("cos: last dimension %d: want an even number ≤ x's last dimension %d", d, x.Shape[last])
	}
	if x.Stride(last) != 1 || cos.Stride(last) != 1 || sin.Stride(last) != 1 {
		return 0, fmt.Errorf("x, cos and sin: the last dimension must be contiguous")
	}
	return d, nil
}

// NewApplyRotaryEmb checks the forward arguments. The layout may be empty (any rank).
func NewApplyRotaryEmb(p ApplyRotaryEmbParams) (ApplyRotaryEmbArgs, error) {
	layout, x, cos, sin, out := p.Layout, p.X, p.Cos, p.Sin, p.Out
	if err := checkStyle(p.Style); err != nil {
		return ApplyRotaryEmbArgs{}, err
	}
	d, err := checkRotaryOperands(layout, x, cos, sin)
	if err != nil {
		return ApplyRotaryEmbArgs{}, err
	}
	if err := checkFloat("out", out); err != nil {
		return ApplyRotaryEmbArgs{}, err
	}
	if err := checkSameShape("out", out, "x", x); err != nil {
		return ApplyRotaryEmbArgs{}, err
	}
	if out.Stride(out.Rank()-1) != 1 {
		return ApplyRotaryEmbArgs{}, fmt.Errorf("out: the last dimension must be contiguous")
	}
	return ApplyRotaryEmbArgs{X: x, Cos: cos, Sin: sin, Out: out, GPTJ: p.Style == rope.GPTJ, RotaryDim: d}, nil
}

// NewApplyRotaryEmbBackward checks the backward arguments; DCos and DSin may be zero tensors.
func NewApplyRotaryEmbBackward(p ApplyRotaryEmbBackwardParams) (ApplyRotaryEmbBackwardArgs, error) {
	layout, dy, x, cos, sin, dx, dcos, dsin := p.Layout, p.DY, p.X, p.Cos, p.Sin, p.DX, p.DCos, p.DSin
	if err := checkStyle(p.Style); err != nil {
		return ApplyRotaryEmbBackwardArgs{}, err
	}
	d, err := checkRotaryOperands(layout, x, cos, sin)
	if err != nil {
		return ApplyRotaryEmbBackwardArgs{}, err
	}
	for _, a := range []struct {
		n string
		t tensor.Tensor
	}{{"dy", dy}, {"dx", dx}} {
		if err := checkFloat(a.n, a.t); err != nil {
			return ApplyRotaryEmbBackwardArgs{}, err
		}
		if err := checkSameShape(a.n, a.t, "x", x); err != nil {
			return ApplyRotaryEmbBackwardArgs{}, err
		}
		if a.t.Stride(a.t.Rank()-1) != 1 {
			return ApplyRotaryEmbBackwardArgs{}, fmt.Errorf("%s: the last dimension must be contiguous", a.n)
		}
	}
	for _, a := range []struct {
		n string
		t tensor.Tensor
	}{{"dcos", dcos}, {"dsin", dsin}} {
		if a.t.IsZero() {
			continue
		}
		if err := checkFloat(a.n, a.t); err != nil {
			return ApplyRotaryEmbBackwardArgs{}, err
		}
		if !slices.Equal(a.t.Shape, cos.Shape) {
			return ApplyRotaryEmbBackwardArgs{}, fmt.Errorf("%s: shape %s differs from cos's %s", a.n, tensor.ShapeString(a.t.Shape), tensor.ShapeString(cos.Shape))
		}
		if a.t.Stride(a.t.Rank()-1) != 1 {
			return ApplyRotaryEmbBackwardArgs{}, fmt.Errorf("%s: the last dimension must be contiguous", a.n)
		}
	}
	return ApplyRotaryEmbBackwardArgs{DY: dy, X: x, Cos: cos, Sin: sin, DX: dx, DCos: dcos, DSin: dsin, GPTJ: p.Style == rope.GPTJ, RotaryDim: d}, nil
}

// checkStyle refuses a Style value that is neither NeoX nor GPT-J.
func checkStyle(s rope.Style) error {
	if s != rope.NeoX && s != rope.GPTJ {
		return fmt.Errorf("style %v: want neox or gptj", s)
	}
	return nil
}
