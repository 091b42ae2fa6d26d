package golden

import (
	"fmt"
	"slices"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// qkLayoutAxes are, for each 4-D --layout of the ops that rotate query and key by positions
// (rotary_embedding, rotary_embedding_gathered), the axes that view such a tensor as
// token-major [B,S,H,D]: Hugging Face's modeling code holds q and k as [B,H,S,D] (BNSD, after
// `.view(...).transpose(1, 2)` in LlamaAttention.forward) with position_ids [B,S]; Megatron as
// [S,B,H,D] (SBND). They are apply_rotary_emb's layout names.
var qkLayoutAxes = map[ops.Layout][]int{ops.BSND: {0, 1, 2, 3}, ops.BNSD: {0, 2, 1, 3}, ops.SBND: {1, 0, 2, 3}}

// TokenMajor gives positions, query and key in the form the op takes (query [T,H,D] or
// [T,H·D], positions [T] or MRoPE's [rows,T]) from those of layoutName (--layout): without one (or THD) as they
// are; BSND also as they are, or 4-D [B,S,H,D]; BNSD [B,H,S,D]; SBND [S,B,H,D]; a 4-D layout's
// positions [B,S] (or [B·S], or MRoPE's [rows,B,S]). back lays an output of the op out as its
// input was (the absent tensor stays absent).
func TokenMajor(op, layoutName string, positions, query, key tensor.Tensor) (p, q, k tensor.Tensor, back func(tensor.Tensor) tensor.Tensor, err error) {
	same := func(t tensor.Tensor) tensor.Tensor { return t }
	var layout ops.Layout
	if layoutName != "" {
		if layout, err = ops.ParseLayout(layoutName); err != nil {
			return p, q, k, nil, fmt.Errorf("--layout: %v", err)
		}
	}
	if query.Rank() != 4 && (layout == "" || layout == ops.THD || layout == ops.BSND) {
		return positions, query, key, same, nil
	}
	axes, ok := qkLayoutAxes[layout]
	switch {
	case !ok && query.Rank() == 4:
		return p, q, k, nil, fmt.Errorf("query %s is 4-D: --op %s takes [T,H,D] or [T,H·D]; give --layout BNSD for Hugging Face's [B,H,S,D] (position_ids [B,S]), BSND for [B,S,H,D] or SBND for [S,B,H,D]", tensor.ShapeString(query.Shape), op)
	case !ok:
		return p, q, k, nil, fmt.Errorf("--layout %s: --op %s takes query and key [T,H,D] (THD), or 4-D in BSND, BNSD or SBND", layout, op)
	case query.Rank() != 4:
		return p, q, k, nil, fmt.Errorf("--layout %s: query %s: want 4-D %s (or no --layout for [T,H,D])", layout, tensor.ShapeString(query.Shape), layout)
	}
	q4, err := tokenMajor4("query", query, axes)
	if err != nil {
		return p, q, k, nil, err
	}
	B, S := q4.Shape[0], q4.Shape[1]
	if !key.IsZero() {
		k4, err := tokenMajor4("key", key, axes)
		if err != nil {
			return p, q, k, nil, err
		}
		if k4.Shape[0] != B || k4.Shape[1] != S || k4.Shape[3] != q4.Shape[3] {
			return p, q, k, nil, fmt.Errorf("--layout %s: key %s and query %s: want the same batch, sequence and head size", layout, tensor.ShapeString(key.Shape), tensor.ShapeString(query.Shape))
		}
		if k, err = k4.Reshape(B*S, k4.Shape[2], k4.Shape[3]); err != nil {
			return p, q, k, nil, fmt.Errorf("key: %v", err)
		}
	}
	if q, err = q4.Reshape(B*S, q4.Shape[2], q4.Shape[3]); err != nil {
		return p, q, k, nil, fmt.Errorf("query: %v", err)
	}
	p = positions
	if p.Rank() == 2 && slices.Equal(p.Shape, []int{B, S}) {
		if p, err = p.Reshape(B * S); err != nil {
			return p, q, k, nil, fmt.Errorf("positions: %v", err)
		}
	}
	inverse := make([]int, 4)
	for i, a := range axes {
		inverse[a] = i
	}
	back = func(t tensor.Tensor) tensor.Tensor {
		if t.IsZero() {
			return t
		}
		r, err := t.Reshape(B, S, t.Len()/max(B*S*q4.Shape[3], 1), q4.Shape[3])
		if err != nil {
			return tensor.Tensor{} // the op's outputs have its inputs' shapes: cannot happen
		}
		v, _ := r.Permute(inverse...) // 4 axes, each once
		return v.Clone()
	}
	return p, q, k, back, nil
}

// tokenMajor4 is a 4-D tensor viewed by axes as [B,S,H,D], copied contiguous.
func tokenMajor4(name string, t tensor.Tensor, axes []int) (tensor.Tensor, error) {
	if t.Rank() != 4 {
		return tensor.Tensor{}, fmt.Errorf("%s %s: want 4-D, as the query", name, tensor.ShapeString(t.Shape))
	}
	v, err := t.Permute(axes...)
	if err != nil {
		return tensor.Tensor{}, fmt.Errorf("%s: %v", name, err)
	}
	if err := v.Check(name); err != nil {
		return tensor.Tensor{}, err
	}
	return v.Clone(), nil
}
