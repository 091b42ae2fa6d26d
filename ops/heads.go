package ops

import (
	"fmt"

	"github.com/rotary-go/rotary/tensor"
)

// Heads is a normalized query or key: Tokens × NumHeads × HeadSize elements, element (t, h, j)
// at Off + t·TokenStride + h·HeadStride + j of F32 (F32) or Bits (F16, BF16).
type Heads struct {
	DType                   tensor.DType
	F32                     []float32
	Bits                    []uint16
	Off                     int
	Tokens, NumHeads        int
	HeadSize                int
	TokenStride, HeadStride int
}

// Present reports whether h holds a tensor (an optional key may be absent).
func (h *Heads) Present() bool { return h.DType != tensor.Invalid }

// NewHeads checks t as a [T, H, D] or [T, H·D] query or key with head size d and returns its
// normalized view. Elements within a head must be contiguous; tokens and heads may be strided.
func NewHeads(name string, t tensor.Tensor, d int) (Heads, error) {
	if d <= 0 {
		return Heads{}, fmt.Errorf("%s: head size %d: want > 0", name, d)
	}
	if err := t.Check(name); err != nil {
		return Heads{}, err
	}
	if !t.DType.IsFloat() {
		return Heads{}, fmt.Errorf("%s: dtype %v: want F32, F16 or BF16", name, t.DType)
	}
	h := Heads{DType: t.DType, F32: t.F32, Bits: t.Bits, Off: t.Offset, HeadSize: d}
	switch t.Rank() {
	case 3:
		if t.Shape[2] != d {
			return Heads{}, fmt.Errorf("%s: head size %d (shape %s) differs from the model's head size %d", name, t.Shape[2], tensor.ShapeString(t.Shape), d)
		}
		h.Tokens, h.NumHeads = t.Shape[0], t.Shape[1]
		if t.Strides == nil {
			h.TokenStride, h.HeadStride = t.Shape[1]*d, d
			break
		}
		if t.Shape[2] > 1 && t.Strides[2] != 1 {
			return Heads{}, fmt.Errorf("%s: elements within a head must be contiguous (stride %d)", name, t.Strides[2])
		}
		h.TokenStride, h.HeadStride = t.Strides[0], t.Strides[1]
	case 2:
		if t.Shape[1]%d != 0 {
			return Heads{}, fmt.Errorf("%s: width %d (shape %s) is not a multiple of the model's head size %d", name, t.Shape[1], tensor.ShapeString(t.Shape), d)
		}
		if t.Strides != nil && t.Shape[1] > 1 && t.Strides[1] != 1 {
			return Heads{}, fmt.Errorf("%s: elements within a token must be contiguous (stride %d)", name, t.Strides[1])
		}
		h.Tokens, h.NumHeads = t.Shape[0], t.Shape[1]/d
		h.TokenStride, h.HeadStride = t.Stride(0), d
	default:
		return Heads{}, fmt.Errorf("%s: shape %s: want [tokens, heads, head_size] or [tokens, heads*head_size]", name, tensor.ShapeString(t.Shape))
	}
	return h, nil
}

// NewQueryKey checks a query and an optional key (zero Tensor for none) against head size d:
// same dtype, same token count. It returns their normalized views.
func NewQueryKey(query, key tensor.Tensor, d int) (q, k Heads, err error) {
	if query.IsZero() {
		return q, k, fmt.Errorf("query: missing")
	}
	if q, err = NewHeads("query", query, d); err != nil {
		return q, k, err
	}
	if key.IsZero() {
		return q, k, nil
	}
	if k, err = NewHeads("key", key, d); err != nil {
		return q, k, err
	}
	if k.DType != q.DType {
		return q, k, fmt.Errorf("key: dtype %v differs from query dtype %v", k.DType, q.DType)
	}
	if k.Tokens != q.Tokens {
		return q, k, fmt.Errorf("key: %d tokens, query has %d", k.Tokens, q.Tokens)
	}
	return q, k, nil
}
