package rotarytest

import (
	"fmt"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

func init() { register(ops.InterleaveRoPE, (*sweep).interleaveRoPE) }

// interleaveRoPE checks npu_interleave_rope's BNSD form with the documented cos/sin broadcasts
// (per batch and sequence, per batch only) and wider heads. It rotates whole rows, so it has no
// pass-through cases.
func (s *sweep) interleaveRoPE() {
	shapes := []struct{ x, cos []int }{
		{[]int{2, 3, 5, 64}, []int{2, 1, 5, 64}},
		{[]int{3, 4, 1, 64}, []int{3, 1, 1, 64}},
		{[]int{2, 2, 7, 128}, []int{1, 1, 7, 128}},
		{[]int{1, 2, 3, 18}, []int{1, 2, 3, 18}},
	}
	for _, d := range dtypes {
		for _, sh := range shapes {
			name := fmt.Sprintf("%v/x%v/cos%v", d, sh.x, sh.cos)
			r := rng(len(name) * 13)
			x, cos, sin := randomTensor(d, sh.x, &r), randomTensor(d, sh.cos, &r), randomTensor(d, sh.cos, &r)
			s.compareOp(ops.InterleaveRoPE.Name(), name, func(disp *ops.Dispatcher) ([]tensor.Tensor, error) {
				out := tensor.Zeros(d, sh.x...)
				return []tensor.Tensor{out}, rotary.InterleaveRoPE(disp, rotary.InterleaveRoPEParams{X: x, Cos: cos, Sin: sin, Out: out})
			})
		}
	}
}
