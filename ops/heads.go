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
	var h Heads
	if err := headsInto(&h, name, &t, d); err != nil {
		return Heads{}, err
	}
	return h, nil
}

// headsInto is NewHeads writing into h: every field when it accepts t, some on error. The tensor comes by
// pointer and the view is written in place: on a decode call (one token) the checks cost more
// than the rotation, and most of that was copying Tensor and Heads values between the layers.
func headsInto(h *Heads, name string, t *tensor.Tensor, d int) error {
	if d <= 0 {
		return fmt.Errorf("%s: head size %d: want > 0", name, d)
	}
	if err := tensor.CheckPtr(t, name); err != nil {
		return err
	}
	if !t.DType.IsFloat() {
		return fmt.Errorf("%s: dtype %v: want F32, F16 or BF16", name, t.DType)
	}
	h.DType, h.F32, h.Bits, h.Off, h.HeadSize = t.DType, t.F32, t.Bits, t.Offset, d
	switch len(t.Shape) {
	case 3:
		if t.Shape[2] != d {
			return fmt.Errorf("%s: head size %d (shape %s) differs from the model's head size %d", name, t.Shape[2], tensor.ShapeString(t.Shape), d)
		}
		h.Tokens, h.NumHeads = t.Shape[0], t.Shape[1]
		if t.Strides == nil {
			h.TokenStride, h.HeadStride = t.Shape[1]*d, d
			break
		}
		if t.Shape[2] > 1 && t.Strides[2] != 1 {
			return fmt.Errorf("%s: elements within a head must be contiguous (stride %d)", name, t.Strides[2])
		}
		h.TokenStride, h.HeadStride = t.Strides[0], t.Strides[1]
	case 2:
		if t.Shape[1]%d != 0 {
			return fmt.Errorf("%s: width %d (shape %s) is not a multiple of the model's head size %d", name, t.Shape[1], tensor.ShapeString(t.Shape), d)
		}
		if t.Strides != nil && t.Shape[1] > 1 && t.Strides[1] != 1 {
			return fmt.Errorf("%s: elements within a token must be contiguous (stride %d)", name, t.Strides[1])
		}
		h.Tokens, h.NumHeads = t.Shape[0], t.Shape[1]/d
		h.TokenStride, h.HeadStride = t.Shape[1], d // t.Stride(0), without copying t
		if t.Strides != nil {
			h.TokenStride = t.Strides[0]
		}
	default:
		return fmt.Errorf("%s: shape %s: want [tokens, heads, head_size] or [tokens, heads*head_size]", name, tensor.ShapeString(t.Shape))
	}
	return nil
}

// NewQueryKey checks a query and an optional key (zero Tensor for none) against head size d:
// same dtype, same token count. It returns their normalized views.
func NewQueryKey(query, key tensor.Tensor, d int) (q, k Heads, err error) {
	err = QueryKeyInto(&q, &k, &query, &key, d)
	return q, k, err
}

// QueryKeyInto is NewQueryKey for the per-call hot path: it reads query and key through pointers
// and writes their views into q and k (which may be fields of an op's arguments), with the same
// checks and errors. On error q and k hold what NewQueryKey returns with that error: a view that
// failed its own checks is the zero Heads. A nil key is no key; nil q, k or query are errors.
func QueryKeyInto(q, k *Heads, query, key *tensor.Tensor, d int) error {
	if q == nil || k == nil {
		return fmt.Errorf("query, key: nil views to write into")
	}
	// headsInto sets every field of a view it accepts, so only the refused and the absent ones
	// need clearing.
	if query == nil || query.DType == tensor.Invalid { // query.IsZero(), without copying the Tensor
		*q, *k = Heads{}, Heads{}
		return fmt.Errorf("query: missing")
	}
	if err := headsInto(q, "query", query, d); err != nil {
		*q, *k = Heads{}, Heads{}
		return err
	}
	if key == nil || key.DType == tensor.Invalid {
		*k = Heads{}
		return nil
	}
	if err := headsInto(k, "key", key, d); err != nil {
		*k = Heads{}
		return err
	}
	if k.DType != q.DType {
		return fmt.Errorf("key: dtype %v differs from query dtype %v", k.DType, q.DType)
	}
	if k.Tokens != q.Tokens {
		return fmt.Errorf("key: %d tokens, query has %d", k.Tokens, q.Tokens)
	}
	return nil
}
