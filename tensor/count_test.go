package tensor

import (
	"math"
	"math/big"
	"testing"
)

// TestNumElementsAndStrideOf: the element count and the row-major strides, computed with an
// overflow flag, equal a math/big evaluation of the definition (a negative dimension before any
// 0 refuses, a 0 makes the count 0, a product past int refuses) on shapes with zeros,
// negatives, and products at and past int's range, in any order; StrideOf is Stride.
func TestNumElementsAndStrideOf(t *testing.T) {
	big3 := math.MaxInt/3 + 1
	dims := []int{0, 1, 2, 3, 7, -1, -5, 1 << 31, 1 << 32, big3, math.MaxInt}
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
	want := func(sh []int) int {
		n := big.NewInt(1)
		for _, d := range sh {
			switch {
			case d < 0:
				return -1
			case d == 0:
				return 0
			}
			n.Mul(n, big.NewInt(int64(d)))
		}
		if !n.IsInt64() || n.Int64() > math.MaxInt {
			return -1
		}
		return int(n.Int64())
	}
	for _, sh := range shapes {
		if got, w := NumElements(sh), want(sh); got != w {
			t.Errorf("NumElements(%v) = %d, want %d", sh, got, w)
		}
		for _, strides := range [][]int{nil, make([]int, len(sh))} {
			for i := range strides {
				strides[i] = 10*i + 1
			}
			x := Tensor{DType: F32, Shape: sh, Strides: strides}
			for k := -1; k <= len(sh); k++ {
				w := 0
				switch {
				case k < 0 || k >= len(sh):
				case strides != nil:
					w = strides[k]
				default:
					if w = want(sh[k+1:]); w < 0 {
						w = math.MaxInt
					}
				}
				if got := StrideOf(&x, k); got != w || x.Stride(k) != w {
					t.Errorf("StrideOf(%v, strides %v, %d) = %d, Stride %d, want %d", sh, strides, k, got, x.Stride(k), w)
				}
			}
		}
	}
	short := Tensor{DType: F32, Shape: []int{2, 3, 4}, Strides: []int{12}}
	for k := range 3 {
		if got, w := StrideOf(&short, k), []int{12, 0, 0}[k]; got != w {
			t.Errorf("strides of the wrong rank, dimension %d: %d, want %d", k, got, w)
		}
	}
}
