package rotary

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/tensor"
)

// TestNewRefusesPerLayerSpec: New builds one RoPE, so a spec whose layers differ (Gemma 3's
// sliding layers, Llama 4's layers without RoPE) is refused with an error that says where to go,
// instead of rotating every layer with the full-attention RoPE.
func TestNewRefusesPerLayerSpec(t *testing.T) {
	for _, name := range []string{"llama-4-scout-17b-16e", "gemma-3-4b", "olmo-3-7b-instruct", "smollm3-3b", "gemma-4-e2b"} {
		m, err := hf.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		e, err := New(m.Spec)
		if err == nil || e != nil {
			t.Errorf("%s: New accepted a spec whose layers differ", name)
			continue
		}
		if !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), "ForLayer") || !strings.Contains(err.Error(), "NewLayers") {
			t.Errorf("%s: error %q: want ErrSpec naming Spec.ForLayer and NewLayers", name, err)
		}
	}
}

// TestLayers: NewLayers builds one table per distinct layer RoPE, and every layer's Embedding,
// gather and apply equal New(spec.ForLayer(l)) bit for bit; NoPE layers leave q and k alone.
func TestLayers(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 92))
	for _, c := range []struct {
		preset   string
		distinct int
	}{
		{"llama-4-scout-17b-16e", 2}, // rotated, NoPE
		{"gemma-3-4b", 2},            // sliding, full
		{"olmo-3-7b-instruct", 2},
		{"smollm3-3b", 2},
		{"gemma-4-e2b", 2},
		{"llama-3.1-8b", 1},
		{"qwen3-vl-8b", 1},
	} {
		m, err := hf.Preset(c.preset)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range dispatchers(t) {
			ls, err := NewLayers(m.Spec, m.NumLayers, WithCacheLen(64), WithDispatcher(d))
			if err != nil {
				t.Fatalf("%s: %v", c.preset, err)
			}
			if ls.NumLayers() != m.NumLayers || ls.Distinct() != c.distinct {
				t.Errorf("%s: %d layers, %d distinct: want %d, %d", c.preset, ls.NumLayers(), ls.Distinct(), m.NumLayers, c.distinct)
			}
			pos := randPositions(rng, 3, 100) // past the cache too
			var cs LayersCosSin
			if err := ls.Gather(posTensor(pos, false), &cs); err != nil {
				t.Fatalf("%s: Gather: %v", c.preset, err)
			}
			for l := range m.NumLayers {
				want, err := m.Spec.ForLayer(l)
				if err != nil {
					t.Fatal(err)
				}
				e, err := ls.Layer(l)
				if err != nil {
					t.Fatalf("%s: Layer(%d): %v", c.preset, l, err)
				}
				got := e.Spec()
				if got.NoRoPE != want.NoRoPE || got.Base != want.Base || got.RotaryDim != want.RotaryDim || got.HeadSize != want.HeadSize {
					t.Errorf("%s layer %d: spec %+v, want %+v", c.preset, l, got, want)
				}
				if qs, _ := m.QueryScaleAt(l); ls.QueryScale(l) != qs {
					t.Errorf("%s layer %d: query scale %+v, want %+v", c.preset, l, ls.QueryScale(l), qs)
				}
				ref := mustNew(t, want, WithCacheLen(64), WithDispatcher(d))
				for _, dt := range []tensor.DType{tensor.F32, tensor.BF16} {
					lay := layout{tokens: 3, heads: 2, headSize: want.HeadSize}
					a := newView(dt, lay, rng)
					b, f := a.clone(), a.clone()
					if err := cs.Apply(l, a.t, tensor.Tensor{}); err != nil {
						t.Fatalf("%s layer %d: Apply: %v", c.preset, l, err)
					}
					if err := ref.Forward(posTensor(pos, false), b.t, tensor.Tensor{}); err != nil {
						t.Fatal(err)
					}
					if err := e.Forward(posTensor(pos, false), f.t, tensor.Tensor{}); err != nil {
						t.Fatal(err)
					}
					if i := sameBits(a, b); i >= 0 {
						t.Errorf("%s %s layer %d %v: Apply differs from New(ForLayer) at %d", c.preset, d.Backend(), l, dt, i)
					}
					if i := sameBits(f, b); i >= 0 {
						t.Errorf("%s %s layer %d %v: Layer().Forward differs from New(ForLayer) at %d", c.preset, d.Backend(), l, dt, i)
					}
				}
			}
		}
	}
}

// TestLayersErrors: bad layer counts and indices are refused with errors naming them; the zero
// and nil values fail without panicking.
func TestLayersErrors(t *testing.T) {
	m, err := hf.Preset("llama-4-scout-17b-16e")
	if err != nil {
		t.Fatal(err)
	}
	for name, n := range map[string]int{"zero": 0, "negative": -1, "more than the rules": m.NumLayers + 1, "fewer": m.NumLayers - 1, "huge": 1 << 40} {
		if ls, err := NewLayers(m.Spec, n); err == nil || ls != nil || !strings.Contains(err.Error(), "layers") {
			t.Errorf("%s (%d): NewLayers = %v, %v: want an error naming the layer count", name, n, ls, err)
		}
	}
	if _, err := NewLayers(Spec{}, 4); !errors.Is(err, ErrSpec) {
		t.Errorf("zero spec: %v, want ErrSpec", err)
	}
	ls, err := NewLayers(m.Spec, m.NumLayers, WithCacheLen(8))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []int{-1, m.NumLayers} {
		if _, err := ls.Layer(l); err == nil || !strings.Contains(err.Error(), "layer") {
			t.Errorf("Layer(%d): %v", l, err)
		}
	}
	pos := tensor.FromI64([]int64{0, 1}, 2)
	q := tensor.FromF32(make([]float32, 2*128), 2, 1, 128)
	var cs LayersCosSin
	if err := cs.Apply(0, q, tensor.Tensor{}); err == nil {
		t.Errorf("Apply before Gather: no error")
	}
	if err := ls.Gather(pos, &cs); err != nil {
		t.Fatal(err)
	}
	if err := cs.Apply(m.NumLayers, q, tensor.Tensor{}); err == nil {
		t.Errorf("Apply past the last layer: no error")
	}
	if err := ls.Gather(pos, nil); err == nil {
		t.Errorf("Gather into nil: no error")
	}
	var zero *Layers
	var zl Layers
	for name, f := range map[string]func() error{
		"nil Layer":     func() error { _, err := zero.Layer(0); return err },
		"zero Layer":    func() error { _, err := zl.Layer(0); return err },
		"nil Gather":    func() error { return zero.Gather(pos, &cs) },
		"zero Gather":   func() error { return zl.Gather(pos, &cs) },
		"nil cs Apply":  func() error { return (*LayersCosSin)(nil).Apply(0, q, tensor.Tensor{}) },
		"zero cs Apply": func() error { return new(LayersCosSin).Apply(0, q, tensor.Tensor{}) },
	} {
		if err := f(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if zero.NumLayers() != 0 || zero.Distinct() != 0 || zero.QueryScale(0) != (QueryScaleRule{}) {
		t.Errorf("nil Layers reports layers")
	}
}

// TestLayersApplyAllocs: the per-layer apply allocates nothing, NoPE layers included.
func TestLayersApplyAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counts in -short mode")
	}
	m, err := hf.Preset("llama-4-scout-17b-16e")
	if err != nil {
		t.Fatal(err)
	}
	ls, err := NewLayers(m.Spec, m.NumLayers, WithCacheLen(64))
	if err != nil {
		t.Fatal(err)
	}
	pos := tensor.FromI64([]int64{0, 1, 2, 3}, 4)
	q := tensor.FromBits(tensor.BF16, make([]uint16, 4*4*128), 4, 4, 128)
	k := tensor.FromBits(tensor.BF16, make([]uint16, 4*1*128), 4, 1, 128)
	var cs LayersCosSin
	if err := ls.Gather(pos, &cs); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(20, func() {
		for l := range 8 {
			if err := cs.Apply(l, q, k); err != nil {
				t.Fatal(err)
			}
		}
	}); n != 0 {
		t.Errorf("Apply over 8 layers: %v allocations", n)
	}
	if n := testing.AllocsPerRun(20, func() {
		if err := ls.Gather(pos, &cs); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("Gather into a grown LayersCosSin: %v allocations", n)
	}
}
