package multimodal

import (
	"fmt"

	"github.com/rotary-go/rotary/safetensors"
)

// PositionTensors are positions and their rope_deltas as rotary positions writes them, and
// rotary apply reads them: positions, I64 [axes, B, S] (FlattenN's order), or [axes, S] when
// input_ids came as one row of shape [S] (idsShape, as ReadInput and ParseInputJSON give it);
// rope_deltas, I64 [B]. Positions whose rows are not all one length, or more than one row for
// a shape [S], or rope_deltas not one per row, are an error.
func PositionTensors(pos PositionsN, deltas []int64, idsShape []int) ([]safetensors.Tensor, error) {
	b, s := 0, 0
	if len(pos) > 0 && len(pos[0]) > 0 {
		b, s = len(pos[0]), len(pos[0][0])
	}
	for a, axis := range pos {
		if len(axis) != b {
			return nil, fmt.Errorf("positions: axis %d has %d rows, axis 0 %d: want one per row of input_ids", a, len(axis), b)
		}
		for r, row := range axis {
			if len(row) != s {
				return nil, fmt.Errorf("positions: axis %d row %d has %d positions, want %d: one per token", a, r, len(row), s)
			}
		}
	}
	if len(pos) > 0 && len(deltas) != b {
		return nil, fmt.Errorf("rope_deltas: %d values for %d rows: want one per row", len(deltas), b)
	}
	shape := []int{len(pos), b, s}
	if len(idsShape) == 1 {
		if b > 1 {
			return nil, fmt.Errorf("positions: %d rows for input_ids of shape %v: want one", b, idsShape)
		}
		shape = []int{len(pos), s}
	}
	return []safetensors.Tensor{
		safetensors.FromInt64s("positions", shape, FlattenN(pos)),
		safetensors.FromInt64s("rope_deltas", []int{len(deltas)}, deltas),
	}, nil
}
