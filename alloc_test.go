package rotary

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rotary-go/rotary/tensor"
)

// TestForwardAllocs: the hot path (Forward with positions the cache holds, and CosSin.Apply)
// does not allocate.
func TestForwardAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counts in -short mode")
	}
	rng := rand.New(rand.NewPCG(60, 61))
	llama := Spec{HeadSize: 128, RotaryDim: 128, Base: 500000, MaxPositions: 4096, Scaling: Scaling{
		Type: ScalingLlama3, Factor: 8, LowFreqFactor: 1, HighFreqFactor: 4, OriginalMaxPositions: 8192}}
	qwenVL := Spec{HeadSize: 128, RotaryDim: 128, Base: 1e6, MaxPositions: 4096, MRoPE: &MRoPE{Sections: []int{24, 20, 20}, Interleaved: true}}
	for _, c := range []struct {
		name   string
		spec   Spec
		tokens int
		mrope  bool
	}{
		{"llama 1 token", llama, 1, false},
		{"llama 16 tokens", llama, 16, false},
		{"qwen3-vl text 16 tokens", qwenVL, 16, false},
		{"qwen3-vl 3-D 16 tokens", qwenVL, 16, true},
	} {
		e := mustNew(t, c.spec)
		q := newView(tensor.F32, layout{tokens: c.tokens, heads: 32, headSize: 128}, rng).t
		k := newView(tensor.F32, layout{tokens: c.tokens, heads: 8, headSize: 128}, rng).t
		pos := posTensor(randPositions(rng, c.tokens, 4096), false)
		if c.mrope {
			pos = tensor.FromI64(randPositions(rng, 3*c.tokens, 4096), 3, c.tokens)
		}
		if n := testing.AllocsPerRun(20, func() {
			if err := e.Forward(pos, q, k); err != nil {
				panic(err)
			}
		}); n != 0 {
			t.Errorf("%s: Forward allocates %v times per call", c.name, n)
		}
		var cs CosSin
		if err := e.Gather(pos, &cs); err != nil {
			t.Fatal(err)
		}
		if n := testing.AllocsPerRun(20, func() {
			if err := cs.Apply(q, k); err != nil {
				panic(err)
			}
		}); n != 0 {
			t.Errorf("%s: CosSin.Apply allocates %v times per call", c.name, n)
		}
		// Re-gathering into a grown CosSin does not allocate either.
		if n := testing.AllocsPerRun(20, func() {
			if err := e.Gather(pos, &cs); err != nil {
				panic(err)
			}
		}); n != 0 {
			t.Errorf("%s: Gather into a grown CosSin allocates %v times per call", c.name, n)
		}
	}
}

func BenchmarkForward(b *testing.B) {
	rng := rand.New(rand.NewPCG(62, 63))
	e := mustNew(b, Spec{HeadSize: 128, RotaryDim: 128, Base: 500000, MaxPositions: 4096})
	for _, tokens := range []int{1, 16} {
		q := newView(tensor.BF16, layout{tokens: tokens, heads: 32, headSize: 128}, rng).t
		k := newView(tensor.BF16, layout{tokens: tokens, heads: 8, headSize: 128}, rng).t
		pos := posTensor(randPositions(rng, tokens, 4096), false)
		b.Run(fmt.Sprintf("bf16/%d", tokens), func(b *testing.B) {
			b.SetBytes(int64(2 * 2 * tokens * 40 * 128))
			b.ReportAllocs()
			for b.Loop() {
				if err := e.Forward(pos, q, k); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestForwardQKNormAllocs: ForwardQKNorm on bf16 Qwen3 heads does not allocate, including
// when a head goes back from the fused kernel to the exact path (an exact zero in it).
func TestForwardQKNormAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counts in -short mode")
	}
	rng := rand.New(rand.NewPCG(62, 63))
	e := mustNew(t, Spec{HeadSize: 128, RotaryDim: 128, Base: 1e6, MaxPositions: 4096})
	q := newView(tensor.BF16, layout{tokens: 16, heads: 32, headSize: 128}, rng).t
	k := newView(tensor.BF16, layout{tokens: 16, heads: 8, headSize: 128}, rng).t
	w := tensor.Zeros(tensor.BF16, 128)
	for i := range w.Bits {
		w.Bits[i] = tensor.BF16FromFloat32(1 + float32(i)/128)
	}
	q.Bits[q.Offset+5*128+3] = 0
	pos := posTensor(randPositions(rng, 16, 4096), false)
	if n := testing.AllocsPerRun(20, func() {
		if err := e.ForwardQKNorm(pos, q, k, w, w, 1e-6); err != nil {
			panic(err)
		}
	}); n != 0 {
		t.Errorf("ForwardQKNorm allocates %v times per call", n)
	}
}
