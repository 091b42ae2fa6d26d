package rotary

import (
	"math"
	"slices"
	"testing"
)

// TestFillCacheExact: the angle-addition cache equals the reference cosSin bit for bit, at
// small and large positions, with and without an attention factor.
func TestFillCacheExact(t *testing.T) {
	for _, c := range []struct {
		base  float64
		d     int
		from  int
		attn  float64
		scale float64
	}{
		{10000, 128, 0, 1, 1},
		{500000, 128, 1<<20 - 3000, 1, 1},
		{1e6, 64, 100000, 1.3688879454113936, 1},
		{10000, 96, 7, 1.1902380714238083, 1},
		{10000, 128, 0, 1, 1.0 / 40}, // yarn-like small frequencies
	} {
		inv, _ := Spec{HeadSize: c.d, RotaryDim: c.d, Base: c.base}.Frequencies(-1)
		for i := range inv {
			inv[i] *= c.scale
		}
		const n = 3000
		got := make([]float32, n*c.d)
		fillCache(got, c.from, n, inv, c.attn)
		want := make([]float32, c.d)
		for r := range n {
			h := c.d / 2
			cosSin(want[:h], want[h:], float64(c.from+r), inv, c.attn)
			for j := range c.d {
				if math.Float32bits(got[r*c.d+j]) != math.Float32bits(want[j]) {
					t.Fatalf("base %g d %d position %d element %d: %v, want %v", c.base, c.d, c.from+r, j, got[r*c.d+j], want[j])
				}
			}
		}
	}
}

// TestFillCacheExactRisingFrequencies: the angle-addition fill matches cosSin bit for bit even
// when inv_freq does not fall with the pair index (LongRoPE factors below the first, YaRN with a
// factor under 1), so a cached row and a computed one never differ.
func TestFillCacheExactRisingFrequencies(t *testing.T) {
	spec := Spec{HeadSize: 8, RotaryDim: 8, Base: 10000, MaxPositions: 8192, Scaling: Scaling{
		Type: ScalingLongRoPE, Factor: 2, OriginalMaxPositions: 8192,
		ShortFactor: []float64{1, 1e-6, 1, 1}, LongFactor: []float64{1, 1, 1, 1}}}
	inv, att := spec.Frequencies(-1)
	const n = 4096
	got := make([]float32, n*8)
	fillCache(got, 0, n, inv, att)
	want := make([]float32, 8)
	for r := range n {
		cosSin(want[:4], want[4:], float64(r), inv, att)
		for j := range 8 {
			if math.Float32bits(got[r*8+j]) != math.Float32bits(want[j]) {
				t.Fatalf("position %d element %d: %v, want %v", r, j, got[r*8+j], want[j])
			}
		}
	}
}

// TestCosSinCacheAt: any range of rows, inside the built table, across its end and past it,
// equals the same rows of CosSinCache; bad arguments are refused without panicking.
func TestCosSinCacheAt(t *testing.T) {
	spec := Spec{HeadSize: 64, RotaryDim: 64, Base: 10000, MaxPositions: 100}
	e := mustNew(t, spec, WithCacheLen(40))
	all, err := e.CosSinCache(100, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range [][2]int{{0, 40}, {10, 20}, {35, 10}, {40, 60}, {70, 30}, {99, 1}, {50, 0}} {
		dst := make([]float32, r[1]*64)
		if err := e.CosSinCacheAt(r[0], dst, false); err != nil {
			t.Fatalf("rows %v: %v", r, err)
		}
		if !slices.Equal(dst, all[r[0]*64:(r[0]+r[1])*64]) {
			t.Errorf("rows %d..%d differ from CosSinCache's", r[0], r[0]+r[1])
		}
	}
	for name, err := range map[string]error{
		"negative first": e.CosSinCacheAt(-1, make([]float32, 64), false),
		"ragged dst":     e.CosSinCacheAt(0, make([]float32, 65), false),
		"overflow":       e.CosSinCacheAt(math.MaxInt, make([]float32, 128), false),
		"long":           e.CosSinCacheAt(0, make([]float32, 64), true),
		"nil embedding":  (*Embedding)(nil).CosSinCacheAt(0, make([]float32, 64), false),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
