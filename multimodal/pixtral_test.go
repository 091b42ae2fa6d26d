package multimodal

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/rope"
)

// TestPixtralVisionHand: head_dim 8, theta 10000: freqs 1, 0.1, 0.01, 0.001. Patch (row 1,
// column 2) turns its pairs by 1·freqs_0 = 1, 1·freqs_2 = 0.01 (rows on the even
// frequencies), 2·freqs_1 = 0.2, 2·freqs_3 = 0.002 (columns on the odd ones); NeoX repeats
// them: cos(1), cos(0.01), cos(0.2), cos(0.002) twice.
func TestPixtralVisionHand(t *testing.T) {
	cs, err := PixtralVisionCosSin([][2]int64{{2, 3}}, 4, 8, 0, rope.NeoX)
	if err != nil {
		t.Fatal(err)
	}
	if cs.Tokens != 6 || cs.Dim != 8 {
		t.Fatalf("table %d×%d, want 6×8", cs.Tokens, cs.Dim)
	}
	k := 1*3 + 2 // row-major: (1, 2) is the sixth patch
	for i, a := range []float64{1, 0.01, 0.2, 0.002, 1, 0.01, 0.2, 0.002} {
		if c, s := cs.Cos[k*8+i], cs.Sin[k*8+i]; c != float32(math.Cos(a)) || s != float32(math.Sin(a)) {
			t.Errorf("element %d: cos %v sin %v, want the angle %v's", i, c, s, a)
		}
	}
}

// TestPixtralVisionTable: against PixtralRotaryEmbedding's table built as HF builds it
// (modeling_pixtral.py compute_default_rope_parameters: freqs_h = outer(h, freqs[::2]) repeated
// along the columns, freqs_w = outer(w, freqs[1::2]) repeated along the rows, concatenated and
// reshaped to [side², dim/2], then cat(inv_freq, inv_freq)), indexed by
// position_ids_in_meshgrid's row·max_width + column, for two images of a 1024/16 tower
// (head_dim 64, theta 10000). Mistral's layout (GPT-J) takes the same angles for pairs
// (2k, 2k+1).
func TestPixtralVisionTable(t *testing.T) {
	const side, dim, theta = 64, 64, 10000.0
	grids := [][2]int64{{3, 5}, {64, 2}}
	freqs := make([]float64, dim/2)
	for j := range freqs {
		freqs[j] = 1 / math.Pow(theta, float64(2*j)/dim)
	}
	table := make([][]float64, side*side) // [row·side + column][dim]
	for r := range side {
		for c := range side {
			var row []float64
			for j := 0; j < dim/2; j += 2 {
				row = append(row, float64(r)*freqs[j])
			}
			for j := 1; j < dim/2; j += 2 {
				row = append(row, float64(c)*freqs[j])
			}
			table[r*side+c] = append(row, row...)
		}
	}
	var ids []int
	for _, g := range grids {
		for r := range int(g[0]) {
			for c := range int(g[1]) {
				ids = append(ids, r*side+c)
			}
		}
	}
	for _, style := range []rope.Style{rope.NeoX, rope.GPTJ} {
		cs, err := PixtralVisionCosSin(grids, side, dim, theta, style)
		if err != nil {
			t.Fatal(err)
		}
		if cs.Tokens != len(ids) {
			t.Fatalf("%d tokens, want %d", cs.Tokens, len(ids))
		}
		for k, id := range ids {
			for e := range dim {
				a := table[id][e] // NeoX: element e takes angle e mod dim/2
				if style == rope.GPTJ {
					a = table[id][e/2]
				}
				if c := cs.Cos[k*dim+e]; c != float32(math.Cos(a)) {
					t.Fatalf("%v token %d element %d: cos %v, want %v", style, k, e, c, float32(math.Cos(a)))
				}
				if s := cs.Sin[k*dim+e]; s != float32(math.Sin(a)) {
					t.Fatalf("%v token %d element %d: sin %v, want %v", style, k, e, s, float32(math.Sin(a)))
				}
			}
		}
	}
}

func TestPixtralVisionErrors(t *testing.T) {
	pos, err := PixtralVisionPositions([][2]int64{{2, 2}}, 4)
	if err != nil || !reflect.DeepEqual(pos, [][2]int64{{0, 0}, {0, 1}, {1, 0}, {1, 1}}) {
		t.Errorf("positions %v, %v", pos, err)
	}
	for _, c := range []struct {
		grids         [][2]int64
		side, headDim int
		want          string
	}{
		{[][2]int64{{5, 1}}, 4, 8, "want 1..4 patches a side"},
		{[][2]int64{{0, 1}}, 4, 8, "want 1..4"},
		{[][2]int64{{1, 1}}, 0, 8, "max patches per side 0"},
		{[][2]int64{{1, 1}}, 4, 6, "head dim 6"},
	} {
		if _, err := PixtralVisionCosSin(c.grids, c.side, c.headDim, 0, rope.NeoX); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v side %d dim %d: %v, want %q", c.grids, c.side, c.headDim, err, c.want)
		}
	}
	if _, err := PixtralVisionCosSin([][2]int64{{1, 1}}, 4, 8, 0, rope.Style(9)); err == nil {
		t.Error("style 9 accepted")
	}
}
