package explain

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/compare"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/tensor"
)

// TestExplainQueryScale: Llama 4's query scale written naively (log1p(⌊(p+1)/8192⌋)·0.1 + 1 in
// float32) with the position off by one, the scale rounded to BF16 first, or no scale at all, is
// named first.
func TestExplainQueryScale(t *testing.T) {
	const T, H, D = 8, 2, 8
	rng := rand.New(rand.NewPCG(19, 20))
	q := tensor.Zeros(tensor.BF16, T, H, D)
	for i := range q.Len() {
		q.SetFloat32(i, float32(rng.NormFloat64()))
	}
	pos := []int64{8190, 8191, 8192, 16382, 16383, 16384, 40000, 65535}
	rule := rope.QueryScaleRule{Kind: rope.QueryScaleLlama4, FloorScale: 8192, AttnScale: 0.1}
	params := rotary.QueryScaleParams{Positions: tensor.FromI64(pos, T), Query: q, Rule: rule}
	want := q.Clone()
	exact := params
	exact.Query = want
	if err := rotary.QueryScale(nil, exact); err != nil {
		t.Fatal(err)
	}
	r16 := func(v float32) float32 { return tensor.Float32FromBF16(tensor.BF16FromFloat32(v)) }
	naive := func(shift int64, scaleFirst bool) tensor.Tensor {
		out := q.Clone()
		for i := range q.Len() {
			p := pos[i/(H*D)] + shift
			s := float32(math.Log1p(math.Floor(float64(p+1)/8192)))*float32(0.1) + 1
			if scaleFirst {
				s = r16(s)
			}
			out.SetFloat32(i, float32(q.Float32At(i)*s))
		}
		return out
	}
	if rep, err := ExplainQueryScale(QueryScaleCase{Params: params, Want: want, Got: naive(0, false)}, compare.Options{MaxULP: 1, ATol: -1}); err != nil || rep.Failing != 0 {
		t.Fatalf("the naive formula itself: %+v %v", rep, err)
	}
	for _, c := range []struct {
		want string
		got  tensor.Tensor
	}{
		{"positions_minus_one", naive(-1, false)},
		{"query_scale_cast", naive(0, true)},
		{"query_not_rotated", q},
	} {
		rep, err := ExplainQueryScale(QueryScaleCase{Params: params, Want: want, Got: c.got}, compare.Options{MaxULP: 0, ATol: 0})
		if err != nil {
			t.Fatal(err)
		}
		// The token index (0..7, all below 8191) scales by 1 too: both readings reproduce an
		// unscaled query, and both are reported.
		found := false
		for _, f := range rep.Findings {
			found = found || f.Mistake == c.want && f.Reproduces()
		}
		if rep.Failing == 0 || !found || c.want != "query_not_rotated" && rep.Findings[0].Mistake != c.want {
			t.Errorf("%s: %+v", c.want, rep)
		}
	}
}
