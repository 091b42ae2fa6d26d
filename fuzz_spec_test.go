package rotary

import (
	"io"
	"math"
	"testing"

	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/tensor"
)

var fuzzScalings = []ScalingType{"", ScalingDefault, ScalingLinear, ScalingDynamic, ScalingNTKAlpha, ScalingYaRN, ScalingLlama3, ScalingLongRoPE, rope.ScalingNTK, "su", ScalingProportional}

// FuzzNew drives New with arbitrary specs: it never panics, and a spec it accepts has finite
// inv_freq, attention factor, cache and rotations, at small positions and at the largest int64,
// and writes its cos/sin table and full-width streams.
func FuzzNew(f *testing.F) {
	f.Add(128, 128, 500000.0, uint8(0), 8192, uint8(0), 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0, 0, 0, 0, false, 0, 0, 0.0, uint8(3))
	f.Add(128, 64, 10000.0, uint8(1), 4096, uint8(5), 4.0, 0.0, 32.0, 1.0, 0.0, 1.0, 1.0, 4096, 16, 24, 24, false, 0, 0, 0.0, uint8(9))
	f.Add(128, 128, 5e-324, uint8(0), 4096, uint8(2), 1e-308, 0.0, 0.0, 0.0, 1e308, 0.0, 0.0, 0, 0, 0, 0, false, 0, 0, 0.0, uint8(1))
	f.Add(128, 128, 1e6, uint8(0), 1<<56, uint8(3), float64(1<<44), 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0, math.MaxInt, math.MaxInt, 66, true, 1<<56, 7, 10000.0, uint8(6))
	f.Add(96, 96, 10000.0, uint8(0), 131072, uint8(6), 8.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 8192, 0, 0, 0, false, 0, 0, 0.0, uint8(4))
	f.Add(96, 96, 10000.0, uint8(0), 131072, uint8(7), 32.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 4096, 0, 0, 0, false, 0, 0, 0.0, uint8(200))
	f.Fuzz(func(t *testing.T, headSize, rotaryDim int, base float64, style uint8, maxPos int, scaling uint8,
		factor, alpha, betaFast, betaSlow, attn, mscale, mscaleAll float64, origMax int,
		s0, s1, s2 int, interleaved bool, chunk, local int, localBase float64, extra uint8) {
		sc := Scaling{
			Type: fuzzScalings[int(scaling)%len(fuzzScalings)], Factor: factor, Alpha: alpha, OriginalMaxPositions: origMax,
			Dynamic: DynamicLength(extra % 4), MaxTrainedPositions: local, BetaFast: betaFast, BetaSlow: betaSlow, NoTruncate: extra&2 != 0,
			AttentionFactor: attn, Mscale: mscale, MscaleAllDim: mscaleAll, LowFreqFactor: alpha, HighFreqFactor: betaFast, NTKMixed: extra&1 != 0, MixedB: betaSlow,
			RotatedPairs: s0,
		}
		if sc.Type == ScalingLongRoPE && rotaryDim > 0 && rotaryDim <= 1<<12 {
			sc.ShortFactor, sc.LongFactor = make([]float64, rotaryDim/2), make([]float64, rotaryDim/2)
			for i := range sc.ShortFactor {
				sc.ShortFactor[i], sc.LongFactor[i] = 1+float64(i%3)*betaSlow, factor*float64(1+i%int(extra|1))
			}
		}
		s := Spec{HeadSize: headSize, RotaryDim: rotaryDim, Base: base, Style: Style(style), MaxPositions: maxPos, Scaling: sc}
		if extra&4 != 0 {
			s.MRoPE = &MRoPE{Sections: []int{s0, s1, s2}, Interleaved: interleaved}
		}
		if extra&8 != 0 {
			s.DualChunk = &DualChunk{ChunkSize: chunk, LocalSize: local}
		}
		if extra&16 != 0 {
			s.Local = &LocalRoPE{Base: localBase, Pattern: int(extra >> 5)}
			if extra&1 != 0 {
				// A per-type rule and NoPE layers, from the same numbers.
				s.Local.Types = map[string]LayerRoPE{"full_attention": {NoRoPE: extra&2 != 0, Base: alpha, Scaling: sc, RotaryDim: s2, HeadSize: s1}}
				s.Local.NoRoPE = []bool{interleaved, false, true}
			}
		}
		_ = s.DefaultCacheLen()
		// A small cache keeps the fuzzer's memory bounded; rows past it take the per-call path.
		e, err := New(s, WithCacheLen(int(extra%8)))
		if s.Local != nil {
			if err == nil {
				t.Fatalf("New accepted %+v, whose layers differ (local %+v)", s, s.Local)
			}
			fuzzLayers(t, s)
			return
		}
		if err != nil {
			return
		}
		finite := func(what string, v ...float64) {
			for i, x := range v {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					t.Fatalf("accepted %+v, but %s[%d] = %v", s, what, i, x)
				}
			}
		}
		finite("inv_freq", e.InvFreq()...)
		finite("long inv_freq", e.LongInvFreq()...)
		finite("attention factor", e.AttentionFactor())
		for _, p := range []int{-1, 0, maxPos, origMax, math.MaxInt} {
			inv, att := s.Frequencies(p)
			finite("per-call inv_freq", inv...)
			finite("per-call attention factor", att)
		}
		cache, err := e.CosSinCache(int(extra%8)+2, false)
		if err != nil {
			t.Fatalf("CosSinCache of an accepted spec: %v", err)
		}
		for _, v := range cache {
			finite("cos_sin_cache", float64(v))
		}
		if err := e.WriteCosSinCache(io.Discard, int(extra%8)+2, false); err != nil {
			t.Fatalf("WriteCosSinCache of an accepted spec: %v", err)
		}
		if s.DualChunk == nil {
			for _, w := range []func() (*FullWidthStream, error){
				func() (*FullWidthStream, error) {
					return e.StreamFullWidthRange(int(extra%8), Style(style%2), tensor.BF16)
				},
				func() (*FullWidthStream, error) {
					return e.StreamFullWidth(tensor.FromI64([]int64{0, 1 << 40, math.MaxInt64}, 3), Style(style%2), tensor.F32)
				},
			} {
				fw, err := w()
				if err == nil {
					err = fw.WriteSin(io.Discard)
				}
				if err != nil {
					t.Fatalf("a FullWidthStream of an accepted spec: %v", err)
				}
			}
		}
		if s.MRoPE != nil || s.DualChunk != nil || s.HeadSize > 1<<10 {
			return
		}
		q := make([]float32, s.HeadSize)
		for i := range q {
			q[i] = 1
		}
		for _, p := range []int64{0, 1, 1 << 40, math.MaxInt64} {
			if err := e.Forward(tensor.FromI64([]int64{p}, 1), tensor.FromF32(q, 1, 1, s.HeadSize), tensor.Tensor{}); err != nil {
				t.Fatalf("Forward at %d: %v", p, err)
			}
			for i := range q {
				finite("rotated query", float64(q[i]))
				q[i] = 1
			}
		}
	})
}

// fuzzLayers: a per-layer spec that NewLayers accepts gives every layer an accepted spec, and
// its gather and apply run on every layer.
func fuzzLayers(t *testing.T, s Spec) {
	n := s.NumLayers()
	if n == 0 {
		n = 4
	}
	ls, err := NewLayers(s, n, WithCacheLen(2))
	if err != nil {
		return
	}
	for l := range n {
		// Every layer of an accepted model is an accepted spec.
		e, err := ls.Layer(l)
		if err != nil {
			t.Fatalf("accepted %+v (local %+v), but Layer(%d): %v", s, s.Local, l, err)
		}
		if _, err := New(e.Spec(), WithCacheLen(2)); err != nil {
			t.Fatalf("accepted %+v (local %+v), but layer %d's spec %+v is refused: %v", s, s.Local, l, e.Spec(), err)
		}
	}
	if s.MRoPE != nil || s.DualChunk != nil || s.HeadSize > 1<<10 {
		return
	}
	var cs LayersCosSin
	if err := ls.Gather(tensor.FromI64([]int64{0, 1 << 40}, 2), &cs); err != nil {
		t.Fatalf("Gather: %v", err)
	}
	for l := range n {
		e, _ := ls.Layer(l)
		q := make([]float32, 2*e.Spec().HeadSize)
		if err := cs.Apply(l, tensor.FromF32(q, 2, 1, e.Spec().HeadSize), tensor.Tensor{}); err != nil {
			t.Fatalf("Apply layer %d: %v", l, err)
		}
	}
}
