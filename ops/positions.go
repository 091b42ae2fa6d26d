package ops

import (
	"fmt"

	"github.com/rotary-go/rotary/tensor"
)

// Positions is a normalized position tensor: Rows × Tokens integers (Rows 1 for plain RoPE, 3 or
// 4 for MRoPE), element (r, t) at Off + r·RowStride + t·Stride of I32 or I64.
type Positions struct {
	I32               []int32
	I64               []int64
	Off               int
	Rows, Tokens      int
	RowStride, Stride int
	// Max is the largest position over all rows.
	Max int64
}

// At returns position (r, t).
func (p *Positions) At(r, t int) int64 {
	i := p.Off + r*p.RowStride + t*p.Stride
	if p.I32 != nil {
		return int64(p.I32[i])
	}
	return p.I64[i]
}

// NoLimit is NewPositions' limit for positions with no upper bound. It is negative so that a
// limit computed from a table of no rows (0) refuses every position instead of allowing all.
const NoLimit int64 = -1

// NewPositions checks t as [T] or, when rows > 1 are allowed, [R, T] positions for `tokens`
// tokens, all ≥ 0 and < limit (NoLimit: no upper bound).
func NewPositions(t tensor.Tensor, tokens int, allowRows []int, limit int64) (Positions, error) {
	var p Positions
	if err := PositionsInto(&p, &t, tokens, allowRows, limit); err != nil {
		return Positions{}, err
	}
	return p, nil
}

// PositionsInto is NewPositions for the per-call hot path: it reads t through a pointer and
// writes the view into p (which may be a field of an op's arguments), with the same checks and
// errors. On error p is the zero Positions, as NewPositions returns it.
func PositionsInto(p *Positions, t *tensor.Tensor, tokens int, allowRows []int, limit int64) error {
	if p == nil {
		return fmt.Errorf("positions: nil view to write into")
	}
	if t == nil {
		*p = Positions{}
		return fmt.Errorf("positions: missing (nil)")
	}
	if err := positionsInto(p, t, tokens, allowRows, limit); err != nil {
		*p = Positions{}
		return err
	}
	return nil
}

// positionsInto sets every field of p when it accepts t, some on error. It reads t's fields
// directly, as Tensor's value methods would copy the whole Tensor on every call.
func positionsInto(p *Positions, t *tensor.Tensor, tokens int, allowRows []int, limit int64) error {
	if err := tensor.CheckPtr(t, "positions"); err != nil {
		return err
	}
	if t.DType != tensor.I32 && t.DType != tensor.I64 {
		return fmt.Errorf("positions: dtype %v: want I32 or I64", t.DType)
	}
	p.I32, p.I64, p.Off = nil, nil, t.Offset
	if t.DType == tensor.I32 {
		p.I32 = t.I32
	} else {
		p.I64 = t.I64
	}
	switch len(t.Shape) {
	case 1:
		p.Rows, p.Tokens, p.RowStride, p.Stride = 1, t.Shape[0], 0, 1
		if t.Strides != nil {
			p.Stride = t.Strides[0]
		}
	case 2:
		ok := false
		for _, r := range allowRows {
			ok = ok || r == t.Shape[0]
		}
		if !ok {
			if len(allowRows) == 0 {
				return fmt.Errorf("positions: shape %s: want [tokens] for this (non-MRoPE) model", tensor.ShapeString(t.Shape))
			}
			return fmt.Errorf("positions: shape %s: want [tokens] or [R, tokens] with R in %v", tensor.ShapeString(t.Shape), allowRows)
		}
		p.Rows, p.Tokens = t.Shape[0], t.Shape[1]
		p.RowStride, p.Stride = t.Shape[1], 1
		if t.Strides != nil {
			p.RowStride, p.Stride = t.Strides[0], t.Strides[1]
		}
	default:
		return fmt.Errorf("positions: shape %s: want [tokens] or [rows, tokens]", tensor.ShapeString(t.Shape))
	}
	if p.Tokens != tokens {
		return fmt.Errorf("positions: %d positions for %d tokens", p.Tokens, tokens)
	}
	p.Max = -1
	for r := range p.Rows {
		for i := range p.Tokens {
			v := p.At(r, i)
			if v < 0 {
				return fmt.Errorf("positions: position %d at %s is negative", v, positionIndex(t.Rank(), r, i))
			}
			if limit >= 0 && v >= limit {
				return fmt.Errorf("positions: position %d at %s is past the cos/sin cache (%d rows)", v, positionIndex(t.Rank(), r, i), limit)
			}
			p.Max = max(p.Max, v)
		}
	}
	return nil
}

// positionIndex is where position (row r, token i) stands in a positions tensor of the rank,
// as the caller indexes it: [i] in a 1-D tensor, [r,i] in a 2-D one.
func positionIndex(rank, r, i int) string {
	if rank == 1 {
		return fmt.Sprintf("[%d]", i)
	}
	return fmt.Sprintf("[%d,%d]", r, i)
}
