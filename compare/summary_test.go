package compare

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/tensor"
)

// TestSummarize: the figures and their JSON for floats with NaN and infinities, integers past
// 2^53, F64s whose sum overflows, an empty tensor, a scalar and a strided view.
func TestSummarize(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	bf := []uint16{tensor.BF16FromFloat32(1), tensor.BF16FromFloat32(0.1), tensor.BF16FromFloat32(-3.25)}
	view := tensor.Tensor{DType: tensor.I64, Shape: []int{2, 2}, Strides: []int{1, 2}, I64: []int64{1, 2, 3, 4}}
	for _, c := range []struct {
		name   string
		t      tensor.Tensor
		values int
		json   string
	}{
		{"f32", tensor.FromF32([]float32{1.5, -2, nan, inf, 0.1, 3}, 2, 3), 5,
			`{"name":"f32","dtype":"F32","shape":[2,3],"elements":6,"min":-2,"max":3,"mean":0.650000000372529,"nan":1,"inf":1,"values":[1.5,-2,"NaN","+Inf",0.1]}`},
		{"bf16", tensor.FromBits(tensor.BF16, bf, 3), 3,
			`{"name":"bf16","dtype":"BF16","shape":[3],"elements":3,"min":-3.25,"max":1,"mean":-0.7166341145833334,"nan":0,"inf":0,"values":[1,0.100097656,-3.25]}`},
		{"i64", tensor.FromI64([]int64{math.MinInt64, 5, math.MaxInt64}, 3), 0,
			`{"name":"i64","dtype":"I64","shape":[3],"elements":3,"min":-9223372036854775808,"max":9223372036854775807,"mean":0,"nan":0,"inf":0}`},
		{"f64", tensor.FromF64([]float64{1e308, 1.7e308, 0.1}, 3), 1,
			`{"name":"f64","dtype":"F64","shape":[3],"elements":3,"min":0.1,"max":1.7e+308,"mean":9e+307,"nan":0,"inf":0,"values":[1e+308]}`},
		{"none finite", tensor.FromF32([]float32{nan, -inf}, 2), 9,
			`{"name":"none finite","dtype":"F32","shape":[2],"elements":2,"min":null,"max":null,"mean":null,"nan":1,"inf":1,"values":["NaN","-Inf"]}`},
		{"empty", tensor.FromF32(nil, 0, 3), 4,
			`{"name":"empty","dtype":"F32","shape":[0,3],"elements":0,"min":null,"max":null,"mean":null,"nan":0,"inf":0}`},
		{"scalar", tensor.FromF32([]float32{42}), 1,
			`{"name":"scalar","dtype":"F32","shape":[],"elements":1,"min":42,"max":42,"mean":42,"nan":0,"inf":0,"values":[42]}`},
		{"view", view, 4,
			`{"name":"view","dtype":"I64","shape":[2,2],"elements":4,"min":1,"max":4,"mean":2.5,"nan":0,"inf":0,"values":[1,3,2,4]}`},
	} {
		s, err := Summarize(c.name, c.t, c.values)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		got, err := json.Marshal(s)
		if err != nil || string(got) != c.json {
			t.Errorf("%s: JSON\n%s %v\nwant\n%s", c.name, got, err, c.json)
		}
	}
	for _, c := range []struct {
		t      tensor.Tensor
		values int
		want   string
	}{
		{tensor.Tensor{}, 0, "unknown dtype"},
		{tensor.Tensor{DType: tensor.F32, Shape: []int{4}, F32: make([]float32, 2)}, 0, "outside"},
		{tensor.FromF32([]float32{1}, 1), -1, "values -1"},
	} {
		if _, err := Summarize("x", c.t, c.values); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Summarize(%+v, %d): error %v, want %q", c.t, c.values, err, c.want)
		}
	}
}
