package rotary

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

var floatTypes = []tensor.DType{tensor.F32, tensor.F16, tensor.BF16}

// layouts cycles through the view shapes Forward accepts: contiguous [T,H,D], [T,H·D] with
// padded (strided) tokens, and [T,H,D] with padded heads and tokens, all with guards around.
func layoutFor(k, tokens, heads, headSize int) layout {
	switch k % 3 {
	case 0:
		return layout{tokens: tokens, heads: heads, headSize: headSize}
	case 1:
		return layout{tokens: tokens, heads: heads, headSize: headSize, flat: true, lead: 5, tail: 7, tokPad: 9}
	}
	return layout{tokens: tokens, heads: heads, headSize: headSize, lead: 3, tail: 4, tokPad: 11, headPad: 6}
}

// rotateAndCheck runs Forward on random query (qHeads) and key (kHeads, 0 for none) views and
// checks them against the float64 evaluation with angle theta(tok, i) and attention att.
func rotateAndCheck(t *testing.T, name string, e *Embedding, dt tensor.DType, qLay, kLay layout, positions tensor.Tensor, theta func(tok, i int) float64, att float64, rng *rand.Rand) (q, k *view, st accStats) {
	t.Helper()
	s := e.Spec()
	q = newView(dt, qLay, rng)
	q0 := q.clone()
	var key tensor.Tensor
	var k0 *view
	if kLay.heads > 0 {
		k = newView(dt, kLay, rng)
		k0 = k.clone()
		key = k.t
	}
	if err := e.Forward(positions, q.t, key); err != nil {
		t.Fatalf("%s: Forward: %v", name, err)
	}
	st = expectRotated(t, name+" query", q0, q, s.RotaryDim, s.Style == GPTJ, theta, att)
	if k != nil {
		st2 := expectRotated(t, name+" key", k0, k, s.RotaryDim, s.Style == GPTJ, theta, att)
		st.strict += st2.strict
		st.loose += st2.loose
		st.pairs += st2.pairs
	}
	return q, k, st
}

func randPositions(rng *rand.Rand, n int, limit int64) []int64 {
	p := make([]int64, n)
	for i := range p {
		p[i] = rng.Int64N(limit)
	}
	return p
}

func plainTheta(pos []int64, inv []float64) func(tok, i int) float64 {
	return func(tok, i int) float64 { return float64(pos[tok]) * inv[i] }
}

// dispatchers returns one dispatcher per registered backend (native first), so that tests can
// run every path of Forward on each.
func dispatchers(t testing.TB) []*ops.Dispatcher {
	t.Helper()
	var ds []*ops.Dispatcher
	names := ops.Backends()
	slices.SortFunc(names, func(a, b string) int {
		switch {
		case a == ops.Native:
			return -1
		case b == ops.Native:
			return 1
		}
		return strings.Compare(a, b)
	})
	for _, b := range names {
		d, err := ops.NewDispatcher("all", b)
		if err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
	}
	if len(ds) == 0 || ds[0].Backend() != ops.Native {
		t.Fatalf("backends %v: native missing", names)
	}
	return ds
}

// TestForwardAccuracy: every dtype, both styles, the head sizes real models use, full and
// partial rotary dims, GQA (8 query heads, 2 key heads), contiguous, flat and strided views with
// guards, against the float64 evaluation, on every backend; every backend gives native's bits.
func TestForwardAccuracy(t *testing.T) {
	var total accStats
	k := 0
	for _, disp := range dispatchers(t) {
		rng := rand.New(rand.NewPCG(10, 11)) // the same inputs for every backend
		for _, hs := range []int{64, 80, 96, 112, 128, 192, 256} {
			for _, rd := range []int{hs, (hs / 4) * 2} {
				for _, style := range []Style{NeoX, GPTJ} {
					spec := Spec{HeadSize: hs, RotaryDim: rd, Base: 10000, Style: style, MaxPositions: 1024}
					e := mustNew(t, spec, WithDispatcher(disp))
					inv, att := spec.Frequencies(-1)
					for _, dt := range floatTypes {
						k++
						pos := randPositions(rng, 4, 1024)
						name := fmt.Sprintf("%s %v %v head %d rotary %d", disp.Backend(), dt, style, hs, rd)
						_, _, st := rotateAndCheck(t, name, e, dt, layoutFor(k, 4, 8, hs), layoutFor(k+1, 4, 2, hs),
							posTensor(pos, k%2 == 0), plainTheta(pos, inv), att, rng)
						total.strict += st.strict
						total.loose += st.loose
						total.pairs += st.pairs
					}
				}
			}
		}
	}
	t.Logf("%d pairs; %d elements checked to 1 ULP / 2^-20, %d under cancellation checked in absolute terms", total.pairs, total.strict, total.loose)
	if total.loose*100 > total.strict {
		t.Errorf("too many elements (%d of %d) fell back to the absolute check", total.loose, total.strict+total.loose)
	}
}

// TestBackendsMatchNative: every backend's Forward and Gather+Apply give native's bits, on the
// cached, computed and MRoPE paths, for token counts from decode (1) to calls large enough to
// split across threads, with strided views and guards.
func TestBackendsMatchNative(t *testing.T) {
	ds := dispatchers(t)
	if len(ds) == 1 {
		t.Skip("only the native backend is registered")
	}
	mr := &MRoPE{Sections: []int{24, 20, 20}, Interleaved: true}
	specs := []Spec{
		{HeadSize: 128, RotaryDim: 128, Base: 500000, MaxPositions: 4096},
		{HeadSize: 80, RotaryDim: 40, Base: 10000, Style: GPTJ, MaxPositions: 4096},
		{HeadSize: 96, RotaryDim: 96, Base: 10000, MaxPositions: 4096, Scaling: Scaling{Type: ScalingYaRN, Factor: 4, OriginalMaxPositions: 1024}},
		{HeadSize: 128, RotaryDim: 128, Base: 1e6, MaxPositions: 4096, MRoPE: mr},
		{HeadSize: 128, RotaryDim: 128, Base: 1e6, Style: GPTJ, MaxPositions: 4096, MRoPE: &MRoPE{Sections: []int{16, 24, 24}}},
		{HeadSize: 256, RotaryDim: 256, Base: 10000, MaxPositions: 4096},
		{HeadSize: 64, RotaryDim: 2, Base: 10000, MaxPositions: 4096},
	}
	rng := rand.New(rand.NewPCG(70, 71))
	for si, spec := range specs {
		for _, cacheLen := range []int{4096, 8} {
			embs := make([]*Embedding, len(ds))
			for i, d := range ds {
				embs[i] = mustNew(t, spec, WithDispatcher(d), WithCacheLen(cacheLen))
			}
			for _, dt := range floatTypes {
				for _, tokens := range []int{1, 3, 17, 64} {
					qLay := layoutFor(si+tokens, tokens, 32, spec.HeadSize)
					kLay := layoutFor(si+tokens+1, tokens, 8, spec.HeadSize)
					q, k := newView(dt, qLay, rng), newView(dt, kLay, rng)
					var pos tensor.Tensor
					if spec.MRoPE != nil && tokens%2 == 1 {
						pos = tensor.FromI64(randPositions(rng, 3*tokens, 4096), 3, tokens)
					} else {
						pos = posTensor(randPositions(rng, tokens, 4096), tokens%2 == 0)
					}
					var wantQ, wantK *view
					for i, e := range embs {
						for _, gather := range []bool{false, true} {
							qq, kk := q.clone(), k.clone()
							var err error
							if gather {
								var cs CosSin
								if err = e.Gather(pos, &cs); err == nil {
									err = cs.Apply(qq.t, kk.t)
								}
							} else {
								err = e.Forward(pos, qq.t, kk.t)
							}
							if err != nil {
								t.Fatal(err)
							}
							if i == 0 && !gather {
								wantQ, wantK = qq, kk
								continue
							}
							name := fmt.Sprintf("%s spec %d cache %d %v %d tokens gather=%v", ds[i].Backend(), si, cacheLen, dt, tokens, gather)
							if j := sameBits(qq, wantQ); j >= 0 {
								t.Errorf("%s: query element %d: %#x, native %#x", name, j, qq.raw(j), wantQ.raw(j))
							}
							if j := sameBits(kk, wantK); j >= 0 {
								t.Errorf("%s: key element %d: %#x, native %#x", name, j, kk.raw(j), wantK.raw(j))
							}
						}
					}
				}
			}
		}
	}
}

// TestForwardVariantsAccuracy: each scaling variant's Forward against the float64 evaluation of
// its own formulas, on the cached path and past the cache (the computed path).
func TestForwardVariantsAccuracy(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	specs := map[string]Spec{
		"linear":           {HeadSize: 64, RotaryDim: 64, Base: 10000, MaxPositions: 512, Scaling: Scaling{Type: ScalingLinear, Factor: 4}},
		"dynamic static":   {HeadSize: 64, RotaryDim: 64, Base: 10000, MaxPositions: 256, Scaling: Scaling{Type: ScalingDynamic, Factor: 2}},
		"ntk alpha":        {HeadSize: 128, RotaryDim: 128, Base: 10000, MaxPositions: 512, Scaling: Scaling{Type: ScalingNTKAlpha, Alpha: 1000}},
		"yarn s=40":        {HeadSize: 64, RotaryDim: 64, Base: 10000, Style: GPTJ, MaxPositions: 512, Scaling: Scaling{Type: ScalingYaRN, Factor: 40, OriginalMaxPositions: 16}},
		"yarn deepseek":    {HeadSize: 192, RotaryDim: 64, Base: 10000, Style: GPTJ, MaxPositions: 512, Scaling: Scaling{Type: ScalingYaRN, Factor: 40, OriginalMaxPositions: 16, Mscale: 1, MscaleAllDim: 1}},
		"yarn no truncate": {HeadSize: 64, RotaryDim: 64, Base: 150000, MaxPositions: 512, Scaling: Scaling{Type: ScalingYaRN, Factor: 32, OriginalMaxPositions: 16, NoTruncate: true}},
		"llama3":           {HeadSize: 128, RotaryDim: 128, Base: 500000, MaxPositions: 512, Scaling: Scaling{Type: ScalingLlama3, Factor: 8, LowFreqFactor: 1, HighFreqFactor: 4, OriginalMaxPositions: 8192}},
		"longrope":         {HeadSize: 96, RotaryDim: 96, Base: 10000, MaxPositions: 512, Scaling: Scaling{Type: ScalingLongRoPE, Factor: 32, OriginalMaxPositions: 128, ShortFactor: randFactors(rng, 48, 1, 1.2), LongFactor: randFactors(rng, 48, 1, 60)}},
	}
	names := make([]string, 0, len(specs))
	for n := range specs {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		spec := specs[name]
		e := mustNew(t, spec, WithCacheLen(300))
		for _, dt := range []tensor.DType{tensor.F32, tensor.BF16} {
			for _, limit := range []int64{100, 300, 2000} { // short/cached, cached, computed
				pos := randPositions(rng, 5, limit)
				inv, att := spec.Frequencies(int(slices.Max(pos)))
				lay := layout{tokens: 5, heads: 4, headSize: spec.HeadSize, tokPad: 3, lead: 2, tail: 2}
				rotateAndCheck(t, fmt.Sprintf("%s %v positions < %d", name, dt, limit), e, dt, lay, layout{tokens: 5, heads: 1, headSize: spec.HeadSize, flat: true},
					posTensor(pos, false), plainTheta(pos, inv), att, rng)
			}
		}
	}
}

// TestForwardLargePositions: positions near 2^20 stay exact (float64 angles), and the computed
// path (small cache) gives the same bits as the cached path, including a call that mixes cached
// rows with computed ones.
func TestForwardLargePositions(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 15))
	pos := []int64{1048575, 1048576 + 7, 1048576, 3, 1048576 + 8, 999983}
	// The cached path needs a 2^20-row cache: keep the rotary dim small so it stays cheap.
	for _, style := range []Style{NeoX, GPTJ} {
		small := Spec{HeadSize: 64, RotaryDim: 8, Base: 10000, Style: style, MaxPositions: 2048}
		embs := []*Embedding{
			mustNew(t, small, WithCacheLen(16)),       // computed
			mustNew(t, small, WithCacheLen(1<<20+16)), // cached
			mustNew(t, small, WithCacheLen(1<<20+8)),  // mixed: row 1048576+8 is past it
		}
		inv, att := small.Frequencies(-1)
		for _, dt := range floatTypes {
			lay := layout{tokens: len(pos), heads: 3, headSize: 64, tokPad: 5, lead: 1, tail: 1}
			q0 := newView(dt, lay, rng)
			var outs []*view
			for _, e := range embs {
				v := q0.clone()
				if err := e.Forward(posTensor(pos, true), v.t, tensor.Tensor{}); err != nil {
					t.Fatal(err)
				}
				outs = append(outs, v)
			}
			expectRotated(t, fmt.Sprintf("large positions %v %v", style, dt), q0, outs[0], 8, style == GPTJ, plainTheta(pos, inv), att)
			for i, o := range outs[1:] {
				if j := sameBits(outs[0], o); j >= 0 {
					t.Errorf("%v %v: computed and cached (%d) paths differ at element %d: %#x vs %#x", style, dt, i, j, outs[0].raw(j), o.raw(j))
				}
			}
		}
	}
	// The full head size on the computed path, against the float64 evaluation.
	for _, style := range []Style{NeoX, GPTJ} {
		spec := Spec{HeadSize: 128, RotaryDim: 128, Base: 500000, Style: style, MaxPositions: 64}
		e := mustNew(t, spec)
		inv, att := spec.Frequencies(-1)
		for _, dt := range floatTypes {
			lay := layout{tokens: len(pos), heads: 2, headSize: 128}
			rotateAndCheck(t, fmt.Sprintf("large positions head 128 %v %v", style, dt), e, dt, lay, lay, posTensor(pos, false), plainTheta(pos, inv), att, rng)
		}
	}
}

// TestForwardNaNInf: a NaN or an infinity in one element spoils its own pair only; every other
// element is bit for bit what it is without it.
func TestForwardNaNInf(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 17))
	for _, style := range []Style{NeoX, GPTJ} {
		spec := Spec{HeadSize: 64, RotaryDim: 48, Base: 10000, Style: style, MaxPositions: 128}
		e := mustNew(t, spec)
		for _, dt := range floatTypes {
			for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
				for _, p := range []int64{0, 37} {
					lay := layout{tokens: 2, heads: 2, headSize: 64, lead: 2, tail: 2}
					clean := newView(dt, lay, rng)
					dirty := clean.clone()
					// Token 1, head 0: element 5 of pair 5 (rotary), and element 60 (pass-through).
					dirty.set(1, 0, 5, bad)
					dirty.set(1, 0, 60, bad)
					partner := 5 + 24
					if style == GPTJ {
						partner = 4
					}
					nanBits := dirty.raw(dirty.index(1, 0, 60))
					pos := posTensor([]int64{p, p}, false)
					if err := e.Forward(pos, clean.t, tensor.Tensor{}); err != nil {
						t.Fatal(err)
					}
					if err := e.Forward(pos, dirty.t, tensor.Tensor{}); err != nil {
						t.Fatal(err)
					}
					name := fmt.Sprintf("%v %v %v at position %d", style, dt, bad, p)
					for i := range clean.len() {
						switch i {
						case dirty.index(1, 0, 5), dirty.index(1, 0, partner):
							if g := dirty.get(1, 0, i-dirty.index(1, 0, 0)); !math.IsNaN(g) && !math.IsInf(g, 0) {
								t.Errorf("%s: element %d of the spoiled pair is finite (%v)", name, i-dirty.index(1, 0, 0), g)
							}
						case dirty.index(1, 0, 60):
							if dirty.raw(i) != nanBits {
								t.Errorf("%s: pass-through non-finite changed: %#x → %#x", name, nanBits, dirty.raw(i))
							}
						default:
							if clean.raw(i) != dirty.raw(i) {
								t.Errorf("%s: element %d differs from the clean run: %#x vs %#x", name, i, dirty.raw(i), clean.raw(i))
							}
						}
					}
				}
			}
		}
	}
}

// TestRelativePositionIdentity: ⟨f(q,m), f(k,n)⟩ depends on m − n only, and equals the float64
// ⟨q, R((n−m)θ) k⟩.
func TestRelativePositionIdentity(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 19))
	for _, style := range []Style{NeoX, GPTJ} {
		for _, rd := range []int{128, 64} {
			spec := Spec{HeadSize: 128, RotaryDim: rd, Base: 10000, Style: style, MaxPositions: 8192}
			e := mustNew(t, spec)
			inv, _ := spec.Frequencies(-1)
			for trial := range 20 {
				m, n := rng.Int64N(3000), rng.Int64N(3000)
				sft := rng.Int64N(5000)
				lay := layout{tokens: 1, heads: 1, headSize: 128}
				q, k := newView(tensor.F32, lay, rng), newView(tensor.F32, lay, rng)
				want, scale := 0.0, 0.0
				half := rd / 2
				for j := rd; j < 128; j++ {
					want += q.get(0, 0, j) * k.get(0, 0, j)
					scale += math.Abs(q.get(0, 0, j) * k.get(0, 0, j))
				}
				for i := range half {
					i1, i2 := i, i+half
					if style == GPTJ {
						i1, i2 = 2*i, 2*i+1
					}
					q1, q2, k1, k2 := q.get(0, 0, i1), q.get(0, 0, i2), k.get(0, 0, i1), k.get(0, 0, i2)
					a := float64(n-m) * inv[i]
					c, s := math.Cos(a), math.Sin(a)
					want += q1*(k1*c-k2*s) + q2*(k2*c+k1*s)
					scale += math.Hypot(q1, q2) * math.Hypot(k1, k2)
				}
				dot := func(mm, nn int64) float64 {
					qq, kk := q.clone(), k.clone()
					if err := e.Forward(posTensor([]int64{mm}, false), qq.t, tensor.Tensor{}); err != nil {
						t.Fatal(err)
					}
					if err := e.Forward(posTensor([]int64{nn}, false), kk.t, tensor.Tensor{}); err != nil {
						t.Fatal(err)
					}
					d := 0.0
					for j := range 128 {
						d += qq.get(0, 0, j) * kk.get(0, 0, j)
					}
					return d
				}
				a, b := dot(m, n), dot(m+sft, n+sft)
				// Each f32 output is within ~3·2^-24 of its pair's norm.
				tol := 0x1p-20 * scale
				if math.Abs(a-want) > tol || math.Abs(b-want) > tol || math.Abs(a-b) > tol {
					t.Errorf("%v rotary %d trial %d: <f(q,%d),f(k,%d)> = %v, shifted by %d: %v, float64 %v (tol %.3g)", style, rd, trial, m, n, a, sft, b, want, tol)
				}
			}
		}
	}
}

// TestPairNormPreserved: rotation keeps each pair's norm (times the attention factor).
func TestPairNormPreserved(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 21))
	for _, spec := range []Spec{
		{HeadSize: 128, RotaryDim: 128, Base: 10000, MaxPositions: 4096},
		{HeadSize: 80, RotaryDim: 40, Base: 10000, Style: GPTJ, MaxPositions: 4096},
		{HeadSize: 64, RotaryDim: 64, Base: 10000, MaxPositions: 4096, Scaling: Scaling{Type: ScalingYaRN, Factor: 40, OriginalMaxPositions: 1024}},
	} {
		e := mustNew(t, spec)
		_, att := spec.Frequencies(-1)
		lay := layout{tokens: 16, heads: 4, headSize: spec.HeadSize}
		pos := randPositions(rng, 16, 4096)
		q := newView(tensor.F32, lay, rng)
		q0 := q.clone()
		if err := e.Forward(posTensor(pos, false), q.t, tensor.Tensor{}); err != nil {
			t.Fatal(err)
		}
		half := spec.RotaryDim / 2
		for tok := range 16 {
			for h := range 4 {
				for i := range half {
					i1, i2 := i, i+half
					if spec.Style == GPTJ {
						i1, i2 = 2*i, 2*i+1
					}
					before := math.Hypot(q0.get(tok, h, i1), q0.get(tok, h, i2)) * att
					after := math.Hypot(q.get(tok, h, i1), q.get(tok, h, i2))
					if math.Abs(after-before) > 0x1p-20*before {
						t.Errorf("%+v token %d head %d pair %d: norm %v → %v", spec.Scaling, tok, h, i, before, after)
					}
				}
			}
		}
	}
}

// TestPositionZeroIdentity: at position 0 (cos 1, sin 0, attention 1) the output is the input,
// bit for bit, in every dtype (inputs non-zero: −0 paired with a negative partner comes back as +0,
// which is equal but not the same bits).
func TestPositionZeroIdentity(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 23))
	for _, style := range []Style{NeoX, GPTJ} {
		e := mustNew(t, Spec{HeadSize: 96, RotaryDim: 64, Base: 10000, Style: style, MaxPositions: 16})
		for _, dt := range floatTypes {
			for _, cacheLen := range []int{16, 0} { // cached and computed
				e2 := e
				if cacheLen == 0 {
					e2 = mustNew(t, e.Spec(), WithCacheLen(0))
				}
				lay := layout{tokens: 3, heads: 4, headSize: 96, tokPad: 2, lead: 1, tail: 1}
				q := newView(dt, lay, nil)
				q.fill(func() float64 {
					for {
						if v := 8*rng.Float64() - 4; math.Abs(v) > 1e-3 {
							return v
						}
					}
				})
				k := newView(dt, layout{tokens: 3, heads: 1, headSize: 96}, rng)
				q0, k0 := q.clone(), k.clone()
				if err := e2.Forward(posTensor([]int64{0, 0, 0}, false), q.t, k.t); err != nil {
					t.Fatal(err)
				}
				if i := sameBits(q, q0); i >= 0 {
					t.Errorf("%v %v cache %d: query element %d changed at position 0: %#x → %#x", style, dt, cacheLen, i, q0.raw(i), q.raw(i))
				}
				if i := sameBits(k, k0); i >= 0 {
					t.Errorf("%v %v cache %d: key element %d changed at position 0: %#x → %#x", style, dt, cacheLen, i, k0.raw(i), k.raw(i))
				}
			}
		}
	}
}

// forwardVsGather runs Forward, and Gather + Apply, on copies of q and k, and reports the first
// element where they differ.
func forwardVsGather(t *testing.T, name string, e *Embedding, positions tensor.Tensor, q, k *view) {
	t.Helper()
	qa, qb := q.clone(), q.clone()
	var ka, kb *view
	var keyA, keyB tensor.Tensor
	if k != nil {
		ka, kb = k.clone(), k.clone()
		keyA, keyB = ka.t, kb.t
	}
	if err := e.Forward(positions, qa.t, keyA); err != nil {
		t.Fatalf("%s: Forward: %v", name, err)
	}
	var cs CosSin
	if err := e.Gather(positions, &cs); err != nil {
		t.Fatalf("%s: Gather: %v", name, err)
	}
	if cs.Tokens() != q.lay.tokens || len(cs.Cos()) != q.lay.tokens*e.Spec().RotaryDim/2 || len(cs.Sin()) != len(cs.Cos()) {
		t.Fatalf("%s: gathered %d tokens, %d cos, %d sin", name, cs.Tokens(), len(cs.Cos()), len(cs.Sin()))
	}
	if err := cs.Apply(qb.t, keyB); err != nil {
		t.Fatalf("%s: Apply: %v", name, err)
	}
	if i := sameBits(qa, qb); i >= 0 {
		t.Errorf("%s: Forward and Gather+Apply differ on query element %d: %#x vs %#x", name, i, qa.raw(i), qb.raw(i))
	}
	if k != nil {
		if i := sameBits(ka, kb); i >= 0 {
			t.Errorf("%s: Forward and Gather+Apply differ on key element %d: %#x vs %#x", name, i, ka.raw(i), kb.raw(i))
		}
	}
}

// TestGatherApplyEqualsForward: the hoisted gather gives Forward's bits on every path.
func TestGatherApplyEqualsForward(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 25))
	mr := &MRoPE{Sections: []int{16, 24, 24}}
	specs := map[string]Spec{
		"default":   {HeadSize: 128, RotaryDim: 128, Base: 10000, MaxPositions: 256},
		"gptj part": {HeadSize: 80, RotaryDim: 32, Base: 10000, Style: GPTJ, MaxPositions: 256},
		"yarn":      {HeadSize: 64, RotaryDim: 64, Base: 10000, MaxPositions: 256, Scaling: Scaling{Type: ScalingYaRN, Factor: 4, OriginalMaxPositions: 64}},
		"dynamic":   {HeadSize: 64, RotaryDim: 64, Base: 10000, MaxPositions: 64, Scaling: Scaling{Type: ScalingDynamic, Factor: 4, Dynamic: DynamicPerCall}},
		"longrope":  {HeadSize: 64, RotaryDim: 64, Base: 10000, MaxPositions: 256, Scaling: Scaling{Type: ScalingLongRoPE, Factor: 4, OriginalMaxPositions: 64, ShortFactor: randFactors(rng, 32, 1, 2), LongFactor: randFactors(rng, 32, 1, 8)}},
		"mrope":     {HeadSize: 128, RotaryDim: 128, Base: 1e6, MaxPositions: 256, MRoPE: mr},
	}
	for name, spec := range specs {
		for _, cacheLen := range []int{256, 16} {
			e := mustNew(t, spec, WithCacheLen(cacheLen))
			for _, dt := range floatTypes {
				for _, limit := range []int64{16, 60, 256, 1000} {
					lay := layout{tokens: 7, heads: 4, headSize: spec.HeadSize, tokPad: 2}
					q, k := newView(dt, lay, rng), newView(dt, layout{tokens: 7, heads: 1, headSize: spec.HeadSize, flat: true}, rng)
					pos := randPositions(rng, 7, limit)
					label := fmt.Sprintf("%s cache %d %v positions < %d", name, cacheLen, dt, limit)
					forwardVsGather(t, label, e, posTensor(pos, true), q, k)
					if spec.MRoPE != nil {
						p3 := append(append(randPositions(rng, 7, limit), randPositions(rng, 7, limit)...), pos...)
						forwardVsGather(t, label+" 3-D", e, tensor.FromI64(p3, 3, 7), q, nil)
					}
				}
			}
		}
	}
	// One CosSin serves many layers and is reused across calls of different sizes.
	e := mustNew(t, specs["default"])
	var cs CosSin
	for _, n := range []int{9, 3, 12} {
		pos := randPositions(rng, n, 256)
		if err := e.Gather(posTensor(pos, false), &cs); err != nil {
			t.Fatal(err)
		}
		for layer := range 3 {
			q := newView(tensor.BF16, layout{tokens: n, heads: 2, headSize: 128}, rng)
			qa := q.clone()
			if err := cs.Apply(q.t, tensor.Tensor{}); err != nil {
				t.Fatal(err)
			}
			if err := e.Forward(posTensor(pos, false), qa.t, tensor.Tensor{}); err != nil {
				t.Fatal(err)
			}
			if i := sameBits(q, qa); i >= 0 {
				t.Errorf("reused CosSin, %d tokens, layer %d: differs at %d", n, layer, i)
			}
		}
	}
}

// mropeTheta is the angle of pair i of token tok with per-axis positions pos[axis][tok].
func mropeTheta(pos [][]int64, axes []int, inv []float64) func(tok, i int) float64 {
	return func(tok, i int) float64 { return float64(pos[axes[i]][tok]) * inv[i] }
}

// TestMRoPE: chunked and interleaved sections against the float64 evaluation with HF's axis
// assignment, both styles, cached and computed paths giving the same bits.
func TestMRoPE(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 27))
	for _, sections := range [][]int{{16, 24, 24}, {24, 20, 20}} {
		for _, inter := range []bool{false, true} {
			for _, style := range []Style{NeoX, GPTJ} {
				spec := Spec{HeadSize: 128, RotaryDim: 128, Base: 1e6, Style: style, MaxPositions: 512, MRoPE: &MRoPE{Sections: sections, Interleaved: inter}}
				cached := mustNew(t, spec)
				computed := mustNew(t, spec, WithCacheLen(8))
				inv, att := spec.Frequencies(-1)
				axes := refAxes(64, spec.MRoPE)
				if !inter {
					want := slices.Concat(slices.Repeat([]int{0}, sections[0]), slices.Repeat([]int{1}, sections[1]), slices.Repeat([]int{2}, sections[2]))
					if !slices.Equal(axes, want) {
						t.Fatalf("test's chunked axes %v", axes)
					}
				}
				if inter && sections[1] == 20 {
					// Qwen3-VL: pairs 61, 62, 63 fall back to axis 0 (ggml differs here).
					if axes[60] != 0 || axes[61] != 0 || axes[62] != 0 || axes[63] != 0 || axes[58] != 1 || axes[59] != 2 {
						t.Fatalf("test's interleaved axes %v", axes)
					}
				}
				for _, dt := range floatTypes {
					pos := [][]int64{randPositions(rng, 6, 512), randPositions(rng, 6, 512), randPositions(rng, 6, 512)}
					flat := slices.Concat(pos...)
					name := fmt.Sprintf("mrope %v interleaved=%v %v %v", sections, inter, style, dt)
					qLay := layout{tokens: 6, heads: 8, headSize: 128, tokPad: 4, lead: 2, tail: 3}
					rotateAndCheck(t, name, cached, dt, qLay, layout{tokens: 6, heads: 2, headSize: 128, flat: true},
						tensor.FromI64(flat, 3, 6), mropeTheta(pos, axes, inv), att, rng)
					// The computed path: same bits.
					q2 := newView(dt, qLay, rng)
					q2b := q2.clone()
					if err := cached.Forward(tensor.FromI64(flat, 3, 6), q2.t, tensor.Tensor{}); err != nil {
						t.Fatal(err)
					}
					if err := computed.Forward(tensor.FromI64(flat, 3, 6), q2b.t, tensor.Tensor{}); err != nil {
						t.Fatal(err)
					}
					if i := sameBits(q2, q2b); i >= 0 {
						t.Errorf("%s: cached and computed paths differ at %d", name, i)
					}
					// Strided positions: a [3, T] view with a row stride of 10 and a token stride of 1.
					buf := make([]int32, 40)
					for a := range 3 {
						for tok := range 6 {
							buf[2+a*10+tok] = int32(pos[a][tok])
						}
					}
					pv := tensor.Tensor{DType: tensor.I32, Shape: []int{3, 6}, Strides: []int{10, 1}, Offset: 2, I32: buf}
					q4 := newView(dt, qLay, rng)
					q5 := q4.clone()
					if err := cached.Forward(tensor.FromI64(flat, 3, 6), q4.t, tensor.Tensor{}); err != nil {
						t.Fatal(err)
					}
					if err := cached.Forward(pv, q5.t, tensor.Tensor{}); err != nil {
						t.Fatal(err)
					}
					if i := sameBits(q4, q5); i >= 0 {
						t.Errorf("%s: strided I32 positions differ at %d", name, i)
					}
				}
			}
		}
	}
}

// TestMRoPETextOnly: 1-D positions given to an MRoPE model rotate as if every axis held them,
// and as a plain model with the same frequencies does.
func TestMRoPETextOnly(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 29))
	for _, inter := range []bool{false, true} {
		spec := Spec{HeadSize: 128, RotaryDim: 128, Base: 1e6, MaxPositions: 256, MRoPE: &MRoPE{Sections: []int{24, 20, 20}, Interleaved: inter}}
		plain := spec
		plain.MRoPE = nil
		for _, cacheLen := range []int{256, 4} {
			e := mustNew(t, spec, WithCacheLen(cacheLen))
			p := mustNew(t, plain, WithCacheLen(cacheLen))
			for _, dt := range floatTypes {
				pos := randPositions(rng, 5, 256)
				lay := layout{tokens: 5, heads: 3, headSize: 128}
				a := newView(dt, lay, rng)
				b, c := a.clone(), a.clone()
				if err := e.Forward(posTensor(pos, false), a.t, tensor.Tensor{}); err != nil {
					t.Fatal(err)
				}
				if err := e.Forward(tensor.FromI64(slices.Concat(pos, pos, pos), 3, 5), b.t, tensor.Tensor{}); err != nil {
					t.Fatal(err)
				}
				if err := p.Forward(posTensor(pos, false), c.t, tensor.Tensor{}); err != nil {
					t.Fatal(err)
				}
				if i := sameBits(a, b); i >= 0 {
					t.Errorf("interleaved=%v cache %d %v: 1-D and equal 3-D positions differ at %d", inter, cacheLen, dt, i)
				}
				if i := sameBits(a, c); i >= 0 {
					t.Errorf("interleaved=%v cache %d %v: text-only MRoPE and plain RoPE differ at %d", inter, cacheLen, dt, i)
				}
			}
		}
	}
}

// TestLongRoPESwitch: a call whose positions are all below the original length uses the short
// factors for every token; one position at or past it switches every token to the long factors.
func TestLongRoPESwitch(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 31))
	spec := Spec{HeadSize: 64, RotaryDim: 64, Base: 10000, MaxPositions: 256, Scaling: Scaling{
		Type: ScalingLongRoPE, Factor: 4, OriginalMaxPositions: 64,
		ShortFactor: randFactors(rng, 32, 1, 2), LongFactor: randFactors(rng, 32, 2, 8)}}
	shortInv, att := spec.Frequencies(63)
	longInv, att2 := spec.Frequencies(64)
	if att != att2 || !relClose(att, math.Sqrt(1+math.Log(4)/math.Log(64)), 1e-15) {
		t.Fatalf("attention %v %v", att, att2)
	}
	for _, cacheLen := range []int{256, 32} {
		e := mustNew(t, spec, WithCacheLen(cacheLen))
		if got := e.LongInvFreq(); len(got) != 32 || !relClose(got[5], longInv[5], 1e-14) {
			t.Errorf("LongInvFreq %v", got)
		}
		if got := e.InvFreq(); !relClose(got[5], shortInv[5], 1e-14) {
			t.Errorf("InvFreq %v", got)
		}
		for _, dt := range []tensor.DType{tensor.F32, tensor.BF16} {
			lay := layout{tokens: 3, heads: 2, headSize: 64}
			for _, c := range []struct {
				pos []int64
				inv []float64
			}{
				{[]int64{10, 0, 63}, shortInv},
				{[]int64{10, 0, 64}, longInv},
				{[]int64{10, 200, 5}, longInv},
			} {
				name := fmt.Sprintf("longrope cache %d %v positions %v", cacheLen, dt, c.pos)
				rotateAndCheck(t, name, e, dt, lay, layout{}, posTensor(c.pos, false), plainTheta(c.pos, c.inv), att, rng)
			}
			// Token 0 at position 10 comes out differently in a short and a long call.
			q := newView(dt, layout{tokens: 2, heads: 1, headSize: 64}, rng)
			q2 := q.clone()
			if err := e.Forward(posTensor([]int64{10, 20}, false), q.t, tensor.Tensor{}); err != nil {
				t.Fatal(err)
			}
			if err := e.Forward(posTensor([]int64{10, 100}, false), q2.t, tensor.Tensor{}); err != nil {
				t.Fatal(err)
			}
			differs := false
			for j := range 64 {
				differs = differs || q.get(0, 0, j) != q2.get(0, 0, j)
			}
			if !differs {
				t.Errorf("cache %d %v: position 10 rotated the same in a short and a long call", cacheLen, dt)
			}
		}
	}
	// CosSinCache(n, long) is the long table.
	e := mustNew(t, spec)
	long, err := e.CosSinCache(80, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []int{0, 63, 64, 79} {
		for i := range 32 {
			wc := math.Cos(float64(p)*longInv[i]) * att
			ws := math.Sin(float64(p)*longInv[i]) * att
			if long[p*64+i] != float32(wc) || long[p*64+32+i] != float32(ws) {
				t.Errorf("long cache row %d pair %d: %v %v, want %v %v", p, i, long[p*64+i], long[p*64+32+i], float32(wc), float32(ws))
			}
		}
	}
	if _, err := mustNew(t, Spec{HeadSize: 8, RotaryDim: 8, Base: 10000, MaxPositions: 8}).CosSinCache(4, true); err == nil {
		t.Errorf("CosSinCache(long) on a default spec: no error")
	}
}

// TestCosSinCacheLayout: vLLM's layout, cos half then sin half, each rounded once from float64;
// rows past the cache computed the same way.
func TestCosSinCacheLayout(t *testing.T) {
	spec := Spec{HeadSize: 64, RotaryDim: 32, Base: 10000, MaxPositions: 16, Scaling: Scaling{Type: ScalingYaRN, Factor: 4, OriginalMaxPositions: 8}}
	e := mustNew(t, spec)
	inv, att := spec.Frequencies(-1)
	if e.CacheLen() != 32 || e.AttentionFactor() != att {
		t.Errorf("CacheLen %d attention %v", e.CacheLen(), e.AttentionFactor())
	}
	got, err := e.CosSinCache(100, false)
	if err != nil {
		t.Fatal(err)
	}
	for p := range 100 {
		for i := range 16 {
			if wc := float32(math.Cos(float64(p)*inv[i]) * att); got[p*32+i] != wc {
				t.Errorf("row %d cos %d: %v, want %v", p, i, got[p*32+i], wc)
			}
			if ws := float32(math.Sin(float64(p)*inv[i]) * att); got[p*32+16+i] != ws {
				t.Errorf("row %d sin %d: %v, want %v", p, i, got[p*32+16+i], ws)
			}
		}
	}
	if _, err := e.CosSinCache(-1, false); err == nil {
		t.Errorf("CosSinCache(-1): no error")
	}
}

// TestDynamicPerCallForward: HF's per-call NTK equals the default RoPE up to the trained length
// and follows max position + 1 past it, where it differs from vLLM's static choice.
func TestDynamicPerCallForward(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 33))
	spec := Spec{HeadSize: 64, RotaryDim: 64, Base: 10000, MaxPositions: 128, Scaling: Scaling{Type: ScalingDynamic, Factor: 4, Dynamic: DynamicPerCall}}
	static := spec
	static.Scaling.Dynamic = DynamicStatic
	def := Spec{HeadSize: 64, RotaryDim: 64, Base: 10000, MaxPositions: 128}
	e, es, ed := mustNew(t, spec), mustNew(t, static), mustNew(t, def)
	for _, dt := range floatTypes {
		lay := layout{tokens: 4, heads: 2, headSize: 64}
		// Below the trained length: the default RoPE, bit for bit.
		pos := []int64{0, 50, 127, 3}
		a := newView(dt, lay, rng)
		b := a.clone()
		if err := e.Forward(posTensor(pos, false), a.t, tensor.Tensor{}); err != nil {
			t.Fatal(err)
		}
		if err := ed.Forward(posTensor(pos, false), b.t, tensor.Tensor{}); err != nil {
			t.Fatal(err)
		}
		if i := sameBits(a, b); i >= 0 {
			t.Errorf("%v: per-call below the trained length differs from default at %d", dt, i)
		}
		// Past it: L = max position + 1.
		for _, pos := range [][]int64{{0, 50, 128, 3}, {300, 7, 1, 2}} {
			inv, att := spec.Frequencies(int(slices.Max(pos)))
			rotateAndCheck(t, fmt.Sprintf("per-call %v %v", dt, pos), e, dt, lay, layout{}, posTensor(pos, false), plainTheta(pos, inv), att, rng)
			c := newView(dt, lay, rng)
			d := c.clone()
			if err := e.Forward(posTensor(pos, false), c.t, tensor.Tensor{}); err != nil {
				t.Fatal(err)
			}
			if err := es.Forward(posTensor(pos, false), d.t, tensor.Tensor{}); err != nil {
				t.Fatal(err)
			}
			if sameBits(c, d) < 0 {
				t.Errorf("%v %v: per-call equals static past the trained length", dt, pos)
			}
		}
		// Static below the trained length still uses the stretched base.
		sInv, sAtt := static.Frequencies(-1)
		rotateAndCheck(t, fmt.Sprintf("static %v", dt), es, dt, lay, layout{}, posTensor(pos, false), plainTheta(pos, sInv), sAtt, rng)
	}
}

// TestForLayerGemma3: sliding layers use the local base and no scaling; layer l is global iff
// (l+1) % pattern == 0, or as layer_types say.
func TestForLayerGemma3(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 35))
	spec := Spec{HeadSize: 128, RotaryDim: 128, Base: 1e6, MaxPositions: 256,
		Scaling: Scaling{Type: ScalingLinear, Factor: 8}, Local: &LocalRoPE{Base: 10000, Pattern: 6}}
	if err := spec.Validate(); err != nil {
		t.Fatal(err)
	}
	local := Spec{HeadSize: 128, RotaryDim: 128, Base: 10000, MaxPositions: 256}
	global := Spec{HeadSize: 128, RotaryDim: 128, Base: 1e6, MaxPositions: 256, Scaling: Scaling{Type: ScalingLinear, Factor: 8}}
	el, eg := mustNew(t, local), mustNew(t, global)
	for l := range 14 {
		wantGlobal := (l+1)%6 == 0
		if got := spec.IsGlobalLayer(l); got != wantGlobal {
			t.Errorf("IsGlobalLayer(%d) = %v", l, got)
		}
		ls, err := spec.ForLayer(l)
		if err != nil {
			t.Fatal(err)
		}
		if ls.Local != nil {
			t.Errorf("ForLayer(%d) keeps Local", l)
		}
		want, ref := local, el
		if wantGlobal {
			want, ref = global, eg
		}
		if wantGlobal && (ls.Base != 1e6 || !reflect.DeepEqual(ls.Scaling, global.Scaling)) ||
			!wantGlobal && (ls.Base != 10000 || (ls.Scaling.Type != ScalingDefault && ls.Scaling.Type != "")) {
			t.Errorf("ForLayer(%d) = base %v scaling %+v, want base %v scaling %+v", l, ls.Base, ls.Scaling, want.Base, want.Scaling)
		}
		e := mustNew(t, ls)
		pos := randPositions(rng, 3, 256)
		a := newView(tensor.BF16, layout{tokens: 3, heads: 2, headSize: 128}, rng)
		b := a.clone()
		if err := e.Forward(posTensor(pos, false), a.t, tensor.Tensor{}); err != nil {
			t.Fatal(err)
		}
		if err := ref.Forward(posTensor(pos, false), b.t, tensor.Tensor{}); err != nil {
			t.Fatal(err)
		}
		if i := sameBits(a, b); i >= 0 {
			t.Errorf("layer %d (global %v): differs from the reference embedding at %d", l, wantGlobal, i)
		}
	}
	if _, err := spec.ForLayer(-1); err == nil {
		t.Errorf("ForLayer(-1): no error")
	}
	// layer_types take precedence over the pattern.
	typed := spec
	typed.Local = &LocalRoPE{Base: 10000, Pattern: 6, LayerTypes: []string{"full_attention", "sliding_attention", "sliding_attention"}}
	for l, want := range []bool{true, false, false} {
		if got := typed.IsGlobalLayer(l); got != want {
			t.Errorf("layer_types: IsGlobalLayer(%d) = %v", l, got)
		}
		ls, err := typed.ForLayer(l)
		if err != nil {
			t.Fatal(err)
		}
		if (ls.Base == 1e6) != want {
			t.Errorf("layer_types: ForLayer(%d) base %v", l, ls.Base)
		}
	}
	if _, err := typed.ForLayer(3); err == nil {
		t.Errorf("ForLayer past layer_types: no error")
	}
	// Without per-layer RoPE every layer is the model's.
	if ls, err := global.ForLayer(7); err != nil || !reflect.DeepEqual(ls, global) {
		t.Errorf("ForLayer on a plain spec: %+v %v", ls, err)
	}
}

// TestDualChunk: vLLM's DualChunkRotaryEmbedding mapping, L = chunk − local: query and key at
// p mod L, succ at min(p mod L + L, chunk), inter at min(2L − 1, chunk), succ_critical at
// p mod L + L, inter_critical at p mod L + chunk — each bit for bit a plain Forward at the mapped
// position.
func TestDualChunk(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 37))
	for _, c := range []struct{ chunk, local int }{{32, 8}, {32, 20}, {16, 0}} {
		spec := Spec{HeadSize: 64, RotaryDim: 64, Base: 10000, MaxPositions: 64, DualChunk: &DualChunk{ChunkSize: c.chunk, LocalSize: c.local}}
		plain := spec
		plain.DualChunk = nil
		e := mustNew(t, spec)
		p := mustNew(t, plain, WithCacheLen(8)) // plain: mostly computed; same bits either way
		L := int64(c.chunk - c.local)
		ch := int64(c.chunk)
		pos := []int64{0, 5, L - 1, L, 50, 100, 1000, 2*L - 1}
		maps := map[string]func(int64) int64{
			"query":          func(p int64) int64 { return p % L },
			"key":            func(p int64) int64 { return p % L },
			"succ":           func(p int64) int64 { return min(p%L+L, ch) },
			"inter":          func(int64) int64 { return min(2*L-1, ch) },
			"succ_critical":  func(p int64) int64 { return p%L + L },
			"inter_critical": func(p int64) int64 { return p%L + ch },
		}
		for _, dt := range floatTypes {
			lay := layout{tokens: len(pos), heads: 4, headSize: 64, tokPad: 3, lead: 1, tail: 1}
			q := newView(dt, lay, rng)
			k := newView(dt, layout{tokens: len(pos), heads: 2, headSize: 64}, rng)
			q0, k0 := q.clone(), k.clone()
			outs := map[string]*view{}
			for _, n := range []string{"succ", "inter", "succ_critical", "inter_critical"} {
				outs[n] = newView(dt, lay, rng) // garbage: must be overwritten
			}
			extra := DualChunkQueries{Succ: outs["succ"].t, Inter: outs["inter"].t, SuccCritical: outs["succ_critical"].t, InterCritical: outs["inter_critical"].t}
			if err := e.DualChunk(posTensor(pos, false), q.t, k.t, extra); err != nil {
				t.Fatal(err)
			}
			outs["query"], outs["key"] = q, k
			for name, got := range outs {
				src := q0
				if name == "key" {
					src = k0
				}
				want := src.clone()
				mapped := make([]int64, len(pos))
				for i, v := range pos {
					mapped[i] = maps[name](v)
				}
				if err := p.Forward(posTensor(mapped, false), want.t, tensor.Tensor{}); err != nil {
					t.Fatal(err)
				}
				if i := sameBits(got, want); i >= 0 {
					t.Errorf("chunk %d local %d %v %s: differs from Forward at %v at element %d", c.chunk, c.local, dt, name, mapped, i)
				}
			}
		}
		// Forward refuses a dual-chunk model and writes nothing.
		q := newView(tensor.F32, layout{tokens: 2, heads: 1, headSize: 64}, rng)
		q0 := q.clone()
		if err := e.Forward(posTensor([]int64{1, 2}, false), q.t, tensor.Tensor{}); err == nil {
			t.Errorf("Forward on a dual-chunk model: no error")
		}
		if sameBits(q, q0) >= 0 {
			t.Errorf("Forward on a dual-chunk model wrote the query")
		}
		// A mismatched extra output: error, nothing written.
		bad := newView(tensor.F32, layout{tokens: 2, heads: 2, headSize: 64}, rng)
		bad0 := bad.clone()
		if err := e.DualChunk(posTensor([]int64{1, 2}, false), q.t, tensor.Tensor{}, DualChunkQueries{Succ: bad.t}); err == nil {
			t.Errorf("DualChunk with a mismatched succ: no error")
		}
		bf := newView(tensor.BF16, layout{tokens: 2, heads: 1, headSize: 64}, rng)
		if err := e.DualChunk(posTensor([]int64{1, 2}, false), q.t, tensor.Tensor{}, DualChunkQueries{Succ: bf.t, Inter: bad.t}); err == nil {
			t.Errorf("DualChunk with a BF16 succ for an F32 query: no error")
		}
		if sameBits(q, q0) >= 0 || sameBits(bad, bad0) >= 0 {
			t.Errorf("DualChunk wrote on error")
		}
		if err := mustNew(t, plain).DualChunk(posTensor([]int64{1, 2}, false), q.t, tensor.Tensor{}, DualChunkQueries{}); err == nil {
			t.Errorf("DualChunk on a spec without dual chunk: no error")
		}
	}
}

// TestForwardPositionsForms: I32, I64 and strided positions, no key, zero tokens.
func TestForwardPositionsForms(t *testing.T) {
	rng := rand.New(rand.NewPCG(38, 39))
	spec := Spec{HeadSize: 64, RotaryDim: 64, Base: 10000, MaxPositions: 128}
	e := mustNew(t, spec)
	inv, att := spec.Frequencies(-1)
	pos := []int64{5, 9, 127, 0}
	buf := []int64{-1, 5, -1, 9, -1, 127, -1, 0, -1}
	strided := tensor.Tensor{DType: tensor.I64, Shape: []int{4}, Strides: []int{2}, Offset: 1, I64: buf}
	for _, pt := range []tensor.Tensor{posTensor(pos, false), posTensor(pos, true), strided} {
		rotateAndCheck(t, fmt.Sprintf("positions %v %v", pt.DType, pt.Strides), e, tensor.F32, layout{tokens: 4, heads: 3, headSize: 64}, layout{}, pt, plainTheta(pos, inv), att, rng)
	}
	// Zero tokens: nothing to do, no error.
	empty := tensor.FromF32(nil, 0, 2, 64)
	if err := e.Forward(tensor.FromI64(nil, 0), empty, tensor.Tensor{}); err != nil {
		t.Errorf("zero tokens: %v", err)
	}
}

// TestConcurrentForward: one Embedding used from many goroutines (run with -race), on the cached
// and the computed path, gives every goroutine the single-threaded bits.
func TestConcurrentForward(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 41))
	spec := Spec{HeadSize: 64, RotaryDim: 64, Base: 10000, MaxPositions: 64, Scaling: Scaling{Type: ScalingDynamic, Factor: 2, Dynamic: DynamicPerCall}}
	e := mustNew(t, spec)
	type job struct {
		pos  []int64
		in   *view
		want *view
	}
	var jobs []job
	for j := range 8 {
		limit := int64(64)
		if j%2 == 1 {
			limit = 500
		}
		pos := randPositions(rng, 6, limit)
		in := newView(tensor.BF16, layout{tokens: 6, heads: 2, headSize: 64}, rng)
		want := in.clone()
		if err := e.Forward(posTensor(pos, false), want.t, tensor.Tensor{}); err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, job{pos, in, want})
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var cs CosSin
			for r := range 10 {
				jb := jobs[(g+r)%len(jobs)]
				v := jb.in.clone()
				var err error
				if r%2 == 0 {
					err = e.Forward(posTensor(jb.pos, false), v.t, tensor.Tensor{})
				} else if err = e.Gather(posTensor(jb.pos, false), &cs); err == nil {
					err = cs.Apply(v.t, tensor.Tensor{})
				}
				if err != nil {
					errs <- err.Error()
					return
				}
				if i := sameBits(v, jb.want); i >= 0 {
					errs <- fmt.Sprintf("goroutine %d round %d: differs at %d", g, r, i)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
