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

// TestExplainVision: vision_rope_2d candidates written naively from the documented formula
// (pair i < D/4 by coordinate 0 · theta^(−4i/D), pair D/4 + k by coordinate 1 · theta^(−4k/D),
// or Pixtral's theta^(−(4k+2)/D)) with one mistake each are named first.
func TestExplainVision(t *testing.T) {
	const T, H, D = 6, 2, 16
	rng := rand.New(rand.NewPCG(17, 18))
	q := tensor.Zeros(tensor.BF16, T, H, D)
	for i := range q.Len() {
		q.SetFloat32(i, float32(rng.NormFloat64()))
	}
	pos := []int64{1, 1, 2, 3, 5, 8, 2, 7, 1, 8, 2, 8} // rows h, then w
	params := rotary.VisionRoPE2DParams{Positions: tensor.FromI64(pos, 2, T), Query: q, HeadSize: D, Theta: 100}
	want := q.Clone()
	exact := params
	exact.Query = want
	if err := rotary.VisionRoPE2D(nil, exact); err != nil {
		t.Fatal(err)
	}
	type mistake struct {
		style         rope.Style
		swap, pixtral bool
		shift         int64
		theta         float64
	}
	naive := func(m mistake) tensor.Tensor {
		out := q.Clone()
		theta := params.Theta
		if m.theta != 0 {
			theta = m.theta
		}
		for row := 0; row < q.Len(); row += D {
			t := row / (H * D)
			h, w := pos[t]+m.shift, pos[T+t]+m.shift
			if m.swap {
				h, w = w, h
			}
			for i := range D / 2 {
				var angle float64
				if i < D/4 {
					angle = float64(h) * math.Pow(theta, -4*float64(i)/D)
				} else if k := i - D/4; m.pixtral {
					angle = float64(w) * math.Pow(theta, -(4*float64(k)+2)/D)
				} else {
					angle = float64(w) * math.Pow(theta, -4*float64(k)/D)
				}
				j, l := i, i+D/2
				if m.style == rope.GPTJ {
					j, l = 2*i, 2*i+1
				}
				c, s := math.Cos(angle), math.Sin(angle)
				a, b := float64(q.Float32At(row+j)), float64(q.Float32At(row+l))
				out.SetFloat32(row+j, float32(a*c-b*s))
				out.SetFloat32(row+l, float32(b*c+a*s))
			}
		}
		return out
	}
	for _, c := range []struct {
		want string
		m    mistake
	}{
		{"coordinates_swapped", mistake{swap: true}},
		{"vision_layout", mistake{pixtral: true}},
		{"pairing", mistake{style: rope.GPTJ}},
		{"positions_plus_one", mistake{shift: 1}},
		{"vision_theta_default", mistake{theta: 10000}},
	} {
		rep, err := ExplainVision(VisionCase{Params: params, Want: map[string]tensor.Tensor{"query": want}, Got: map[string]tensor.Tensor{"query": naive(c.m)}}, compare.Options{MaxULP: 1, ATol: -1})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Failing == 0 || len(rep.Findings) == 0 || rep.Findings[0].Mistake != c.want || !rep.Findings[0].Reproduces() {
			t.Errorf("%s: %+v", c.want, rep)
		}
	}
	if rep, err := ExplainVision(VisionCase{Params: params, Want: map[string]tensor.Tensor{"query": want}, Got: map[string]tensor.Tensor{"query": naive(mistake{})}}, compare.Options{MaxULP: 1, ATol: -1}); err != nil || rep.Failing != 0 {
		t.Errorf("the naive formula itself: %+v %v", rep, err)
	}
}
