package compare_test

import (
	"fmt"

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
