package rotary

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/tensor"
)

// noRoPEModel is a Llama-4-shaped model whose layer 3 has no RoPE (no_rope_layers 0 there).
func noRoPEModel() Spec {
	return Spec{HeadSize: 64, RotaryDim: 64, Base: 500000, Style: GPTJ, MaxPositions: 4096,
		Local: &LocalRoPE{NoRoPE: []bool{false, false, false, true}}}
}

// TestNoRoPELayer: the embedding of a layer without RoPE leaves query and key untouched bit for
// bit (NaN payloads, signed zeros, infinities and the guards between heads included) through
// Forward and through Gather + Apply, in every dtype, layout and backend; it still refuses bad
// arguments, and it has no cos/sin table to hand out.
func TestNoRoPELayer(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	spec, err := noRoPEModel().ForLayer(3)
	if err != nil {
		t.Fatal(err)
	}
	if !spec.NoRoPE {
		t.Fatalf("ForLayer(3) = %+v, want NoRoPE", spec)
	}
	specials := []float64{math.NaN(), math.Copysign(0, -1), 0, math.Inf(1), math.Inf(-1), 1e-42, -65504, 3.0e38}
	for _, d := range dispatchers(t) {
		e := mustNew(t, spec, WithDispatcher(d))
		for _, dt := range []tensor.DType{tensor.F32, tensor.F16, tensor.BF16} {
			for _, lay := range []layout{
				{tokens: 5, heads: 3, headSize: 64},
				{tokens: 4, heads: 2, headSize: 64, flat: true, lead: 3, tail: 2},
				{tokens: 3, heads: 2, headSize: 64, tokPad: 5, headPad: 3, lead: 1, tail: 1},
			} {
				q := newView(dt, lay, rng)
				k := newView(dt, layout{tokens: lay.tokens, heads: 1, headSize: 64, lead: 2}, rng)
				for i, x := range specials {
					q.set(i%lay.tokens, 0, i, x)
					k.set(i%lay.tokens, 0, 63-i, x)
				}
				wantQ, wantK := q.snapshot(), k.snapshot()
				pos := posTensor(randPositions(rng, lay.tokens, 1<<20), dt == tensor.F16)
				if err := e.Forward(pos, q.t, k.t); err != nil {
					t.Fatalf("%s %v %+v: Forward: %v", d.Backend(), dt, lay, err)
				}
				var cs CosSin
				if err := e.Gather(pos, &cs); err != nil {
					t.Fatalf("Gather: %v", err)
				}
				if cs.Tokens() != lay.tokens || len(cs.Cos()) != 0 || len(cs.Sin()) != 0 {
					t.Errorf("gathered %d tokens, cos %d sin %d values: want %d tokens and no cos/sin", cs.Tokens(), len(cs.Cos()), len(cs.Sin()), lay.tokens)
				}
				for range 2 { // a CosSin serves every layer
					if err := cs.Apply(q.t, k.t); err != nil {
						t.Fatalf("Apply: %v", err)
					}
				}
				if !slices.Equal(q.snapshot(), wantQ) || !slices.Equal(k.snapshot(), wantK) {
					t.Errorf("%s %v %+v: a layer without RoPE changed q or k", d.Backend(), dt, lay)
				}
			}
		}
	}

	e := mustNew(t, spec)
	q := tensor.FromF32(make([]float32, 2*2*64), 2, 2, 64)
	pos := tensor.FromI64([]int64{0, 1}, 2)
	for name, err := range map[string]error{
		"head size":   e.Forward(pos, tensor.FromF32(make([]float32, 2*2*32), 2, 2, 32), tensor.Tensor{}),
		"token count": e.Forward(tensor.FromI64([]int64{0, 1, 2}, 3), q, tensor.Tensor{}),
		"negative":    e.Forward(tensor.FromI64([]int64{0, -1}, 2), q, tensor.Tensor{}),
		"gathered tokens": func() error {
			var cs CosSin
			_ = e.Gather(tensor.FromI64([]int64{0}, 1), &cs)
			return cs.Apply(q, tensor.Tensor{})
		}(),
		"nil dst": e.Gather(pos, nil),
	} {
		if err == nil {
			t.Errorf("%s: no error from a layer without RoPE", name)
		}
	}
	if _, err := e.CosSinCache(4, false); !errors.Is(err, errNoRoPE) {
		t.Errorf("CosSinCache: %v, want the no-RoPE error", err)
	}
	w := tensor.FromF32(make([]float32, 64), 64)
	if err := e.ForwardQKNorm(pos, q, tensor.Tensor{}, w, w, 1e-6); err == nil || !strings.Contains(err.Error(), "no RoPE") {
		t.Errorf("ForwardQKNorm: %v, want a refusal naming the missing RoPE", err)
	}
	if e.InvFreq() != nil || e.CacheLen() != 0 || e.AttentionFactor() != 1 {
		t.Errorf("InvFreq %v, CacheLen %d, AttentionFactor %v: want none, 0, 1", e.InvFreq(), e.CacheLen(), e.AttentionFactor())
	}
	if _, err := New(spec, WithCacheLen(-1)); err == nil {
		t.Errorf("WithCacheLen(-1): no error")
	}
	// The RoPE layers of the same model rotate as a plain spec does.
	l2, _ := noRoPEModel().ForLayer(2)
	plain := noRoPEModel()
	plain.Local = nil
	a := newView(tensor.BF16, layout{tokens: 3, heads: 2, headSize: 64}, rng)
	b := a.clone()
	p := posTensor([]int64{0, 7, 4000}, false)
	if err := mustNew(t, l2).Forward(p, a.t, tensor.Tensor{}); err != nil {
		t.Fatal(err)
	}
	if err := mustNew(t, plain).Forward(p, b.t, tensor.Tensor{}); err != nil {
		t.Fatal(err)
	}
	if i := sameBits(a, b); i >= 0 {
		t.Errorf("layer 2 differs from the plain spec at %d", i)
	}
}
