package ops_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// TestApplyRotaryEmbBackwardSumsContiguous: dcos and dsin, like every other operand, must be
// contiguous along their last dimension, the rotary dim every backend writes a row of at once;
// a view strided there is refused, naming it, and the call writes nothing.
func TestApplyRotaryEmbBackwardSumsContiguous(t *testing.T) {
	x, dy, dx := tensor.Zeros(tensor.F32, 1, 4, 2, 64), tensor.Zeros(tensor.F32, 1, 4, 2, 64), tensor.Zeros(tensor.F32, 1, 4, 2, 64)
	cos, sin := tensor.Zeros(tensor.F32, 1, 4, 1, 64), tensor.Zeros(tensor.F32, 1, 4, 1, 64)
	strided := tensor.Tensor{DType: tensor.F32, Shape: []int{1, 4, 1, 64}, Strides: []int{512, 128, 128, 2}, F32: make([]float32, 512)}
	for _, name := range []string{"dcos", "dsin"} {
		p := ops.ApplyRotaryEmbBackwardParams{Layout: ops.BSND, DY: dy, X: x, Cos: cos, Sin: sin, DX: dx}
		if name == "dcos" {
			p.DCos = strided
		} else {
			p.DSin = strided
		}
		_, err := ops.NewApplyRotaryEmbBackward(p)
		if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "contiguous") {
			t.Errorf("%s strided along its last dimension: err %v, want one naming %s and contiguity", name, err, name)
		}
	}
}

// TestApplyRotaryEmbLayoutNames: a layout other than BSND, BNSD, SBND and THD (or "", any rank)
// is refused by name, forward and backward, even at the right rank: "BSDN" or "bsnd" is a typo
// for a layout whose dimensions the caller meant otherwise.
func TestApplyRotaryEmbLayoutNames(t *testing.T) {
	x, dy, dx := tensor.Zeros(tensor.F32, 1, 4, 2, 64), tensor.Zeros(tensor.F32, 1, 4, 2, 64), tensor.Zeros(tensor.F32, 1, 4, 2, 64)
	cos, sin := tensor.Zeros(tensor.F32, 1, 4, 1, 64), tensor.Zeros(tensor.F32, 1, 4, 1, 64)
	for _, l := range []ops.Layout{"BSDN", "bsnd", "NBSD", "TDH", "BSND "} {
		if _, err := ops.NewApplyRotaryEmb(ops.ApplyRotaryEmbParams{Layout: l, X: x, Out: x, Cos: cos, Sin: sin}); err == nil || !strings.Contains(err.Error(), "layout") {
			t.Errorf("forward, layout %q: err %v, want a refusal naming the layout", l, err)
		}
		p := ops.ApplyRotaryEmbBackwardParams{Layout: l, DY: dy, X: x, Cos: cos, Sin: sin, DX: dx}
		if _, err := ops.NewApplyRotaryEmbBackward(p); err == nil || !strings.Contains(err.Error(), "layout") {
			t.Errorf("backward, layout %q: err %v, want a refusal naming the layout", l, err)
		}
	}
	for _, l := range []ops.Layout{"", ops.BSND, ops.BNSD, ops.SBND} {
		if _, err := ops.NewApplyRotaryEmb(ops.ApplyRotaryEmbParams{Layout: l, X: x, Out: x, Cos: cos, Sin: sin}); err != nil {
			t.Errorf("layout %q: %v", l, err)
		}
	}
}

// TestCosSinShape: one batch and one head in each layout's order, of the layout's rank; nil
// for a layout ParseLayout refuses.
func TestCosSinShape(t *testing.T) {
	for l, want := range map[ops.Layout][]int{ops.BSND: {1, 5, 1, 8}, ops.BNSD: {1, 1, 5, 8}, ops.SBND: {5, 1, 1, 8}, ops.THD: {5, 1, 8}} {
		got := l.CosSinShape(5, 8)
		if !slices.Equal(got, want) || len(got) != len(l) {
			t.Errorf("%s: %v, want %v", l, got, want)
		}
	}
	for _, l := range []ops.Layout{"", "TND", "bsnd"} {
		if got := l.CosSinShape(5, 8); got != nil {
			t.Errorf("%q: %v, want nil", l, got)
		}
	}
}
