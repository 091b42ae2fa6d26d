package compare_test

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/rotary-go/rotary/compare"
	"github.com/rotary-go/rotary/tensor"
)

// A candidate's rotated query against the expected one: one element is 2 ULP off, over the
// 1-ULP tolerance, and is located by token, head and dim.
func ExampleTensors() {
	want := tensor.FromF32([]float32{1, 2, 3, 4, 5, 6, 7, 8}, 2, 2, 2)
	got := tensor.FromF32([]float32{1, 2, 3, 4, 5, 6, 7, 8.000002}, 2, 2, 2)
	r := compare.Tensors("out.query", want, got, compare.Options{MaxULP: 1, Show: 1}, compare.Axes{})
	fmt.Println(r.Problem)
	for _, e := range r.Worst {
		fmt.Println(e.Axes, e.Index, e.ULP)
	}
	// Output:
	// 1 elements over tolerance
	// [token head dim] [1 1 1] 2
}

// A tensor's figures, as rotary show prints them: the finite values' extremes and mean, NaN
// apart, and the first values as the dtype holds them.
func ExampleSummarize() {
	x := tensor.FromF32([]float32{0.1, -2, float32(math.NaN()), 3}, 2, 2)
	s, err := compare.Summarize("out.query", x, 3)
	if err != nil {
		panic(err)
	}
	fmt.Println(s.Min.Format(s.DType), s.Max.Format(s.DType), *s.Mean, s.NaN)
	js, _ := json.Marshal(s)
	fmt.Println(string(js))
	// Output:
	// -2 3 0.36666666716337204 1
	// {"name":"out.query","dtype":"F32","shape":[2,2],"elements":4,"min":-2,"max":3,"mean":0.36666666716337204,"nan":1,"inf":0,"values":[0.1,-2,"NaN"]}
}
