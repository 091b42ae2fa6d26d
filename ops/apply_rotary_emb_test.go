package ops_test

import (
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
