package golden

import (
	"fmt"

	"github.com/rotary-go/rotary/tensor"
)

// BatchPositions reads a rank-3 positions tensor, the [rows, B, S] that `rotary positions`
// writes, as [rows, B·S]: the batch's tokens one after another, as vLLM flattens a batch and as
// a query [B·S, H, D] holds them, so [rows, 1, T] is [rows, T]. Other ranks pass unchanged.
func BatchPositions(p tensor.Tensor) (tensor.Tensor, error) {
	if p.Rank() != 3 {
		return p, nil
	}
	flat, err := p.Reshape(p.Shape[0], p.Shape[1]*p.Shape[2])
	if err != nil {
		return tensor.Tensor{}, fmt.Errorf("positions: shape %s: %v", tensor.ShapeString(p.Shape), err)
	}
	return flat, nil
}
