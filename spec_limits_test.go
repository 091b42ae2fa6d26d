package rotary

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/tensor"
)

// TestHugeCacheRefused: cache sizes computed from user input never wrap. Each spec asks for a
// cache whose element count overflows int (or comes close); New and CosSinCache refuse it with
// an error instead of allocating a wrapped size or panicking in a worker goroutine.
func TestHugeCacheRefused(t *testing.T) {
	base := Spec{HeadSize: 128, RotaryDim: 128, Base: 5e5, MaxPositions: 4096}
	cases := []struct {
		name string
		mod  func(*Spec)
	}{
		{"max positions 2^58+2^14", func(s *Spec) { s.MaxPositions = 1<<58 + 1<<14 }},
		{"max positions 2^56", func(s *Spec) { s.MaxPositions = 1 << 56 }},
		{"max positions MaxInt", func(s *Spec) { s.MaxPositions = math.MaxInt }},
		{"dynamic factor 2^44", func(s *Spec) { s.Scaling = Scaling{Type: ScalingDynamic, Factor: 1 << 44} }},
		{"yarn factor 2^44", func(s *Spec) { s.Scaling = Scaling{Type: ScalingYaRN, Factor: 1 << 44} }},
		{"yarn factor 1e300", func(s *Spec) { s.Scaling = Scaling{Type: ScalingYaRN, Factor: 1e300} }},
		{"dual chunk 2^56", func(s *Spec) { s.DualChunk = &DualChunk{ChunkSize: 1 << 56, LocalSize: 128} }},
	}
	for _, c := range cases {
		s := base
		c.mod(&s)
		noPanic(t, c.name, func() {
			if n := s.DefaultCacheLen(); n < 0 {
				t.Errorf("%s: DefaultCacheLen %d is negative", c.name, n)
			}
			e, err := New(s)
			if err == nil || e != nil {
				t.Errorf("%s: New built a cache of %d rows", c.name, e.CacheLen())
			} else if !strings.Contains(err.Error(), "cache") {
				t.Errorf("%s: error %q does not say the cache is the problem", c.name, err)
			}
		})
	}
	e := mustNew(t, base, WithCacheLen(0))
	for _, n := range []int{1 << 56, 1<<58 + 1<<14, 72057594037927936, 288230376151744512, math.MaxInt} {
		noPanic(t, "CosSinCache", func() {
			if out, err := e.CosSinCache(n, false); err == nil {
				t.Errorf("CosSinCache(%d): %d values, no error", n, len(out))
			}
		})
	}
	for _, n := range []int{1 << 56, math.MaxInt, -1} {
		noPanic(t, "WithCacheLen", func() {
			if _, err := New(base, WithCacheLen(n)); err == nil {
				t.Errorf("WithCacheLen(%d): no error", n)
			}
		})
	}
}

// TestSectionsOverflow: a section outside 0..RotaryDim/2 is refused before the sections are
// summed, so sections whose int sum wraps to the right total are not accepted.
func TestSectionsOverflow(t *testing.T) {
	wrap := []int{math.MaxInt, math.MaxInt, 66} // sums to 64 modulo 2^64
	s := Spec{HeadSize: 128, RotaryDim: 128, Base: 1e6, MaxPositions: 4096, MRoPE: &MRoPE{Sections: wrap}}
	err := s.Validate()
	if err == nil || !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), "mrope_section") {
		t.Errorf("Validate(%v): %v, want an ErrSpec naming mrope_section", wrap, err)
	}
	for _, secs := range [][]int{wrap, {65, 0, -1}, {math.MinInt, math.MaxInt, 65}} {
		q := tensor.FromF32(make([]float32, 128), 1, 1, 128)
		cache := tensor.FromF32(make([]float32, 4*128), 4, 128)
		pos := tensor.FromI64(make([]int64, 3), 3, 1)
		noPanic(t, "NPUMRoPE", func() {
			err := NPUMRoPE(nil, NPUMRoPEParams{Positions: pos, Query: q, CosSinCache: cache, HeadSize: 128, Sections: secs})
			if err == nil {
				t.Errorf("NPUMRoPE sections %v: no error", secs)
			} else if strings.Contains(err.Error(), "sums to") {
				t.Errorf("NPUMRoPE sections %v: %q reports a sum of out-of-range sections", secs, err)
			}
		})
	}
}

// TestNonFiniteTablesRefused: a spec whose inv_freq, attention factor or cos/sin would not be
// finite, or whose parameters lie outside their meaningful range, is refused by Validate (and so
// by New and package hf), naming the parameter.
func TestNonFiniteTablesRefused(t *testing.T) {
	good := Spec{HeadSize: 128, RotaryDim: 128, Base: 10000, MaxPositions: 4096}
	cases := []struct {
		name string
		mod  func(*Spec)
		want string
	}{
		{"theta 5e-324", func(s *Spec) { s.Base = 5e-324 }, "base"},
		{"theta 1", func(s *Spec) { s.Base = 1 }, "base"},
		{"theta 0.5", func(s *Spec) { s.Base = 0.5 }, "base"},
		{"theta +Inf", func(s *Spec) { s.Base = math.Inf(1) }, "base"},
		{"local theta 1", func(s *Spec) { s.Local = &LocalRoPE{Base: 1, Pattern: 6} }, "rope_local_base_freq"},
		{"linear factor 1e-308", func(s *Spec) { s.Scaling = Scaling{Type: ScalingLinear, Factor: 1e-308} }, "factor"},
		{"yarn attention_factor 1e308", func(s *Spec) { s.Scaling = Scaling{Type: ScalingYaRN, Factor: 4, AttentionFactor: 1e308} }, "attention"},
		{"yarn attention_factor -1", func(s *Spec) { s.Scaling = Scaling{Type: ScalingYaRN, Factor: 4, AttentionFactor: -1} }, "attention_factor"},
		{"yarn attention_factor NaN", func(s *Spec) { s.Scaling = Scaling{Type: ScalingYaRN, Factor: 4, AttentionFactor: math.NaN()} }, "attention_factor"},
		{"yarn mscale NaN", func(s *Spec) {
			s.Scaling = Scaling{Type: ScalingYaRN, Factor: 4, Mscale: math.NaN(), MscaleAllDim: 1}
		}, "mscale"},
		{"yarn mscale makes attention negative", func(s *Spec) {
			s.Scaling = Scaling{Type: ScalingYaRN, Factor: 40, Mscale: -100, MscaleAllDim: 1}
		}, "attention"},
		{"yarn beta_fast Inf", func(s *Spec) { s.Scaling = Scaling{Type: ScalingYaRN, Factor: 4, BetaFast: math.Inf(1)} }, "beta"},
		{"longrope factor -2", func(s *Spec) {
			s.Scaling = Scaling{Type: ScalingLongRoPE, Factor: -2, ShortFactor: ones(64), LongFactor: ones(64)}
		}, "factor"},
		{"longrope factor 1e-300 entries", func(s *Spec) {
			l := ones(64)
			l[0] = 1e-300
			s.Scaling = Scaling{Type: ScalingLongRoPE, Factor: 4, ShortFactor: ones(64), LongFactor: l}
		}, "inv_freq"},
		{"longrope attention_factor 1e300", func(s *Spec) {
			s.Scaling = Scaling{Type: ScalingLongRoPE, Factor: 4, AttentionFactor: 1e300, ShortFactor: ones(64), LongFactor: ones(64)}
		}, "attention"},
	}
	for _, c := range cases {
		s := good
		c.mod(&s)
		noPanic(t, c.name, func() {
			err := s.Validate()
			if err == nil {
				inv, att := s.Frequencies(-1)
				t.Errorf("%s: Validate accepted it (inv_freq[0] %v, attention %v)", c.name, inv[0], att)
				return
			}
			if !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: %q, want an ErrSpec naming %q", c.name, err, c.want)
			}
		})
	}
}

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
