package explain

import (
	"math/rand/v2"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/compare"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/tensor"
)

// TestExplainNeverPanics: every entry point, fed tensors of random dtypes, shapes and
// views (mismatched counts, integer outputs, strided and absent tensors, specs with odd
// fields), returns a report or an error and never panics.
func TestExplainNeverPanics(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	dtypes := []tensor.DType{tensor.F32, tensor.BF16, tensor.F16, tensor.F64, tensor.I32, tensor.I64, tensor.Invalid}
	// Half the tensors take one of a few shapes that fit together ([T], [T, H, 4], [T, 4]
	// with T 3), so that calls get past the argument checks into the readings.
	fitting := [][]int{{3}, {3, 2, 4}, {3, 1, 4}, {3, 4}, {2, 3}, {1, 3, 2, 4}}
	random := func() tensor.Tensor {
		d := dtypes[rng.IntN(len(dtypes))]
		if d == tensor.Invalid {
			return tensor.Tensor{}
		}
		shape := make([]int, 1+rng.IntN(3))
		for i := range shape {
			shape[i] = rng.IntN(5)
		}
		if rng.IntN(2) == 0 {
			shape = append([]int(nil), fitting[rng.IntN(len(fitting))]...)
			if len(shape) > 1 || rng.IntN(3) > 0 {
				d = []tensor.DType{tensor.F32, tensor.BF16, tensor.F32, tensor.BF16, tensor.F64, tensor.I32}[rng.IntN(6)]
			}
			if len(shape) == 1 && rng.IntN(2) == 0 {
				d = tensor.I64 // positions
			}
		}
		x := tensor.Zeros(d, shape...)
		if rng.IntN(4) == 0 && x.Rank() == 2 && x.Len() > 0 { // a transposed view
			x.Shape, x.Strides = []int{shape[1], shape[0]}, []int{1, shape[1]}
		}
		for i := range x.Len() {
			switch d {
			case tensor.F32, tensor.BF16, tensor.F16:
				x.SetFloat32(i, float32(rng.NormFloat64()))
			case tensor.I64:
				x.I64[i] = rng.Int64N(8) - 1
			case tensor.I32:
				x.I32[i] = int32(rng.IntN(20))
			}
		}
		return x
	}
	specs := []rope.Spec{{}, {HeadSize: 4, RotaryDim: 4, Base: 10000, MaxPositions: 64}, {HeadSize: 4, RotaryDim: 2, Base: 10000, MaxPositions: 64, Style: rope.GPTJ}}
	opts := compare.Options{MaxULP: 1, ATol: -1}
	for range 6000 {
		pair := func() map[string]tensor.Tensor { return map[string]tensor.Tensor{"query": random(), "key": random()} }
		spec := specs[rng.IntN(len(specs))]
		Explain(Case{Spec: spec, Positions: random(), Query: random(), Key: random(), Want: pair(), Got: pair()}, opts)
		ExplainQKNorm(QKNormCase{Case: Case{Spec: spec, Positions: random(), Query: random(), Want: pair(), Got: pair()}, QWeight: random(), Epsilon: rng.Float64()}, opts)
		ExplainCosSin(CosSinCase{Layout: ops.Layout(""), Style: rope.Style(rng.IntN(3)), Interleaved: rng.IntN(2) == 0, Backward: rng.IntN(2) == 0,
			X: random(), Cos: random(), Sin: random(), Want: random(), Got: random()}, opts)
		ExplainCache(CacheCase{Params: rotary.NPUMRoPEParams{Positions: random(), Query: random(), Key: random(), CosSinCache: random(), HeadSize: rng.IntN(6)},
			Want: pair(), Got: pair()}, opts)
		ExplainTHD(THDCase{Params: rotary.ApplyRotaryEmbTHDParams{X: random(), Cos: random(), Sin: random(), Seqs: ops.PackedSeqs{CuSeqlens: random(), CPSize: rng.IntN(3)}},
			Want: random(), Got: random()}, opts)
		ExplainVision(VisionCase{Params: rotary.VisionRoPE2DParams{Positions: random(), Query: random(), HeadSize: 4 * rng.IntN(3)}, Want: pair(), Got: pair()}, opts)
		in := map[string]tensor.Tensor{"kv": random(), "gamma": random(), "cos": random(), "sin": random(), "index": random()}
		out := pair()
		ExplainRerun(RerunCase{Op: "kv_rmsnorm_rope_cache", Inputs: in, Args: map[string]string{"epsilon": "x"},
			Rerun: func(map[string]tensor.Tensor, map[string]string) (map[string]tensor.Tensor, error) {
				return pair(), nil
			},
			Want: out, Got: pair()}, opts)
		ExplainQueryScale(QueryScaleCase{Params: rotary.QueryScaleParams{Positions: random(), Query: random(),
			Rule: rope.QueryScaleRule{Kind: rope.QueryScaleLlama4, FloorScale: 4, AttnScale: 0.1}}, Want: random(), Got: random()}, opts)
	}
}
