package rotary_test

import (
	"math"
	"strings"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/multimodal"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// TestVisionRoPE2D: op vision_rope_2d on every backend gives the rotation of the multimodal
// package's tables (Qwen2VisionCosSin: multimodal's evaluation of HF's rot_pos_emb;
// Llama4VisionCosSin: of Llama4VisionRotaryEmbedding, CLS included; PixtralVisionCosSin: of
// PixtralRotaryEmbedding), evaluated here in float64 from those float32 tables.
func TestVisionRoPE2D(t *testing.T) {
	type tower struct {
		name   string
		cs     multimodal.VisionCosSin
		pos    [2][]int64
		layout ops.VisionLayout
	}
	var towers []tower
	{
		grid := [][3]int64{{1, 4, 6}}
		cs, err := multimodal.Qwen2VisionCosSin(grid, 2, 80, 0)
		if err != nil {
			t.Fatal(err)
		}
		hw, _ := multimodal.Qwen2VisionPositions(grid, 2)
		towers = append(towers, tower{"qwen2-vl", cs, axisRows(hw), ops.VisionSplit})
	}
	{
		cs, err := multimodal.Llama4VisionCosSin(56, 14, 88, 0) // a 4×4 tile and the CLS token
		if err != nil {
			t.Fatal(err)
		}
		var p [2][]int64
		for k := range 16 {
			p[0], p[1] = append(p[0], int64(k%4+1)), append(p[1], int64(k/4+1))
		}
		p[0], p[1] = append(p[0], 0), append(p[1], 0)
		towers = append(towers, tower{"llama4", cs, p, ops.VisionSplit})
	}
	{
		grid := [][2]int64{{3, 5}}
		cs, err := multimodal.PixtralVisionCosSin(grid, 64, 64, 0, rotary.NeoX)
		if err != nil {
			t.Fatal(err)
		}
		rc, _ := multimodal.PixtralVisionPositions(grid, 64)
		towers = append(towers, tower{"pixtral", cs, axisRows(rc), ops.VisionPixtral})
	}
	for _, tw := range towers {
		T, D := tw.cs.Tokens, tw.cs.Dim
		x := make([]float32, T*2*D)
		for i := range x {
			x[i] = float32(math.Cos(float64(i)*1.3) * 0.8)
		}
		// The reference: each pair by its table's cos/sin, in float64.
		want := make([]float64, len(x))
		for k := range T {
			for h := range 2 {
				row := (k*2 + h) * D
				for i := range D / 2 {
					a, b, e := row+i, row+i+D/2, k*D+i
					if tw.cs.Style == rotary.GPTJ {
						a, b, e = row+2*i, row+2*i+1, k*D+2*i
					}
					c, s := float64(tw.cs.Cos[e]), float64(tw.cs.Sin[e])
					want[a] = float64(x[a])*c - float64(x[b])*s
					want[b] = float64(x[b])*c + float64(x[a])*s
				}
			}
		}
		pos := tensor.FromI64(append(append([]int64(nil), tw.pos[0]...), tw.pos[1]...), 2, T)
		for _, backend := range ops.Backends() {
			d, err := ops.NewDispatcher("", backend)
			if err != nil {
				t.Fatal(err)
			}
			q := tensor.FromF32(append([]float32(nil), x...), T, 2, D)
			if err := rotary.VisionRoPE2D(d, rotary.VisionRoPE2DParams{Positions: pos, Query: q, HeadSize: D, Style: tw.cs.Style, Layout: tw.layout}); err != nil {
				t.Fatalf("%s %s: %v", tw.name, backend, err)
			}
			worst := 0.0
			for i, w := range want {
				worst = max(worst, math.Abs(float64(q.F32[i])-w))
			}
			// The same float32 cos/sin, rotated in float32: within 2^-22 of values below 1.2.
			if worst > 1.0/(1<<21) {
				t.Errorf("%s %s: largest difference %g", tw.name, backend, worst)
			}
		}
	}
}

func TestVisionRoPE2DBadInput(t *testing.T) {
	q := tensor.FromF32(make([]float32, 3*8), 3, 1, 8)
	pos := tensor.FromI64(make([]int64, 6), 2, 3)
	for _, c := range []struct {
		name string
		p    rotary.VisionRoPE2DParams
		want string
	}{
		{"head size", rotary.VisionRoPE2DParams{Positions: pos, Query: q, HeadSize: 6}, "head_size 6"},
		{"theta", rotary.VisionRoPE2DParams{Positions: pos, Query: q, HeadSize: 8, Theta: 0.5}, "theta 0.5"},
		{"layout", rotary.VisionRoPE2DParams{Positions: pos, Query: q, HeadSize: 8, Layout: 7}, "layout"},
		{"positions rank", rotary.VisionRoPE2DParams{Positions: tensor.FromI64(make([]int64, 3), 3), Query: q, HeadSize: 8}, "want [2, tokens]"},
		{"positions rows", rotary.VisionRoPE2DParams{Positions: tensor.FromI64(make([]int64, 9), 3, 3), Query: q, HeadSize: 8}, "positions"},
		{"negative", rotary.VisionRoPE2DParams{Positions: tensor.FromI64([]int64{0, 0, -1, 0, 0, 0}, 2, 3), Query: q, HeadSize: 8}, "negative"},
		{"no query", rotary.VisionRoPE2DParams{Positions: pos, HeadSize: 8}, "query: missing"},
	} {
		before := append([]float32(nil), q.F32...)
		err := rotary.VisionRoPE2D(nil, c.p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
		for i := range before {
			if q.F32[i] != before[i] {
				t.Fatalf("%s: query written on error", c.name)
			}
		}
	}
}

// axisRows is per-token (first, second) coordinates as the op's [2, T] positions: row 0 the
// first coordinate of every token, row 1 the second.
func axisRows(coords [][2]int64) [2][]int64 {
	var p [2][]int64
	for _, c := range coords {
		p[0], p[1] = append(p[0], c[0]), append(p[1], c[1])
	}
	return p
}
