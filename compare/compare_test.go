package compare

import (
	"math"
	"slices"
	"testing"

	"github.com/rotary-go/rotary/tensor"
)

// TestRoundTo: rounding to a 16-bit type from float64 is correct where rounding through
// float32 to nearest twice is not.
func TestRoundTo(t *testing.T) {
	// Just above the midpoint of BF16 1 and 1+2^-7: float32 rounds it onto the midpoint,
	// and the midpoint rounds to even (1).
	x := 1 + 0x1p-8 + 0x1p-40
	if got := RoundTo(tensor.BF16, x); got != 1+0x1p-7 {
		t.Errorf("BF16 %v: got %v, want %v", x, got, 1+0x1p-7)
	}
	if got := RoundTo(tensor.F16, 1+0x1p-11+0x1p-40); got != 1+0x1p-10 {
		t.Errorf("F16: got %v", got)
	}
	for _, c := range []struct {
		d    tensor.DType
		x, w float64
	}{
		{tensor.BF16, 1 + 0x1p-8, 1},                     // a tie rounds to even
		{tensor.BF16, 1e300, math.Inf(1)},                // past float32
		{tensor.F16, -70000, math.Inf(-1)},               // past F16
		{tensor.F16, 0x1p-25 + 0x1p-60, 0x1p-24},         // above half the least subnormal
		{tensor.F32, 1 + 0x1p-24 + 0x1p-50, 1 + 0x1p-23}, // float64 to float32 directly
	} {
		if got := RoundTo(c.d, c.x); got != c.w {
			t.Errorf("%v %v: got %v, want %v", c.d, c.x, got, c.w)
		}
	}
	if !math.IsNaN(RoundTo(tensor.BF16, math.NaN())) {
		t.Error("NaN")
	}
}

// TestMergesDims: only reshapes that merge adjacent dimensions keep the row-major order.
func TestMergesDims(t *testing.T) {
	for _, c := range []struct {
		a, b []int
		want bool
	}{
		{[]int{4, 24}, []int{4, 3, 8}, true},
		{[]int{96}, []int{4, 3, 8}, true},
		{[]int{12, 8}, []int{4, 3, 8}, true},
		{[]int{4, 1, 24}, []int{4, 24}, true},
		{[]int{3, 4, 8}, []int{4, 3, 8}, false},
		{[]int{4, 4}, []int{2, 8}, false},
	} {
		if got := mergesDims(c.a, c.b) || mergesDims(c.b, c.a); got != c.want {
			t.Errorf("%v %v: %t", c.a, c.b, got)
		}
	}
}

// TestAxesOf: the layout comes from the metadata's "layout", else from apply_args; the
// head size from apply_args either way, so a [T,H·D] query is split into heads.
func TestAxesOf(t *testing.T) {
	for _, md := range []map[string]string{
		{"op": "mrope", "apply_args": `["--op","mrope","--head-size","8"]`},
		{"op": "mrope", "layout": "TND", "apply_args": `["--op","mrope","--head-size","8"]`},
	} {
		c := AxesOf(md)
		shape, axes := c.locate("out.query", []int{4, 24})
		if !slices.Equal(shape, []int{4, 3, 8}) || !slices.Equal(axes, []string{"token", "head", "dim"}) {
			t.Errorf("%v: %v %v, want [4 3 8] token/head/dim", md, shape, axes)
		}
	}
	if c := AxesOf(map[string]string{"op": "apply_rotary_emb", "layout": "bnsd", "apply_args": `["--layout","BSND"]`}); c.Layout != "BNSD" {
		t.Errorf("layout %q, want the metadata's BNSD", c.Layout)
	}
}

// TestOverAgreesWithTensors: Over marks exactly the elements Tensors counts over tolerance,
// with the same default tolerance, across dtypes and non-finite values.
func TestOverAgreesWithTensors(t *testing.T) {
	a := tensor.FromF32([]float32{1, 2, 3, 1e-9, float32(math.NaN()), float32(math.Inf(1)), 5, 6}, 2, 4)
	b := tensor.FromF32([]float32{1, 2.0000005, 3.1, 2e-9, float32(math.NaN()), 7, 5, 6.5}, 8)
	for _, opts := range []Options{{MaxULP: 1, ATol: -1}, {MaxULP: 0, ATol: 0}, {MaxULP: 4, ATol: 0.2}} {
		over, atol, err := Over(a, b, opts)
		if err != nil {
			t.Fatal(err)
		}
		r := Tensors("x", a, b, opts, Axes{})
		n := 0
		for _, o := range over {
			if o {
				n++
			}
		}
		if n != r.Mismatch || atol != r.Tolerance {
			t.Errorf("%+v: Over marks %d (atol %g), Tensors counts %d (atol %g)", opts, n, atol, r.Mismatch, r.Tolerance)
		}
	}
	if _, _, err := Over(a, tensor.FromF32([]float32{1}, 1), Options{}); err == nil {
		t.Error("different element counts: no error")
	}
}

// TestOverRefusesBadViews: a shape its data does not hold is an error, not a panic.
func TestOverRefusesBadViews(t *testing.T) {
	short := tensor.FromF32([]float32{1}, 3)
	if _, _, err := Over(short, short, Options{}); err == nil {
		t.Error("a [3] tensor over 1 value: no error")
	}
	if _, _, err := Over(tensor.Tensor{DType: tensor.F32, Shape: []int{-1}}, short, Options{}); err == nil {
		t.Error("a negative dimension: no error")
	}
}
