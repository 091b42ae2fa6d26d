package rope

import (
	"math"
	"testing"
)

// TestStaticNTK checks vLLM's static NTK (vllm/model_executor/layers/rotary_embedding/
// ntk_scaling_rope.py at 03587f553db4139402cc19f424c488c8e2fe25d1,
// NTKScalingRotaryEmbedding._compute_inv_freq) against the closed forms, evaluated in log
// space rather than in the order the code takes:
//
//	fixed:  (base·f)^(−2i/d) / f^(2/d) = exp(−(2i/d)·ln base − ((2i+2)/d)·ln f)
//	mixed:  base^(−2i/d) / exp(a·m^b), a = ln f/(d/2)^b, m = i+1
//	        = exp(−(2i/d)·ln base − ln f·(m/(d/2))^b)
func TestStaticNTK(t *testing.T) {
	const base, f = 10000.0, 8.0
	for _, d := range []int{64, 128, 96} {
		for _, c := range []struct {
			name  string
			mixed bool
			b     float64
		}{{"fixed", false, 0}, {"mixed b=0.75", true, 0.75}, {"mixed b=2", true, 2}, {"mixed b=0", true, 0}} {
			s := Spec{HeadSize: d, RotaryDim: d, Base: base, MaxPositions: 4096, Style: NeoX,
				Scaling: Scaling{Type: ScalingNTK, Factor: f, NTKMixed: c.mixed, MixedB: c.b}}
			if err := s.Validate(); err != nil {
				t.Fatalf("d %d %s: %v", d, c.name, err)
			}
			inv, attn := s.Frequencies(-1)
			if attn != 1 {
				t.Errorf("d %d %s: attention factor %v, want 1", d, c.name, attn)
			}
			for i, got := range inv {
				e := -float64(2*i) / float64(d) * math.Log(base)
				if c.mixed {
					e -= math.Log(f) * math.Pow(float64(i+1)/float64(d/2), c.b)
				} else {
					e -= float64(2*i+2) / float64(d) * math.Log(f)
				}
				want := math.Exp(e)
				if math.Abs(got-want) > 1e-13*want {
					t.Errorf("d %d %s: inv_freq[%d] = %.17g, want %.17g", d, c.name, i, got, want)
				}
			}
			// Both forms stretch the lowest frequency by exactly f.
			last := math.Pow(base, -float64(d-2)/float64(d)) / f
			if n := len(inv) - 1; math.Abs(inv[n]-last) > 1e-14*last {
				t.Errorf("d %d %s: inv_freq[%d] = %v, want plain/f = %v", d, c.name, n, inv[n], last)
			}
			if n := s.DefaultCacheLen(); n != 4096 {
				t.Errorf("d %d %s: cache %d rows, want max_position_embeddings 4096 (vLLM's base RotaryEmbedding)", d, c.name, n)
			}
		}
	}
	bad := Spec{HeadSize: 64, RotaryDim: 64, Base: base, MaxPositions: 4096, Scaling: Scaling{Type: ScalingNTK}}
	if bad.Validate() == nil {
		t.Errorf("ntk without factor: valid")
	}
	bad.Scaling = Scaling{Type: ScalingNTK, Factor: 2, NTKMixed: true, MixedB: math.NaN()}
	if bad.Validate() == nil {
		t.Errorf("ntk mixed_b NaN: valid")
	}
}
