package rotary_test

import (
	"math"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// TestMRoPEAlternateHW checks ERNIE-4.5-VL's rotation on every backend against a float64
// evaluation written from transformers modeling_ernie4_5_vl_moe.py:
// Ernie4_5_VLMoeTextRotaryEmbedding builds inv_freq_3d = cat(inv_freq[:44][0::2],
// inv_freq[:44][1::2], inv_freq[44:]) for mrope_section [22, 22, 20], takes freqs of each
// position row (t, h, w), recomposition_to_3d takes slots 0..21 from h, 22..43 from w, 44..63
// from t, interleaves the h and w halves (stack(h, w).flatten) and repeat_interleaves the 64
// angles; apply_rotary_pos_emb rotates with rotate_half_text (pairs (2i, 2i+1)).
func TestMRoPEAlternateHW(t *testing.T) {
	const headDim, theta, T = 128, 500000.0, 5
	spec := rotary.Spec{HeadSize: headDim, RotaryDim: headDim, Base: theta, Style: rotary.GPTJ, MaxPositions: 4096,
		MRoPE: &rotary.MRoPE{Sections: []int{22, 22, 20}, AlternateHW: true}}
	// Rows t, h, w: different on every axis so that a wrong axis shows.
	pos := []int64{0, 7, 7, 30, 2, 0, 9, 3, 300, 5, 0, 11, 1, 4, 1000}
	x := make([]float32, T*headDim)
	for i := range x {
		x[i] = float32(math.Sin(float64(i)*0.7) * 0.9)
	}
	// The reference, as HF writes it.
	inv := make([]float64, headDim/2)
	for j := range inv {
		inv[j] = 1 / math.Pow(theta, float64(2*j)/headDim)
	}
	inv3d := make([]float64, 0, headDim/2)
	for j := 0; j < 44; j += 2 {
		inv3d = append(inv3d, inv[j])
	}
	for j := 1; j < 44; j += 2 {
		inv3d = append(inv3d, inv[j])
	}
	inv3d = append(inv3d, inv[44:]...)
	want := make([]float64, len(x))
	for k := range T {
		pt, ph, pw := float64(pos[k]), float64(pos[T+k]), float64(pos[2*T+k])
		fh, fw, ft := make([]float64, 22), make([]float64, 22), make([]float64, 20)
		for j := range 22 {
			fh[j] = ph * inv3d[j]
			fw[j] = pw * inv3d[22+j]
		}
		for j := range 20 {
			ft[j] = pt * inv3d[44+j]
		}
		var angles []float64
		for j := range 22 {
			angles = append(angles, fh[j], fw[j])
		}
		angles = append(angles, ft...)
		row := x[k*headDim : (k+1)*headDim]
		for i, a := range angles {
			s, c := math.Sincos(a)
			x0, x1 := float64(row[2*i]), float64(row[2*i+1])
			want[k*headDim+2*i] = x0*c - x1*s
			want[k*headDim+2*i+1] = x1*c + x0*s
		}
	}
	for _, backend := range ops.Backends() {
		d, err := ops.NewDispatcher("", backend)
		if err != nil {
			t.Fatal(err)
		}
		emb, err := rotary.New(spec, rotary.WithDispatcher(d))
		if err != nil {
			t.Fatal(err)
		}
		q := tensor.FromF32(append([]float32(nil), x...), T, 1, headDim)
		if err := emb.Forward(tensor.FromI64(pos, 3, T), q, tensor.Tensor{}); err != nil {
			t.Fatalf("%s: %v", backend, err)
		}
		worst := 0.0
		for i, w := range want {
			worst = max(worst, math.Abs(float64(q.F32[i])-w))
		}
		// F32 outputs are within 2^-20 of the pair's norm (below 1.3 here).
		if worst > 1.3/(1<<20) {
			t.Errorf("%s: largest difference from the float64 formula %g", backend, worst)
		}
	}
}
