package compare

import (
	"fmt"
	"math"
	"testing"

	"github.com/rotary-go/rotary/internal/zerotest"
	"github.com/rotary-go/rotary/tensor"
)

// TestZeroValueNew: Summarize of the zero tensor, of views past their buffers and with negative
// or huge value counts, Options.Check of the zero and extreme options, and the zero Summary's
// JSON and Value's methods return an error or a result and never panic.
func TestZeroValueNew(t *testing.T) {
	zerotest.Run(t, map[string]func() error{
		"Summarize(zero)": func() error { _, err := Summarize("probe", tensor.Tensor{}, 0); return zerotest.WantErr(err) },
		"Summarize(outside)": func() error {
			_, err := Summarize("probe", tensor.Tensor{DType: tensor.F32, Shape: []int{4}, F32: make([]float32, 2)}, 1)
			return zerotest.WantErr(err)
		},
		"Summarize(-1)": func() error {
			_, err := Summarize("probe", tensor.FromF32([]float32{1}, 1), -1)
			return zerotest.WantErr(err)
		},
		"Summarize(MaxInt)": func() error {
			s, err := Summarize("probe", tensor.FromI64([]int64{math.MinInt64, math.MaxInt64}, 2), math.MaxInt)
			if err != nil || len(s.Values) != 2 {
				return fmt.Errorf("%d values, %v", len(s.Values), err)
			}
			return nil
		},
		"Options.Check": func() error {
			if err := (Options{}).Check(); err != nil {
				return err
			}
			for _, o := range []Options{{ATol: math.NaN()}, {ATol: math.Inf(-1)}, {MaxULP: math.MinInt}, {Show: -1}} {
				if o.Check() == nil {
					return fmt.Errorf("%+v: no error", o)
				}
			}
			return nil
		},
		"zero Summary and Value": func() error {
			var v Value
			_, _ = v.IsInt(), v.Float64()
			_, err := Summary{}.MarshalJSON()
			return err
		},
	})
}
