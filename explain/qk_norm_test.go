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

// TestExplainQKNorm: the exact qk_rmsnorm_rope output is rotary_embedding of the normalized
// heads (nothing to explain), and candidates written naively (float64 norm and rotation) with a
// mistake in the fusion are named first.
func TestExplainQKNorm(t *testing.T) {
	const T, hq, hk, D = 5, 4, 2, 64
	spec := rope.Spec{HeadSize: D, RotaryDim: D, Base: 1e6, MaxPositions: 40960}
	rng := rand.New(rand.NewPCG(11, 12))
	fill := func(n int, scale float64) tensor.Tensor {
		x := tensor.Zeros(tensor.BF16, n)
		for i := range n {
			x.SetFloat32(i, float32(scale*rng.NormFloat64()))
		}
		return x
	}
	q, k := fill(T*hq*D, 3), fill(T*hk*D, 3)
	q.Shape, k.Shape = []int{T, hq, D}, []int{T, hk, D}
	qw, kw := fill(D, 0.3), fill(D, 0.3)
	for i := range D {
		qw.SetFloat32(i, 1+qw.Float32At(i))
		kw.SetFloat32(i, 1+kw.Float32At(i))
	}
	pos := []int64{50, 51, 52, 53, 54}
	const eps = 1e-6
	emb, err := rotary.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	wq, wk := q.Clone(), k.Clone()
	if err := emb.ForwardQKNorm(tensor.FromI64(pos, T), wq, wk, qw, kw, eps); err != nil {
		t.Fatal(err)
	}
	// norm and rot: float64, rounded to BF16 where the op's definition rounds.
	r16 := func(v float64) float32 { return tensor.Float32FromBF16(tensor.BF16FromFloat32(float32(v))) }
	norm := func(x, w tensor.Tensor, weight bool) tensor.Tensor {
		out := x.Clone()
		for b := 0; b < x.Len(); b += D {
			ss := 0.0
			for j := range D {
				ss += float64(x.Float32At(b+j)) * float64(x.Float32At(b+j))
			}
			r := 1 / math.Sqrt(ss/D+eps)
			for j := range D {
				v := float64(r16(float64(x.Float32At(b+j)) * r))
				if weight {
					v = float64(r16(float64(w.Float32At(j)) * v))
				}
				out.SetFloat32(b+j, float32(v))
			}
		}
		return out
	}
	inv, _ := spec.Frequencies(-1)
	rot := func(x tensor.Tensor, shift int64) tensor.Tensor {
		out := x.Clone()
		for b := 0; b < x.Len(); b += D {
			p := float64(pos[b/(x.Len()/T)] + shift)
			for i := range D / 2 {
				c, s := math.Cos(p*inv[i]), math.Sin(p*inv[i])
				x1, x2 := float64(x.Float32At(b+i)), float64(x.Float32At(b+i+D/2))
				out.SetFloat32(b+i, float32(x1*c-x2*s))
				out.SetFloat32(b+i+D/2, float32(x2*c+x1*s))
			}
		}
		return out
	}
	explainQK := func(gq, gk tensor.Tensor) Report {
		rep, err := ExplainQKNorm(QKNormCase{
			Case: Case{Spec: spec, Positions: tensor.FromI64(pos, T), Query: q, Key: k,
				Want: map[string]tensor.Tensor{"query": wq, "key": wk}, Got: map[string]tensor.Tensor{"query": gq, "key": gk}},
			QWeight: qw, KWeight: kw, Epsilon: eps}, compare.Options{MaxULP: 1, ATol: -1})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	if rep := explainQK(wq, wk); rep.Failing != 0 {
		t.Fatalf("the exact output fails against itself: %+v", rep)
	}
	for _, c := range []struct {
		want   string
		gq, gk tensor.Tensor
	}{
		{"norm_skipped", rot(q, 0), rot(k, 0)},
		{"norm_after_rotation", norm(rot(q, 0), qw, true), norm(rot(k, 0), kw, true)},
		{"norm_weight_skipped", rot(norm(q, qw, false), 0), rot(norm(k, kw, false), 0)},
		{"positions_plus_one", rot(norm(q, qw, true), 1), rot(norm(k, kw, true), 1)},
	} {
		rep := explainQK(c.gq, c.gk)
		if rep.Failing == 0 || len(rep.Findings) == 0 || rep.Findings[0].Mistake != c.want || !rep.Findings[0].Reproduces() {
			t.Errorf("%s: %+v", c.want, rep)
		}
	}
	if _, err := ExplainQKNorm(QKNormCase{Case: Case{Spec: spec, Positions: tensor.FromI64(pos, T), Query: q,
		Want: map[string]tensor.Tensor{"query": wq}, Got: map[string]tensor.Tensor{"query": wq}}, Epsilon: eps}, compare.Options{}); err == nil {
		t.Error("no QWeight: no error")
	}
}
