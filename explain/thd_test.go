package explain

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/compare"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/tensor"
)

// TestExplainTHD: packed-sequence candidates written naively (each token's position worked out
// by hand, float64 rotation), each with one mistake of the packing or the rotation, are named
// first.
func TestExplainTHD(t *testing.T) {
	const H, D, rows = 2, 8, 64
	cos, sin := tensor.Zeros(tensor.F32, rows, D), tensor.Zeros(tensor.F32, rows, D)
	for p := range rows {
		for j := range D {
			a := float64(p) / math.Pow(10000, float64(2*(j%(D/2)))/D)
			cos.SetFloat32(p*D+j, float32(math.Cos(a)))
			sin.SetFloat32(p*D+j, float32(math.Sin(a)))
		}
	}
	rng := rand.New(rand.NewPCG(15, 16))
	heads := func(T int) tensor.Tensor {
		x := tensor.Zeros(tensor.F32, T, H, D)
		for i := range x.Len() {
			x.SetFloat32(i, float32(rng.NormFloat64()))
		}
		return x
	}
	// naive rotates token t of x at position pos[t], NeoX or GPT-J, sin times sign.
	naive := func(x tensor.Tensor, pos []int64, style rope.Style, sign float64) tensor.Tensor {
		out := x.Clone()
		for row := 0; row < x.Len(); row += D {
			p := int(pos[row/(H*D)])
			for i := range D / 2 {
				j, k := i, i+D/2
				if style == rope.GPTJ {
					j, k = 2*i, 2*i+1
				}
				// out = x·cos + rotate(x)·sin, element by element: each reads its own column.
				cj, sj := float64(cos.Float32At(p*D+j)), sign*float64(sin.Float32At(p*D+j))
				ck, sk := float64(cos.Float32At(p*D+k)), sign*float64(sin.Float32At(p*D+k))
				a, b := float64(x.Float32At(row+j)), float64(x.Float32At(row+k))
				out.SetFloat32(row+j, float32(a*cj-b*sj))
				out.SetFloat32(row+k, float32(b*ck+a*sk))
			}
		}
		return out
	}
	run := func(x tensor.Tensor, seqs ops.PackedSeqs) tensor.Tensor {
		out := tensor.Zeros(tensor.F32, x.Shape...)
		if err := rotary.ApplyRotaryEmbTHD(nil, rotary.ApplyRotaryEmbTHDParams{X: x, Out: out, Cos: cos, Sin: sin, Seqs: seqs}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	check := func(name string, x tensor.Tensor, seqs ops.PackedSeqs, got tensor.Tensor) {
		t.Helper()
		rep, err := ExplainTHD(THDCase{Params: rotary.ApplyRotaryEmbTHDParams{X: x, Cos: cos, Sin: sin, Seqs: seqs}, Want: run(x, seqs), Got: got}, compare.Options{MaxULP: 1, ATol: -1})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Failing == 0 || len(rep.Findings) == 0 || rep.Findings[0].Mistake != name || !rep.Findings[0].Reproduces() {
			t.Errorf("%s: %+v", name, rep)
		}
	}

	// Two sequences of 5 and 3 tokens, starting at 10 and 20.
	x := heads(8)
	seqs := ops.PackedSeqs{CuSeqlens: tensor.FromI64([]int64{0, 5, 8}, 3), StartPositions: tensor.FromI64([]int64{10, 20}, 2)}
	right := []int64{10, 11, 12, 13, 14, 20, 21, 22}
	check("start_positions_ignored", x, seqs, naive(x, []int64{0, 1, 2, 3, 4, 0, 1, 2}, rope.NeoX, 1))
	check("sequences_not_restarted", x, seqs, naive(x, []int64{0, 1, 2, 3, 4, 5, 6, 7}, rope.NeoX, 1))
	check("pairing", x, seqs, naive(x, right, rope.GPTJ, 1))
	check("rotation_reversed", x, seqs, naive(x, right, rope.NeoX, -1))

	// One sequence of 16 tokens over 2 context-parallel ranks: rank 1 holds chunks 1 and 2 of
	// 4, positions 4..7 and 8..11.
	x = heads(8)
	cp := ops.PackedSeqs{CuSeqlens: tensor.FromI64([]int64{0, 16}, 2), CPSize: 2, CPRank: 1}
	check("context_parallel_ignored", x, cp, naive(x, []int64{0, 1, 2, 3, 4, 5, 6, 7}, rope.NeoX, 1))
	if rep, err := ExplainTHD(THDCase{Params: rotary.ApplyRotaryEmbTHDParams{X: x, Cos: cos, Sin: sin, Seqs: cp}, Want: run(x, cp),
		Got: naive(x, []int64{4, 5, 6, 7, 8, 9, 10, 11}, rope.NeoX, 1)}, compare.Options{MaxULP: 1, ATol: -1}); err != nil || rep.Failing != 0 {
		t.Errorf("the naive rotation at the right positions: %+v %v", rep, err)
	}
	if _, err := ExplainTHD(THDCase{}, compare.Options{}); err == nil {
		t.Error("the zero THDCase: no error")
	}
}
