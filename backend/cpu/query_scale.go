package cpu

import (
	"github.com/rotary-go/rotary/backend/native"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/tensor"
)

// query_scale: one multiplier per token (the reference's own QueryScaleFactor, so the scale is
// the reference's to the bit), then the token's elements times it in float32, each rounded as
// tensor.FromFloat32 rounds, so each element is native's dtype(float32(x·m)). On amd64 a kernel
// (query_scale_amd64.go) scales a run's leading multiple of 16 elements in one pass; the rest,
// and every element elsewhere, is widened and narrowed in bulk by the conversion kernels around
// a Go multiplication. A token's heads are one run when they are adjacent, and tokens are split
// across the pool.

func init() {
	ops.QueryScale.Register(&ops.Impl[ops.QueryScaleArgs]{Backend: Name, Priority: 10, Fn: func(a ops.QueryScaleArgs) {
		q := &a.Query
		// Without heads the checks bound no token's offset: there is nothing to address.
		if a.Rule.Kind == rope.QueryScaleNone || q.Tokens == 0 || q.NumHeads == 0 {
			return
		}
		j := (*queryScaleJob)(&a)
		if q.Tokens < 2 || ThreadsFor(2*q.Tokens*q.NumHeads*q.HeadSize*q.DType.Size()) < 2 || !parallel(j, q.Tokens) {
			j.run(0, q.Tokens)
		}
	}})
}

// queryScaleJob is a query_scale call as the pool runs it, by token.
type queryScaleJob ops.QueryScaleArgs

var queryScaleSlot queryScaleJob

func (*queryScaleJob) slot() *queryScaleJob { return &queryScaleSlot }

// queryScaleChunk is how many widened elements are in flight: a few KB, on the stack.
const queryScaleChunk = 512

// run scales tokens [lo, hi).
func (j *queryScaleJob) run(lo, hi int) {
	a := (*ops.QueryScaleArgs)(j)
	k := active
	q := &a.Query
	run, runs := q.HeadSize, q.NumHeads
	if q.HeadStride == q.HeadSize && runs > 0 {
		run, runs = q.HeadSize*q.NumHeads, 1
	}
	var buf [queryScaleChunk]float32
	for t := lo; t < hi; t++ {
		m := native.QueryScaleFactor(&a.Rule, q.DType, a.Positions.At(0, t))
		for h := range runs {
			base := q.Off + t*q.TokenStride + h*q.HeadStride
			if q.DType == tensor.F32 {
				x := q.F32[base : base+run : base+run]
				scaleF32(x[queryScaleF32Asm(k.isa, x, m):], m)
				continue
			}
			bits := q.Bits[base : base+run : base+run]
			for bits = bits[queryScaleBitsAsm(k.isa, q.DType, bits, m):]; len(bits) > 0; {
				n := min(len(bits), len(buf))
				f := buf[:n:n]
				widenBits(k, q.DType, f, bits[:n])
				scaleF32(f, m)
				narrowBits(k, q.DType, bits[:n], f)
				bits = bits[n:]
			}
		}
	}
}

// scaleF32 multiplies x by m in place, each product rounded to float32. Four independent
// products a round keep the multiplier's latency off the loop.
func scaleF32(x []float32, m float32) {
	i := 0
	for ; i+4 <= len(x); i += 4 {
		v := x[i : i+4 : i+4]
		v[0], v[1], v[2], v[3] = v[0]*m, v[1]*m, v[2]*m, v[3]*m
	}
	for ; i < len(x); i++ {
		x[i] *= m
	}
}
