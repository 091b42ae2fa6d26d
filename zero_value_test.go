package rotary

import (
	"strings"
	"testing"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// TestZeroAndNilReceivers: every exported method on a nil or zero Embedding or CosSin, and every
// nil pointer argument, returns an error naming it (or a documented zero value), never panics.
func TestZeroAndNilReceivers(t *testing.T) {
	pos := tensor.FromI64([]int64{0, 1}, 2)
	q := tensor.FromF32(make([]float32, 2*64), 2, 1, 64)
	k := tensor.FromF32(make([]float32, 2*64), 2, 1, 64)
	w := tensor.FromF32(make([]float32, 64), 64)
	for _, c := range []struct {
		name string
		e    *Embedding
	}{{"nil Embedding", nil}, {"zero Embedding", &Embedding{}}} {
		e := c.e
		errs := map[string]func() error{
			"Forward":       func() error { return e.Forward(pos, q, k) },
			"ForwardQKNorm": func() error { return e.ForwardQKNorm(pos, q, k, w, w, 1e-6) },
			"Gather":        func() error { return e.Gather(pos, new(CosSin)) },
			"DualChunk":     func() error { return e.DualChunk(pos, q, k, DualChunkQueries{}) },
			"CosSinCache": func() error {
				_, err := e.CosSinCache(4, false)
				return err
			},
		}
		for name, f := range errs {
			noPanic(t, c.name+"."+name, func() {
				if err := f(); err == nil || !strings.Contains(err.Error(), "Embedding") {
					t.Errorf("%s.%s: %v, want an error naming the Embedding", c.name, name, err)
				}
			})
		}
		noPanic(t, c.name+" accessors", func() {
			if e.CacheLen() != 0 || e.AttentionFactor() != 0 || e.InvFreq() != nil || e.LongInvFreq() != nil || e.Spec().HeadSize != 0 {
				t.Errorf("%s: accessors do not return zero values", c.name)
			}
		})
	}

	e := mustNew(t, Spec{HeadSize: 64, RotaryDim: 64, Base: 10000, MaxPositions: 16})
	noPanic(t, "Gather into nil", func() {
		if err := e.Gather(pos, nil); err == nil || !strings.Contains(err.Error(), "dst") {
			t.Errorf("Gather(pos, nil): %v, want an error naming dst", err)
		}
	})
	for _, c := range []struct {
		name string
		cs   *CosSin
	}{{"nil CosSin", nil}, {"zero CosSin", &CosSin{}}} {
		cs := c.cs
		noPanic(t, c.name, func() {
			if err := cs.Apply(q, k); err == nil || !strings.Contains(err.Error(), "cos/sin") {
				t.Errorf("%s.Apply: %v, want an error naming cos/sin", c.name, err)
			}
			if cs.Tokens() != 0 || cs.Cos() != nil || cs.Sin() != nil {
				t.Errorf("%s: accessors do not return zero values", c.name)
			}
		})
	}

	// A nil option and a zero Dispatcher are refused or ignored, never dereferenced.
	noPanic(t, "nil Option", func() {
		if _, err := New(e.Spec(), nil); err != nil {
			t.Errorf("New with a nil option: %v", err)
		}
	})
	noPanic(t, "zero Dispatcher", func() {
		e2, err := New(e.Spec(), WithDispatcher(&ops.Dispatcher{}))
		if err == nil {
			err = e2.Forward(pos, q, k)
		}
		if err == nil {
			err = ApplyRotaryEmb(&ops.Dispatcher{}, ApplyRotaryEmbParams{Layout: ops.BSND, X: tensor.FromF32(make([]float32, 64), 1, 1, 1, 64), Cos: tensor.FromF32(make([]float32, 64), 1, 1, 1, 64), Sin: tensor.FromF32(make([]float32, 64), 1, 1, 1, 64), Style: NeoX})
		}
		_ = err // a zero Dispatcher may serve (as the default) or refuse; it must not panic
	})
}
