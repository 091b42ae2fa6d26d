package explain

import (
	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/tensor"
)

// rotate is rotary_embedding of the inputs (copies) by spec at positions pos: the exact
// arithmetic, through the library.
func (s *state) rotate(spec rope.Spec, pos tensor.Tensor, in map[string]tensor.Tensor) (map[string]tensor.Tensor, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	emb, err := rotary.New(spec, rotary.WithCacheLen(0))
	if err != nil {
		return nil, err
	}
	q, k := in["query"].Clone(), tensor.Tensor{}
	if t, ok := in["key"]; ok {
		k = t.Clone()
	}
	if err := emb.Forward(pos, q, k); err != nil {
		return nil, err
	}
	out := map[string]tensor.Tensor{"query": q}
	if !k.IsZero() {
		out["key"] = k
	}
	return out, nil
}

// withSpec is the exact rotation by the spec as mutate changes it; nil when mutate says the
// reading does not apply.
func (s *state) withSpec(mutate func(*rope.Spec) bool) (map[string]tensor.Tensor, error) {
	spec := s.spec
	// The scaling tables are shared with the caller's spec: a mutation must not write them.
	spec.Scaling.ShortFactor = append([]float64(nil), spec.Scaling.ShortFactor...)
	spec.Scaling.LongFactor = append([]float64(nil), spec.Scaling.LongFactor...)
	if !mutate(&spec) {
		return nil, nil
	}
	return s.rotate(spec, s.pos, s.inputs)
}

// withPositions is the exact rotation at positions p(position) instead.
func (s *state) withPositions(p func(int64) int64) (map[string]tensor.Tensor, error) {
	return s.withPositionAt(func(_ int, v int64) int64 { return p(v) })
}

// withPositionAt is the exact rotation with position i (flat, row-major) replaced by p(i, its
// value); nil when a replaced position is negative.
func (s *state) withPositionAt(p func(i int, v int64) int64) (map[string]tensor.Tensor, error) {
	v := make([]int64, s.pos.Len())
	for i := range v {
		if v[i] = p(i, s.pos.Int64At(i)); v[i] < 0 {
			return nil, nil
		}
	}
	pos := tensor.FromI64(v, s.pos.Shape...)
	if s.vision != nil {
		return s.applyVision(s.inputs, func(q *rotary.VisionRoPE2DParams) { q.Positions = pos })
	}
	if s.qs != nil {
		return s.applyQS(func(q *rotary.QueryScaleParams) { q.Positions = pos })
	}
	if s.npu != nil {
		return s.applyCache(func(q *rotary.NPUMRoPEParams) { q.Positions = pos })
	}
	return s.rotate(s.spec, pos, s.inputs)
}

// eachDims permutes every head's D elements of every tensor in ts: out[j] = in[src(j)].
func eachDims(ts map[string]tensor.Tensor, D int, src func(j int) int) map[string]tensor.Tensor {
	out := map[string]tensor.Tensor{}
	for n, t := range ts {
		p := tensor.Zeros(t.DType, t.Shape...)
		for row := 0; row+D <= t.Len(); row += D {
			for j := range D {
				copyElem(p, row+j, t, row+src(j))
			}
		}
		out[n] = p
	}
	return out
}

// copyElem copies element si of contiguous src to element di of dst, of the same dtype.
func copyElem(dst tensor.Tensor, di int, src tensor.Tensor, si int) {
	switch src.DType {
	case tensor.F32:
		dst.F32[di] = src.F32[si]
	case tensor.F16, tensor.BF16:
		dst.Bits[di] = src.Bits[si]
	case tensor.F64:
		dst.F64[di] = src.F64[si]
	case tensor.I32:
		dst.I32[di] = src.I32[si]
	case tensor.I64:
		dst.I64[di] = src.I64[si]
	case tensor.I8:
		dst.I8[di] = src.I8[si]
	case tensor.U8:
		dst.U8[di] = src.U8[si]
	}
}

// pairMembers swaps the two members of every rotation pair of the rotary dims in the spec's
// pairing: NeoX's i and i+d/2, GPT-J's 2i and 2i+1. Applied twice it is the identity.
func pairMembers(spec rope.Spec) func(j int) int {
	h := spec.RotaryDim / 2
	return func(j int) int {
		switch {
		case j >= spec.RotaryDim:
			return j
		case spec.Style == rope.GPTJ:
			return j ^ 1
		case j < h:
			return j + h
		}
		return j - h
	}
}

// interleaved reads element j of a head written in GPT-J order (2i, 2i+1) from one in NeoX
// order (i, i+d/2); halves is its inverse.
func interleaved(rd int) func(j int) int {
	return func(j int) int {
		if j >= rd {
			return j
		}
		if j%2 == 0 {
			return j / 2
		}
		return rd/2 + j/2
	}
}

func halves(rd int) func(j int) int {
	return func(j int) int {
		switch {
		case j >= rd:
			return j
		case j < rd/2:
			return 2 * j
		}
		return 2*(j-rd/2) + 1
	}
}

// tail moves the last rd dims of a head of D to its front (from its front back, inverse).
func tail(D, rd int, inverse bool) func(j int) int {
	return func(j int) int {
		if inverse {
			return (j + rd) % D
		}
		return (j + D - rd) % D
	}
}

// transposed writes each tensor, viewed as outer × a × b × inner (swap), in outer × b × a ×
// inner order, in its own shape: an output written with two axes swapped. A b of 0 is each
// tensor's own (query and key differ in heads).
func transposed(ts map[string]tensor.Tensor, swap [4]int) map[string]tensor.Tensor {
	outer, A, inner := swap[0], swap[1], swap[3]
	out := map[string]tensor.Tensor{}
	for n, t := range ts {
		B := swap[2]
		if B == 0 {
			B = t.Len() / (outer * A * inner)
		}
		p := tensor.Zeros(t.DType, t.Shape...)
		for o := range outer {
			for a := range A {
				for b := range B {
					for k := range inner {
						copyElem(p, ((o*B+b)*A+a)*inner+k, t, ((o*A+a)*B+b)*inner+k)
					}
				}
			}
		}
		out[n] = p
	}
	return out
}
