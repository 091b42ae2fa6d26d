package native

import (
	"math"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/tensor"
)

func init() {
	ops.QueryScale.Register(&ops.Impl[ops.QueryScaleArgs]{Backend: ops.Native, Fn: func(a ops.QueryScaleArgs) { QueryScale(&a) }})
}

// QueryScale is op query_scale: every element of token t's query times the rule's multiplier at
// its position (QueryScaleFactor), as one float32 product rounded to the query's dtype. A rule
// of kind none leaves the query alone: upstream has no multiplication there at all.
func QueryScale(a *ops.QueryScaleArgs) {
	if a.Rule.Kind == rope.QueryScaleNone {
		return
	}
	q := &a.Query
	x := headsData(q)
	for t := range q.Tokens {
		m := QueryScaleFactor(&a.Rule, q.DType, a.Positions.At(0, t))
		for h := range q.NumHeads {
			base := q.Off + t*q.TokenStride + h*q.HeadStride
			for j := range q.HeadSize {
				x.SetFloat32(base+j, float32(x.Float32At(base+j)*m))
			}
		}
	}
}

// QueryScaleFactor is the float32 that a query of dtype d at position pos is multiplied by
// under rule r (1 for kind none). It follows the upstream PyTorch expressions operation by
// operation, each float32 operation done in float64 and rounded to float32 (for +, ·, / that is
// exactly the float32 result: 53 ≥ 2·24 + 2 bits, so the double rounding is innocuous):
//
//	Llama 4 (modeling_llama4.py, Llama4TextAttention.forward):
//	  torch.log1p(torch.floor((positions.float() + 1.0) / floor_scale)) * attn_scale + 1.0
//	Beta (modeling_ministral3.py and modeling_mistral4.py, get_llama_4_attn_scale):
//	  1 + beta * torch.log(1 + torch.floor(positions_ids / max_position_embeddings))
//
// positions.float() and the int64 ÷ int promotion round the position to float32 (exact below
// 2^24); the Python scalars floor_scale, attn_scale, beta and the divisor become float32
// operands. The logarithm is the float64 one rounded once to float32: the correctly rounded
// float32 logarithm for every step index up to 2^20 at least (TestQueryScaleLogRounding),
// where PyTorch's float32 log and log1p (SLEEF on CPU, CUDA's logf/log1pf) promise 1 ULP, so
// an upstream run can differ from this by one float32 ULP of the logarithm at some steps.
// Beta's logarithm is of the float32 sum 1 + k, as upstream's (it equals log1p(k) below 2^24).
// The multiplier is the scale itself, or for CastScale (Ministral 3 and Mistral 4 in Hugging
// Face: scale.to(query_states.dtype)) the scale rounded to d.
func QueryScaleFactor(r *rope.QueryScaleRule, d tensor.DType, pos int64) float32 {
	p := float64(float32(pos))
	var l, coefficient float32
	switch r.Kind {
	case rope.QueryScaleLlama4:
		shifted := float32(p + 1)
		k := math.Floor(float64(float32(float64(shifted) / float64(float32(r.FloorScale)))))
		l = float32(math.Log1p(k))
		coefficient = float32(r.AttnScale)
	case rope.QueryScaleBeta:
		k := math.Floor(float64(float32(p / float64(float32(r.OriginalMax)))))
		l = float32(math.Log(float64(float32(1 + k))))
		coefficient = float32(r.Beta)
	default:
		return 1
	}
	s := float32(float64(float32(float64(l)*float64(coefficient))) + 1)
	if d != tensor.F32 && r.ScaleFirst() {
		s = tensor.ToFloat32(d, tensor.FromFloat32(d, s))
	}
	return s
}
