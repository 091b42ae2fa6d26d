package ops

import (
	"math"
	"testing"

	"github.com/rotary-go/rotary/tensor"
)

// kvcStride and kvcNumElements are Tensor.Stride and tensor.NumElements without copying the
// Tensor or dividing: equal on every dimension of shapes with zeros, negatives, and products at
// and past int's range, in any order.
func TestKVCStrideAndCount(t *testing.T) {
	big := math.MaxInt/3 + 1
	dims := []int{0, 1, 2, 3, 7, -1, -5, 1 << 31, 1 << 32, big, math.MaxInt}
	var shapes [][]int
	for _, a := range dims {
		shapes = append(shapes, []int{a})
		for _, b := range dims {
			shapes = append(shapes, []int{a, b})
			for _, c := range dims {
				shapes = append(shapes, []int{a, b, c}, []int{3, a, b, c})
			}
		}
	}
	shapes = append(shapes, nil, []int{}, []int{1 << 21, 1 << 21, 1 << 21}, []int{1 << 21, 1 << 21, 1 << 22}, []int{3, 1 << 62})
	for _, sh := range shapes {
		if got, want := kvcNumElements(sh), tensor.NumElements(sh); got != want {
			t.Errorf("kvcNumElements(%v) = %d, want %d", sh, got, want)
		}
		for _, strides := range [][]int{nil, make([]int, len(sh))} {
			for i := range strides {
				strides[i] = 10*i + 1
			}
			x := tensor.Tensor{DType: tensor.F32, Shape: sh, Strides: strides}
			for k := -1; k <= len(sh); k++ {
				if got, want := kvcStride(&x, k), x.Stride(k); got != want {
					t.Errorf("kvcStride(%v, strides %v, %d) = %d, want %d", sh, strides, k, got, want)
				}
			}
		}
	}
	short := tensor.Tensor{DType: tensor.F32, Shape: []int{2, 3, 4}, Strides: []int{12}}
	for k := range 3 {
		if got, want := kvcStride(&short, k), short.Stride(k); got != want {
			t.Errorf("strides of the wrong rank, dimension %d: %d, want %d", k, got, want)
		}
	}
}
