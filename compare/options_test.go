package compare

import (
	"math"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/tensor"
)

// TestOptionsRefused: a tolerance that would pass or fail every element without a word (a NaN
// or infinite atol, a negative ULP count) and a negative Show are refused by Check, and by
// Tensors and Over, naming the field, rather than compared under.
func TestOptionsRefused(t *testing.T) {
	a := tensor.FromF32([]float32{1, 2, 3}, 3)
	b := tensor.FromF32([]float32{1, 2, 4}, 3)
	for _, c := range []struct {
		opts Options
		want string
	}{
		{Options{ATol: math.NaN()}, "ATol"},
		{Options{ATol: math.Inf(1)}, "ATol"},
		{Options{ATol: math.Inf(-1)}, "ATol"},
		{Options{MaxULP: -1}, "MaxULP"},
		{Options{Show: -1}, "Show"},
	} {
		if err := c.opts.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: Check() = %v, want an error naming %s", c.opts, err, c.want)
		}
		if r := Tensors("x", a, b, c.opts, Axes{}); r.Compared || !strings.Contains(r.Problem, c.want) {
			t.Errorf("%+v: Tensors compared=%v problem %q, want refused naming %s", c.opts, r.Compared, r.Problem, c.want)
		}
		if _, _, err := Over(a, b, c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: Over err %v, want an error naming %s", c.opts, err, c.want)
		}
	}
	for _, ok := range []Options{{}, {ATol: -1}, {ATol: 1e-3, MaxULP: 4, Show: 5}} {
		if err := ok.Check(); err != nil {
			t.Errorf("%+v: Check() = %v, want nil", ok, err)
		}
	}
}
