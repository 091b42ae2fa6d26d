package native

import "github.com/rotary-go/rotary/tensor"

// forRows calls fn with the coordinates of every row (all dimensions but the last) of shape.
func forRows(shape []int, fn func(coords []int)) {
	lead := shape[:len(shape)-1]
	if tensor.NumElements(lead) == 0 || shape[len(shape)-1] == 0 {
		return
	}
	coords := make([]int, len(shape))
	for {
		fn(coords)
		k := len(lead) - 1
		for ; k >= 0; k-- {
			coords[k]++
			if coords[k] < lead[k] {
				break
			}
			coords[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// broadcastIndex is the backing index in c (whose dimensions are x's or 1) of x's coords.
func broadcastIndex(c tensor.Tensor, coords []int) int {
	i := c.Offset
	for k, v := range coords {
		if c.Shape[k] != 1 {
			i += v * c.Stride(k)
		}
	}
	return i
}
