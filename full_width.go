package rotary

import (
	"errors"
	"fmt"

	"github.com/rotary-go/rotary/tensor"
)

// FullWidth writes the gathered cos and sin expanded to the full rotary width in the pairing of
// style: the cos/sin that ApplyRotaryEmb (torch_npu npu_rotary_mul) and KVRMSNormRoPECache take.
// Row t holds token t's values, each pair's value at both elements of the pair:
// [c0 … c(d/2−1), c0 … c(d/2−1)] for NeoX (rotary_mode "half", rotate_half's layout) and
// [c0, c0, c1, c1, …] for GPT-J ("interleave").
//
// cos and sin are contiguous tensors of Tokens·RotaryDim elements, F32, BF16 or F16 (values
// rounded to nearest, ties to even), in any shape whose last dimension is RotaryDim: [1,T,1,d]
// for BSND, [1,1,T,d] for BNSD, [T,1,1,d] for SBND, [T,1,d] for TND, which all hold the rows in
// the same order. ApplyRotaryEmb with these F32 rows rotates x exactly as Apply does. It
// allocates nothing; on error nothing is written.
func (cs *CosSin) FullWidth(style Style, cos, sin tensor.Tensor) error {
	if cs == nil || (cs.half == 0 && !cs.noRoPE) {
		return errNotGathered
	}
	if cs.noRoPE {
		return errNoRoPE
	}
	if style != NeoX && style != GPTJ {
		return fmt.Errorf("style: %v: want NeoX or GPTJ", style)
	}
	d := cs.spec.RotaryDim
	for _, a := range []struct {
		name string
		t    tensor.Tensor
	}{{"cos", cos}, {"sin", sin}} {
		if err := fullWidthOperand(a.name, a.t, cs.tokens, d); err != nil {
			return err
		}
	}
	if sin.DType != cos.DType {
		return fmt.Errorf("sin: dtype %v differs from cos's %v", sin.DType, cos.DType)
	}
	expand(cos, cs.cos, cs.tokens, cs.half, style)
	expand(sin, cs.sin, cs.tokens, cs.half, style)
	return nil
}

func fullWidthOperand(name string, t tensor.Tensor, tokens, d int) error {
	if t.IsZero() {
		return fmt.Errorf("%s: missing: want a tensor of %d tokens × %d", name, tokens, d)
	}
	if err := t.Check(name); err != nil {
		return err
	}
	switch t.DType {
	case tensor.F32, tensor.BF16, tensor.F16:
	default:
		return fmt.Errorf("%s: dtype %v: want F32, BF16 or F16", name, t.DType)
	}
	if !t.Contiguous() {
		return errors.New(name + ": a strided view: want a contiguous tensor")
	}
	if t.Rank() == 0 || t.Shape[t.Rank()-1] != d || t.Len() != tokens*d {
		return fmt.Errorf("%s: shape %s: want %d elements (%d tokens) in rows of the rotary dim %d", name, tensor.ShapeString(t.Shape), tokens*d, tokens, d)
	}
	return nil
}

// expand writes the rows of half-width values src into dst at full width in style's pairing.
func expand(dst tensor.Tensor, src []float32, tokens, half int, style Style) {
	d := 2 * half
	for t := range tokens {
		row := src[t*half : (t+1)*half]
		base := dst.Offset + t*d
		for i, v := range row {
			j, k := i, i+half // NeoX: pair (i, i+d/2)
			if style == GPTJ {
				j, k = 2*i, 2*i+1
			}
			if dst.DType == tensor.F32 {
				dst.F32[base+j], dst.F32[base+k] = v, v
			} else {
				b := tensor.FromFloat32(dst.DType, v)
				dst.Bits[base+j], dst.Bits[base+k] = b, b
			}
		}
	}
}
