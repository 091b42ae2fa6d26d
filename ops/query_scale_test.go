package ops_test

import (
	"math"
	"testing"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/tensor"
)

// FuzzQueryScaleArgs feeds arbitrary tensors and rule parameters to NewQueryScale: no panic, an
// accepted query lies in its buffer with one position per token, an accepted rule validates,
// and small accepted calls run through the kernels (whose scale must then be finite) without a
// panic.
func FuzzQueryScaleArgs(f *testing.F) {
	// [4,2,8] BF16 query, [4] I64 positions, Llama 4's defaults.
	f.Add([]byte(fuzzEncode(nil).contiguous(tensor.BF16, 4, 2, 8).contiguous(tensor.I64, 4)), byte(1), byte(0), 8192.0, 0.1, 0)
	// [3,16] F32 query, [3] I32 positions, Ministral 3's beta.
	f.Add([]byte(fuzzEncode(nil).contiguous(tensor.F32, 3, 16).contiguous(tensor.I32, 3)), byte(2), byte(2), 0.1, 0.0, 16384)
	// Mixed parameters, a tiny floor scale, huge coefficients.
	f.Add([]byte(fuzzEncode(nil).contiguous(tensor.F16, 2, 1, 4).contiguous(tensor.I64, 2)), byte(1), byte(1), 1e-40, 1e30, 0)
	f.Add([]byte(fuzzEncode(nil).contiguous(tensor.F16, 2, 1, 4).contiguous(tensor.I64, 2)), byte(2), byte(0), math.Inf(1), 0.0, -3)

	f.Fuzz(func(t *testing.T, data []byte, kind, cast byte, x, y float64, n int) {
		r := &fuzzReader{b: data}
		q, pos := r.tensor(), r.tensor()
		// Large positions: the scale's float32 path must stay finite up to int64's end.
		for i := range pos.I64 {
			pos.I64[i] = math.MaxInt64 - int64(i)*(1<<40)
		}
		for i := range pos.I32 {
			pos.I32[i] = int32(i * 12345)
		}
		rule := rope.QueryScaleRule{Kind: rope.QueryScaleKind(kind % 4), Cast: rope.QueryScaleCast(cast % 4)}
		switch rule.Kind {
		case rope.QueryScaleLlama4:
			rule.FloorScale, rule.AttnScale = x, y
		case rope.QueryScaleBeta:
			rule.Beta, rule.OriginalMax = x, n
		default:
			rule.OriginalMax = n
		}
		a, err := ops.NewQueryScale(ops.QueryScaleParams{Positions: pos, Query: q, Rule: rule})
		if err != nil {
			return
		}
		if err := a.Rule.Validate(); err != nil {
			t.Fatalf("accepted rule %+v: %v", a.Rule, err)
		}
		checkHeads(t, "NewQueryScale", a.Query, a.Query.HeadSize)
		checkPositions(t, a.Positions, a.Query.Tokens, ops.NoLimit)
		if a.Query.Tokens*a.Query.NumHeads*a.Query.HeadSize <= 1<<14 {
			if _, err := ops.Run(ops.Default, ops.QueryScale, a); err != nil {
				t.Fatal(err)
			}
		}
	})
}
