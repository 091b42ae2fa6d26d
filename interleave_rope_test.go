package rotary_test

import (
	"fmt"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/tensor"
)

// TestInterleaveRoPEBadInput: refusals name the argument; out (and x, in place) stay untouched.
func TestInterleaveRoPEBadInput(t *testing.T) {
	type args struct{ x, cos, sin, out tensor.Tensor }
	cases := []struct {
		name string
		mod  func(a *args)
		want []string
	}{
		{"x 3-D", func(a *args) { a.x = thdFilled(2, 3, 64) }, []string{"x", "BNSD"}},
		{"x odd head dim", func(a *args) {
			a.x, a.out, a.cos, a.sin = thdFilled(2, 3, 4, 7), thdFilled(2, 3, 4, 7), thdFilled(2, 1, 4, 7), thdFilled(2, 1, 4, 7)
		}, []string{"x", "head dim 7"}},
		{"x integer", func(a *args) { a.x = tensor.FromI32(make([]int32, 2*3*4*64), 2, 3, 4, 64) }, []string{"x", "dtype"}},
		{"cos batch", func(a *args) { a.cos, a.sin = thdFilled(3, 1, 4, 64), thdFilled(3, 1, 4, 64) }, []string{"cos", "broadcast"}},
		{"cos sequence", func(a *args) { a.cos, a.sin = thdFilled(2, 1, 2, 64), thdFilled(2, 1, 2, 64) }, []string{"cos", "broadcast"}},
		{"cos half width", func(a *args) { a.cos, a.sin = thdFilled(2, 1, 4, 32), thdFilled(2, 1, 4, 32) }, []string{"cos", "last dimension 32"}},
		{"cos 3-D", func(a *args) { a.cos, a.sin = thdFilled(2, 4, 64), thdFilled(2, 4, 64) }, []string{"cos", "shape"}},
		{"sin differs", func(a *args) { a.sin = thdFilled(2, 1, 1, 64) }, []string{"sin", "shape"}},
		{"out shape", func(a *args) { a.out = thdFilled(2, 3, 4, 32) }, []string{"out", "shape"}},
		{"out dtype", func(a *args) { a.out = tensor.Zeros(tensor.F16, 2, 3, 4, 64) }, []string{"out", "dtype"}},
		{"out missing", func(a *args) { a.out = tensor.Tensor{} }, []string{"out", "missing"}},
		{"x head strided", func(a *args) {
			a.x = tensor.Tensor{DType: tensor.F32, Shape: []int{2, 3, 4, 64}, Strides: []int{3 * 4 * 128, 4 * 128, 128, 2}, F32: make([]float32, 2*3*4*128)}
		}, []string{"x", "contiguous"}},
	}
	for _, c := range cases {
		a := args{x: thdFilled(2, 3, 4, 64), cos: thdFilled(2, 1, 4, 64), sin: thdFilled(2, 1, 4, 64), out: thdFilled(2, 3, 4, 64)}
		c.mod(&a)
		expectRefused(t, c.name, func() error {
			return rotary.InterleaveRoPE(nil, rotary.InterleaveRoPEParams{X: a.x, Cos: a.cos, Sin: a.sin, Out: a.out})
		}, c.want, a.x, a.out)
	}
}

// ExampleInterleaveRoPE shows npu_interleave_rope's output order: pairs (x0, x1) and (x2, x3)
// rotate by 90°, and the results come out as (first of each pair..., second of each pair...).
func ExampleInterleaveRoPE() {
	x := tensor.FromF32([]float32{1, 2, 3, 4}, 1, 1, 1, 4)
	cos := tensor.FromF32([]float32{0, 0, 0, 0}, 1, 1, 1, 4)
	sin := tensor.FromF32([]float32{1, 1, 1, 1}, 1, 1, 1, 4)
	out := tensor.Zeros(tensor.F32, 1, 1, 1, 4)
	if err := rotary.InterleaveRoPE(nil, rotary.InterleaveRoPEParams{X: x, Cos: cos, Sin: sin, Out: out}); err != nil {
		panic(err)
	}
	fmt.Println(out.F32)
	// Output: [-2 -4 1 3]
}
