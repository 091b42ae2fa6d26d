package ops

import (
	"fmt"
	"math"
	"testing"

	"github.com/rotary-go/rotary/internal/zerotest"
	"github.com/rotary-go/rotary/tensor"
)

// TestZeroValueNew: QueryKeyInto, PositionsInto, NewVisionRoPE2D, ParseVisionLayout,
// VisionLayout.String and Layout.CosSinShape, called with nil pointers, zero tensors and zero parameters, return an
// error (or a name) and never panic. The Args row methods (MRoPEArgs.Axis,
// VisionRoPE2DArgs.Freq) index checked arguments by contract and are not called here.
func TestZeroValueNew(t *testing.T) {
	var z tensor.Tensor
	zerotest.Run(t, map[string]func() error{
		"QueryKeyInto(nil...)":   func() error { return zerotest.WantErr(QueryKeyInto(nil, nil, nil, nil, 0)) },
		"QueryKeyInto(zero...)":  func() error { return zerotest.WantErr(QueryKeyInto(new(Heads), new(Heads), &z, &z, 0)) },
		"PositionsInto(nil...)":  func() error { return zerotest.WantErr(PositionsInto(nil, nil, 0, nil, 0)) },
		"PositionsInto(zero...)": func() error { _ = PositionsInto(new(Positions), &z, 0, nil, 0); return nil },
		"NewVisionRoPE2D(zero)":  func() error { _, err := NewVisionRoPE2D(VisionRoPE2DParams{}); return zerotest.WantErr(err) },
		"NewVisionRoPE2D(typed, no buffers)": func() error {
			_, err := NewVisionRoPE2D(VisionRoPE2DParams{
				Positions: tensor.Tensor{DType: tensor.I64, Shape: []int{2, 1}},
				Query:     tensor.Tensor{DType: tensor.F32, Shape: []int{1, 1, 4}},
				HeadSize:  4,
			})
			return zerotest.WantErr(err)
		},
		"ParseVisionLayout(\"\")": func() error { _, err := ParseVisionLayout(""); return zerotest.WantErr(err) },
		"VisionLayout.String":     func() error { _, _ = VisionLayout(0).String(), VisionLayout(255).String(); return nil },
		"Layout.CosSinShape": func() error {
			if s := Layout("").CosSinShape(-1, -1); s != nil {
				return fmt.Errorf("the zero Layout's shape: %v, want nil", s)
			}
			_ = THD.CosSinShape(math.MaxInt, math.MinInt)
			return nil
		},
	})
}
