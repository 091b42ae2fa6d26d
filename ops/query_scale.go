package ops

import (
	"fmt"

	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/tensor"
)

// QueryScaleParams are the caller's arguments of op query_scale: the tokens' positions, the
// query (scaled in place) and the rule.
type QueryScaleParams struct {
	// Positions are [T], I32 or I64, ≥ 0: the positions the upstream code scales by (Hugging
	// Face's Llama 4 takes the token's index in the KV cache, Ministral 3 and Mistral 4 its
	// position_ids).
	Positions tensor.Tensor
	// Query is [T, H, D] or [T, H·D], F32, F16 or BF16; elements within a head (or a token's
	// row) contiguous.
	Query tensor.Tensor
	Rule  rope.QueryScaleRule
}

// QueryScaleArgs are the arguments of op query_scale: every element of token t's query is
// multiplied by the rule's scale at position Positions.At(0, t), computed in float32 in the
// upstream order of operations, and rounded to the query's dtype where Rule.Cast says:
//
//	product: q_t = dtype(float32(q · s))
//	scale:   q_t = dtype(float32(q · float32(dtype(s))))
//
// A rule of kind none leaves the query untouched.
type QueryScaleArgs struct {
	Positions Positions
	// Query is the query as Tokens × NumHeads heads of HeadSize elements (a [T, H·D] query is
	// one head of H·D per token).
	Query Heads
	Rule  rope.QueryScaleRule
}

// QueryScale is the op.
var QueryScale = NewOp[QueryScaleArgs]("query_scale")

// NewQueryScale checks query_scale's arguments: the rule first, then the query and the
// positions, one per token.
func NewQueryScale(p QueryScaleParams) (QueryScaleArgs, error) {
	if err := p.Rule.Validate(); err != nil {
		return QueryScaleArgs{}, fmt.Errorf("rule: %w", err)
	}
	q := p.Query
	if q.IsZero() {
		return QueryScaleArgs{}, fmt.Errorf("query: missing")
	}
	if err := q.Check("query"); err != nil {
		return QueryScaleArgs{}, err
	}
	if q.Rank() != 2 && q.Rank() != 3 {
		return QueryScaleArgs{}, fmt.Errorf("query: shape %s: want [tokens, heads, head_size] or [tokens, heads*head_size]", tensor.ShapeString(q.Shape))
	}
	// The scale is per token, so a [T, H·D] query is one head of H·D per token.
	d := q.Shape[q.Rank()-1]
	if d == 0 {
		return QueryScaleArgs{}, fmt.Errorf("query: shape %s: want a last dimension > 0", tensor.ShapeString(q.Shape))
	}
	h, err := NewHeads("query", q, d)
	if err != nil {
		return QueryScaleArgs{}, err
	}
	if p.Positions.IsZero() {
		return QueryScaleArgs{}, fmt.Errorf("positions: missing")
	}
	pos, err := NewPositions(p.Positions, h.Tokens, nil, NoLimit)
	if err != nil {
		return QueryScaleArgs{}, err
	}
	return QueryScaleArgs{Positions: pos, Query: h, Rule: p.Rule}, nil
}
