package rotary

import (
	"strings"
	"testing"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// TestZeroValueNew: CosSin.FullWidth on a nil or zero CosSin and VisionRoPE2D with a nil
// dispatcher or zero parameters return an error naming what is missing, never panic.
func TestZeroValueNew(t *testing.T) {
	out := tensor.FromF32(make([]float32, 4), 1, 4)
	for _, c := range []struct {
		name string
		cs   *CosSin
	}{{"nil CosSin", nil}, {"zero CosSin", &CosSin{}}} {
		cs := c.cs
		noPanic(t, c.name+".FullWidth", func() {
			if err := cs.FullWidth(NeoX, out, out); err == nil || !strings.Contains(err.Error(), "cos/sin") {
				t.Errorf("%s.FullWidth: %v, want an error naming cos/sin", c.name, err)
			}
			if err := cs.FullWidth(NeoX, tensor.Tensor{}, tensor.Tensor{}); err == nil {
				t.Errorf("%s.FullWidth(zero outputs): no error", c.name)
			}
		})
	}
	d, err := ops.NewDispatcher("", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		d    *ops.Dispatcher
	}{{"nil dispatcher", nil}, {"dispatcher", d}} {
		noPanic(t, "VisionRoPE2D "+c.name, func() {
			if err := VisionRoPE2D(c.d, VisionRoPE2DParams{}); err == nil {
				t.Errorf("VisionRoPE2D(%s, zero params): no error", c.name)
			}
		})
	}
	noPanic(t, "VisionRoPE2D nil dispatcher, good params", func() {
		p := VisionRoPE2DParams{
			Positions: tensor.FromI64([]int64{0, 0}, 2, 1),
			Query:     tensor.FromF32(make([]float32, 4), 1, 1, 4),
			HeadSize:  4,
		}
		if err := VisionRoPE2D(nil, p); err != nil {
			t.Errorf("VisionRoPE2D(nil dispatcher): %v, want ops.Default's result", err)
		}
	})
}
