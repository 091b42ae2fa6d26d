package tensor_test

import (
	"fmt"

	"github.com/rotary-go/rotary/tensor"
)

// BF16 keeps float32's exponent and 8 bits of its significand; conversion rounds to nearest,
// ties to even, as PyTorch's .to(torch.bfloat16) does.
func ExampleBF16FromFloat32() {
	for _, f := range []float32{1, 1 + 1.0/256, 1 + 3.0/256, 3e38} {
		b := tensor.BF16FromFloat32(f)
		fmt.Printf("%v -> %#04x = %v\n", f, b, tensor.Float32FromBF16(b))
	}
	// Output:
	// 1 -> 0x3f80 = 1
	// 1.0039062 -> 0x3f80 = 1
	// 1.0117188 -> 0x3f82 = 1.015625
	// 3e+38 -> 0x7f62 = 3.0040553e+38
}

// A view of [tokens, heads, dim] as head-major [heads, tokens, dim] shares the data; only the
// strides change.
func ExampleTensor_Permute() {
	x := tensor.FromF32([]float32{0, 1, 2, 3, 4, 5, 6, 7}, 2, 2, 2)
	v, err := x.Permute(1, 0, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(v.Shape, v.Strides, v.Float32At(v.Index(1, 0, 1)))
	// Output: [2 2 2] [2 4 1] 3
}
