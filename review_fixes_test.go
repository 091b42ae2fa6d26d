package rotary

import (
	"math"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/tensor"
)

// TestNPUMRoPEEmptyCache: a cos_sin_cache of no rows has no row for any position; NewPositions
// reads a limit of 0 as "no bound", so the empty cache must be refused before it.
func TestNPUMRoPEEmptyCache(t *testing.T) {
	q := tensor.FromF32(make([]float32, 8), 1, 8)
	noPanic(t, "NPUMRoPE with a [0, 8] cache", func() {
		err := NPUMRoPE(nil, NPUMRoPEParams{Positions: tensor.FromI64([]int64{5}, 1), Query: q,
			CosSinCache: tensor.FromF32([]float32{}, 0, 8), HeadSize: 8})
		if err == nil || !strings.Contains(err.Error(), "cos/sin cache (0 rows)") {
			t.Errorf("empty cache: %v, want an error saying the cache has no rows", err)
		}
	})
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

// TestFrequenciesOfInvalidSpecs: Frequencies of a spec Validate refuses does not panic.
func TestFrequenciesOfInvalidSpecs(t *testing.T) {
	for _, s := range []Spec{
		{},
		{RotaryDim: -2},
		{RotaryDim: 8, Scaling: Scaling{Type: ScalingLongRoPE}},
		{RotaryDim: 8, Scaling: Scaling{Type: ScalingLongRoPE, ShortFactor: []float64{1}, LongFactor: []float64{1}}},
		{RotaryDim: 2, Base: 10, Scaling: Scaling{Type: ScalingDynamic, Factor: 2}},
	} {
		noPanic(t, "Frequencies", func() {
			s.Frequencies(-1)
			s.Frequencies(1 << 30)
		})
	}
}
