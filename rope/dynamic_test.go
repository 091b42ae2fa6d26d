package rope

import (
	"math"
	"strings"
	"testing"
)

// hfDynamicBase is HF transformers' _compute_dynamic_ntk_parameters (modeling_rope_utils.py on
// main): seq_len = max(seq_len, max_position_embeddings), then
// base · (factor·seq_len/max_position_embeddings − (factor − 1))^(d/(d−2)).
// original_max_position_embeddings plays no part.
func hfDynamicBase(base, factor float64, maxPositions, seqLen, d int) float64 {
	L := math.Max(float64(seqLen), float64(maxPositions))
	return base * math.Pow(factor*L/float64(maxPositions)-(factor-1), float64(d)/float64(d-2))
}

// TestDynamicPerCallUsesMaxPositions: the per-call length rule divides by
// max_position_embeddings and only stretches past it, as HF does, even when the config also
// carries original_max_position_embeddings. One token at 8191 of a max-8192 model is plain
// RoPE: pair 63's angle is 8191·10000^(−126/128) = 0.94588 (it was 0.3153, stretched from
// the original 4096).
func TestDynamicPerCallUsesMaxPositions(t *testing.T) {
	s := Spec{HeadSize: 128, RotaryDim: 128, Base: 10000, MaxPositions: 8192, Scaling: Scaling{
		Type: ScalingDynamic, Factor: 2, OriginalMaxPositions: 4096, Dynamic: DynamicPerCall}}
	inv, _ := s.Frequencies(8191)
	if got := 8191 * inv[63]; math.Abs(got-0.94588) > 5e-6 {
		t.Errorf("pair 63 at 8191: angle %.6f, want HF's 0.94588", got)
	}
	for _, maxPos := range []int{0, 4095, 4096, 8191, 8192, 20000, 1 << 20} {
		inv, _ := s.Frequencies(maxPos)
		b := hfDynamicBase(10000, 2, 8192, maxPos+1, 128)
		for i, f := range inv {
			want := 1 / math.Pow(b, float64(2*i)/128)
			if math.Abs(f-want) > 1e-15*want {
				t.Fatalf("max position %d, pair %d: inv_freq %v, want %v", maxPos, i, f, want)
			}
		}
	}
}

// TestDynamicMaxTrained: vLLM's rule since PR #41277 (dynamic_ntk_scaling_rope.py): the base
// stretches by factor·max_position/max_trained_positions − (factor − 1), max_trained_positions
// defaulting to max_position, which makes it plain RoPE.
func TestDynamicMaxTrained(t *testing.T) {
	s := Spec{HeadSize: 64, RotaryDim: 64, Base: 10000, MaxPositions: 8192, Scaling: Scaling{
		Type: ScalingDynamic, Factor: 2, Dynamic: DynamicMaxTrained}}
	plain := Spec{HeadSize: 64, RotaryDim: 64, Base: 10000}
	got, _ := s.Frequencies(-1)
	want, _ := plain.Frequencies(-1)
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("no max_trained_positions, pair %d: %v, want plain RoPE's %v", i, got[i], want[i])
		}
	}
	s.Scaling.MaxTrainedPositions = 2048
	got, _ = s.Frequencies(-1)
	b := 10000 * math.Pow(2*8192.0/2048-1, 64.0/62)
	for i := range got {
		if w := 1 / math.Pow(b, float64(2*i)/64); math.Abs(got[i]-w) > 1e-15*w {
			t.Fatalf("max_trained_positions 2048, pair %d: %v, want %v", i, got[i], w)
		}
	}
	// max_position below max_trained_positions makes the stretch ≤ 0: refused, not NaN.
	s.Scaling.MaxTrainedPositions = 1 << 20
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "max_trained_positions") {
		t.Errorf("max_trained_positions past max_position: %v, want an error naming it", err)
	}
	if DynamicStatic.String() == DynamicMaxTrained.String() || DynamicPerCall.String() == DynamicMaxTrained.String() {
		t.Errorf("the length rules need distinct names")
	}
}
