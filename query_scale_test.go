package rotary_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/tensor"
)

// TestQueryScaleBadInput: refusals name the argument or the rule's parameter, never panic, and
// leave the query untouched.
func TestQueryScaleBadInput(t *testing.T) {
	llama4 := rotary.QueryScaleRule{Kind: rotary.QueryScaleLlama4, FloorScale: 8192, AttnScale: 0.1}
	type args struct {
		pos, q tensor.Tensor
		rule   rotary.QueryScaleRule
	}
	cases := []struct {
		name string
		mod  func(a *args)
		want []string
	}{
		{"positions missing", func(a *args) { a.pos = tensor.Tensor{} }, []string{"positions", "missing"}},
		{"positions float", func(a *args) { a.pos = thdFilled(4) }, []string{"positions", "dtype"}},
		{"positions 2-D", func(a *args) { a.pos = tensor.FromI64(make([]int64, 12), 3, 4) }, []string{"positions", "shape"}},
		{"positions count", func(a *args) { a.pos = tensor.FromI64([]int64{0, 1, 2}, 3) }, []string{"positions", "3 positions for 4 tokens"}},
		{"positions negative", func(a *args) { a.pos = tensor.FromI32([]int32{0, 1, -5, 3}, 4) }, []string{"positions", "-5", "negative"}},
		{"positions short buffer", func(a *args) { a.pos = tensor.Tensor{DType: tensor.I64, Shape: []int{4}, I64: make([]int64, 3)} }, []string{"positions"}},
		{"query missing", func(a *args) { a.q = tensor.Tensor{} }, []string{"query", "missing"}},
		{"query integer", func(a *args) { a.q = tensor.FromI32(make([]int32, 4*8), 4, 8) }, []string{"query", "dtype"}},
		{"query 1-D", func(a *args) { a.q = thdFilled(32) }, []string{"query", "shape"}},
		{"query 4-D", func(a *args) { a.q = thdFilled(4, 2, 2, 2) }, []string{"query", "shape"}},
		{"query empty rows", func(a *args) { a.q = thdFilled(4, 2, 0) }, []string{"query", "last dimension"}},
		{"query head strided", func(a *args) {
			a.q = tensor.Tensor{DType: tensor.F32, Shape: []int{4, 2, 4}, Strides: []int{16, 8, 2}, F32: make([]float32, 64)}
		}, []string{"query", "contiguous"}},
		{"query short buffer", func(a *args) { a.q = tensor.Tensor{DType: tensor.F32, Shape: []int{4, 8}, F32: make([]float32, 31)} }, []string{"query"}},
		{"floor_scale 0", func(a *args) { a.rule.FloorScale = 0 }, []string{"rule", "floor_scale 0"}},
		{"floor_scale NaN", func(a *args) { a.rule.FloorScale = math.NaN() }, []string{"rule", "floor_scale NaN"}},
		{"floor_scale 0.5", func(a *args) { a.rule.FloorScale = 0.5 }, []string{"rule", "floor_scale 0.5", "≥ 1"}},
		{"attn_scale Inf", func(a *args) { a.rule.AttnScale = math.Inf(1) }, []string{"rule", "attn_scale +Inf"}},
		{"attn_scale huge", func(a *args) { a.rule.AttnScale = 1e31 }, []string{"rule", "attn_scale"}},
		{"beta on llama4", func(a *args) { a.rule.Beta = 0.1 }, []string{"rule", "llama_4_scaling_beta 0.1", "not a parameter of query scale llama4"}},
		{"beta without original", func(a *args) {
			a.rule = rotary.QueryScaleRule{Kind: rotary.QueryScaleBeta, Beta: 0.1}
		}, []string{"rule", "original_max_position_embeddings 0"}},
		{"beta NaN", func(a *args) {
			a.rule = rotary.QueryScaleRule{Kind: rotary.QueryScaleBeta, Beta: math.NaN(), OriginalMax: 16384}
		}, []string{"rule", "llama_4_scaling_beta NaN"}},
		{"floor_scale on beta", func(a *args) {
			a.rule = rotary.QueryScaleRule{Kind: rotary.QueryScaleBeta, Beta: 0.1, OriginalMax: 16384, FloorScale: 8192}
		}, []string{"rule", "floor_scale 8192", "not a parameter of query scale beta"}},
		{"none with parameters", func(a *args) { a.rule.Kind = rotary.QueryScaleNone }, []string{"rule", "floor_scale 8192", "none"}},
		{"unknown kind", func(a *args) { a.rule.Kind = 7 }, []string{"rule", "kind QueryScaleKind(7)"}},
		{"unknown cast", func(a *args) { a.rule.Cast = 9 }, []string{"rule", "cast QueryScaleCast(9)"}},
	}
	for _, c := range cases {
		a := args{pos: tensor.FromI64([]int64{0, 8191, 1 << 20, 5}, 4), q: thdFilled(4, 2, 4), rule: llama4}
		c.mod(&a)
		expectRefused(t, c.name, func() error {
			return rotary.QueryScale(nil, rotary.QueryScaleParams{Positions: a.pos, Query: a.q, Rule: a.rule})
		}, c.want, a.q)
	}
}

// TestQueryScaleAllocs: the per-layer call does not allocate, decode or prefill (the prefill
// split across threads where the machine has them).
func TestQueryScaleAllocs(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("allocation counts in -short mode or under the race detector")
	}
	rule := rotary.QueryScaleRule{Kind: rotary.QueryScaleLlama4, FloorScale: 8192, AttnScale: 0.1}
	for _, T := range []int{1, 4096} {
		for _, d := range []tensor.DType{tensor.F32, tensor.BF16} {
			q := tensor.Zeros(d, T, 8, 128)
			p := make([]int64, T)
			for i := range p {
				p[i] = int64(i) * 7
			}
			pos := tensor.FromI64(p, T)
			if n := testing.AllocsPerRun(10, func() {
				if err := rotary.QueryScale(nil, rotary.QueryScaleParams{Positions: pos, Query: q, Rule: rule}); err != nil {
					panic(err)
				}
			}); n != 0 {
				t.Errorf("%d tokens %v: QueryScale allocates %v times per call", T, d, n)
			}
		}
	}
}

// ExampleQueryScale scales a Ministral 3 query (llama_4_scaling_beta 0.1 over 16384 positions):
// below position 16384 the scale is 1, from there 1 + 0.1·ln 2, rounded to BF16 (1.0703125)
// before the product, as Hugging Face's Ministral3Attention does.
func ExampleQueryScale() {
	rule := rotary.QueryScaleRule{Kind: rotary.QueryScaleBeta, Beta: 0.1, OriginalMax: 16384}
	positions := tensor.FromI64([]int64{16383, 16384, 3 * 16384}, 3)
	bits := make([]uint16, 3)
	for i := range bits {
		bits[i] = tensor.FromFloat32(tensor.BF16, 2)
	}
	q := tensor.FromBits(tensor.BF16, bits, 3, 1, 1)
	if err := rotary.QueryScale(nil, rotary.QueryScaleParams{Positions: positions, Query: q, Rule: rule}); err != nil {
		panic(err)
	}
	for i := range 3 {
		fmt.Println(q.Float64At(i))
	}
	// Output:
	// 2
	// 2.140625
	// 2.28125
}
