package multimodal

import (
	"errors"
	"math"
	"math/cmplx"
	"reflect"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/tensor"
)

// TestQwen2VisionPositionsOrder: grid (1, 4, 4) with merge 2, written out by hand. The
// 4×4 patches form four 2×2 merge windows, visited row-major (window (0,0), (0,1), (1,0),
// (1,1)), and inside each window row-major.
func TestQwen2VisionPositionsOrder(t *testing.T) {
	got, err := Qwen2VisionPositions([][3]int64{{1, 4, 4}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]int64{
		{0, 0}, {0, 1}, {1, 0}, {1, 1}, // window (0, 0)
		{0, 2}, {0, 3}, {1, 2}, {1, 3}, // window (0, 1)
		{2, 0}, {2, 1}, {3, 0}, {3, 1}, // window (1, 0)
		{2, 2}, {2, 3}, {3, 2}, {3, 3}, // window (1, 1)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
	// t = 2 repeats the frame; a second grid follows; merge 1 is plain row-major.
	got, err = Qwen2VisionPositions([][3]int64{{2, 2, 2}, {1, 2, 4}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	want = [][2]int64{
		{0, 0}, {0, 1}, {1, 0}, {1, 1},
		{0, 0}, {0, 1}, {1, 0}, {1, 1},
		{0, 0}, {0, 1}, {1, 0}, {1, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
	got, _ = Qwen2VisionPositions([][3]int64{{1, 2, 3}}, 1)
	if want := [][2]int64{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}}; !reflect.DeepEqual(got, want) {
		t.Errorf("merge 1: got %v, want %v", got, want)
	}
}

func TestVisionErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
	}{
		{"odd grid", func() error { _, err := Qwen2VisionPositions([][3]int64{{1, 3, 4}}, 2); return err }()},
		{"negative", func() error { _, err := Qwen2VisionPositions([][3]int64{{1, -4, 4}}, 2); return err }()},
		{"merge 0", func() error { _, err := Qwen2VisionPositions([][3]int64{{1, 4, 4}}, 0); return err }()},
		{"head dim", func() error { _, err := Qwen2VisionCosSin([][3]int64{{1, 4, 4}}, 2, 10, 0); return err }()},
		{"theta", func() error { _, err := Qwen2VisionCosSin([][3]int64{{1, 4, 4}}, 2, 8, -1); return err }()},
		{"llama4 patch", func() error { _, err := Llama4VisionCosSin(4, 0, 8, 0); return err }()},
		{"llama4 head dim", func() error { _, err := Llama4VisionCosSin(4, 2, 6, 0); return err }()},
		{"too many patches", func() error {
			_, err := Qwen2VisionPositions([][3]int64{{1 << 10, 1 << 10, 1 << 10}}, 2)
			return err
		}()},
	} {
		if !errors.Is(c.err, ErrVision) {
			t.Errorf("%s: error %v, want ErrVision", c.name, c.err)
		}
	}
}

// TestQwen2VisionCosSin checks the table against a float64 evaluation of HF's recipe for
// head_dim 8: VisionRotaryEmbedding(dim 4) has inv_freq [1, 1/theta^(2/4)], a patch at
// (h, w) has angles [h, h·inv1, w, w·inv1], and emb = cat(angles, angles).
func TestQwen2VisionCosSin(t *testing.T) {
	const theta = 10000.0
	grid := [][3]int64{{1, 4, 4}}
	cs, err := Qwen2VisionCosSin(grid, 2, 8, 0)
	if err != nil {
		t.Fatal(err)
	}
	pos, _ := Qwen2VisionPositions(grid, 2)
	if cs.Tokens != 16 || cs.Dim != 8 || cs.Style != rotary.NeoX {
		t.Fatalf("table %d×%d %v", cs.Tokens, cs.Dim, cs.Style)
	}
	inv1 := 1 / math.Pow(theta, 0.5)
	for k, p := range pos {
		h, w := float64(p[0]), float64(p[1])
		angles := []float64{h, h * inv1, w, w * inv1}
		emb := append(append([]float64(nil), angles...), angles...)
		for j, a := range emb {
			if got, want := cs.Cos[k*8+j], float32(math.Cos(a)); got != want {
				t.Errorf("patch %d (%v) cos[%d] = %v, want %v", k, p, j, got, want)
			}
			if got, want := cs.Sin[k*8+j], float32(math.Sin(a)); got != want {
				t.Errorf("patch %d (%v) sin[%d] = %v, want %v", k, p, j, got, want)
			}
		}
	}
}

// TestQwen2VisionApply: rotating q [T, H, D] matches apply_rotary_pos_emb_vision,
// q·cos + rotate_half(q)·sin, evaluated in float64.
func TestQwen2VisionApply(t *testing.T) {
	grid := [][3]int64{{2, 2, 4}}
	const H, D = 3, 16
	cs, err := Qwen2VisionCosSin(grid, 2, D, 0)
	if err != nil {
		t.Fatal(err)
	}
	T := cs.Tokens
	q := pseudoRandom(T*H*D, 1)
	k := pseudoRandom(T*D, 2)
	q0, k0 := append([]float32(nil), q...), append([]float32(nil), k...)
	if err := cs.Apply(nil, tensor.FromF32(q, T, H, D), tensor.FromF32(k, T, D)); err != nil {
		t.Fatal(err)
	}
	check := func(name string, got, x []float32, rows int) {
		for r := range rows {
			tok := r * T / rows
			c, s := cs.Cos[tok*D:(tok+1)*D], cs.Sin[tok*D:(tok+1)*D]
			for j := range D {
				var rot float64
				if j < D/2 {
					rot = -float64(x[r*D+j+D/2])
				} else {
					rot = float64(x[r*D+j-D/2])
				}
				want := float64(x[r*D+j])*float64(c[j]) + rot*float64(s[j])
				if d := math.Abs(float64(got[r*D+j]) - want); d > 1e-6 {
					t.Errorf("%s row %d [%d]: %v, want %v", name, r, j, got[r*D+j], want)
				}
			}
		}
	}
	check("q", q, q0, T*H)
	check("k", k, k0, T)

	// A bad tensor anywhere in the list leaves every tensor unchanged.
	q1 := append([]float32(nil), q...)
	if err := cs.Apply(nil, tensor.FromF32(q, T, H, D), tensor.FromF32(k, T+1, D)); err == nil {
		t.Error("Apply accepted a tensor with the wrong token count")
	}
	if !reflect.DeepEqual(q, q1) {
		t.Error("Apply wrote q before rejecting k")
	}
}

// TestLlama4VisionCosSin compares Llama4VisionCosSin with an independent float64
// evaluation of HF's freqs_ci for a 6×6 image of 2×2 patches (idx 3, 9 patches + CLS) and
// head_dim 8: freq_dim 4, rope_freq [1, 1/theta^(2/4)], patch k at x = k%3, y = k/3 has
// angles [(x+1), (x+1)·rope_freq_1, (y+1), (y+1)·rope_freq_1], freqs_ci = e^{i·angle},
// the CLS row (last) angle 0. Rotating q multiplies each element pair (2i, 2i+1), read as
// a complex number, by freqs_ci[i].
func TestLlama4VisionCosSin(t *testing.T) {
	const theta, D, H = 10000.0, 8, 2
	cs, err := Llama4VisionCosSin(6, 2, D, theta)
	if err != nil {
		t.Fatal(err)
	}
	if cs.Tokens != 10 || cs.Dim != D || cs.Style != rotary.GPTJ {
		t.Fatalf("table %d×%d %v", cs.Tokens, cs.Dim, cs.Style)
	}
	ropeFreq := []float64{1, math.Pow(theta, -2.0/4)}
	freqsCi := make([][]complex128, cs.Tokens)
	for k := range cs.Tokens {
		x, y := float64(k%3+1), float64(k/3+1)
		angles := []float64{x * ropeFreq[0], x * ropeFreq[1], y * ropeFreq[0], y * ropeFreq[1]}
		if k == 9 {
			angles = []float64{0, 0, 0, 0}
		}
		for _, a := range angles {
			freqsCi[k] = append(freqsCi[k], cmplx.Exp(complex(0, a)))
		}
	}
	for k := range cs.Tokens {
		for i, f := range freqsCi[k] {
			for _, j := range []int{2 * i, 2*i + 1} {
				if d := math.Abs(float64(cs.Cos[k*D+j]) - real(f)); d > 1e-7 {
					t.Errorf("token %d cos[%d] = %v, want %v", k, j, cs.Cos[k*D+j], real(f))
				}
				if d := math.Abs(float64(cs.Sin[k*D+j]) - imag(f)); d > 1e-7 {
					t.Errorf("token %d sin[%d] = %v, want %v", k, j, cs.Sin[k*D+j], imag(f))
				}
			}
		}
	}
	// The CLS row is exactly the identity.
	for j := range D {
		if cs.Cos[9*D+j] != 1 || cs.Sin[9*D+j] != 0 {
			t.Errorf("CLS cos/sin[%d] = %v, %v, want 1, 0", j, cs.Cos[9*D+j], cs.Sin[9*D+j])
		}
	}

	q := pseudoRandom(cs.Tokens*H*D, 3)
	q0 := append([]float32(nil), q...)
	if err := cs.Apply(nil, tensor.FromF32(q, cs.Tokens, H, D)); err != nil {
		t.Fatal(err)
	}
	for k := range cs.Tokens {
		for h := range H {
			row := (k*H + h) * D
			for i, f := range freqsCi[k] {
				want := complex(float64(q0[row+2*i]), float64(q0[row+2*i+1])) * f
				got := complex(float64(q[row+2*i]), float64(q[row+2*i+1]))
				if cmplx.Abs(got-want) > 1e-6 {
					t.Errorf("token %d head %d pair %d: %v, want %v", k, h, i, got, want)
				}
			}
		}
	}
	if !reflect.DeepEqual(q[9*H*D:], q0[9*H*D:]) {
		t.Error("the CLS token changed")
	}
}

// TestLlama4VisionRealSize: the published config (image 336, patch 14, 1408/16 = 88)
// gives 24² + 1 = 577 tokens.
func TestLlama4VisionRealSize(t *testing.T) {
	cs, err := Llama4VisionCosSin(336, 14, 88, 10000)
	if err != nil {
		t.Fatal(err)
	}
	if cs.Tokens != 577 || len(cs.Cos) != 577*88 {
		t.Errorf("tokens %d, len %d", cs.Tokens, len(cs.Cos))
	}
	// Patch 25 is x = 1, y = 1 → 1-based (2, 2): pair 0 angle 2 for x, pair 22 angle 2 for y.
	if c := cs.Cos[25*88]; c != float32(math.Cos(2)) {
		t.Errorf("patch 25 pair 0 cos %v, want cos(2)", c)
	}
	if c := cs.Cos[25*88+44]; c != float32(math.Cos(2)) {
		t.Errorf("patch 25 pair 22 cos %v, want cos(2)", c)
	}
}

// pseudoRandom makes deterministic values in (-2, 2).
func pseudoRandom(n int, seed uint64) []float32 {
	v := make([]float32, n)
	x := seed*0x9E3779B97F4A7C15 + 1
	for i := range v {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		v[i] = float32(int64(x>>40)-(1<<23)) / (1 << 22)
	}
	return v
}
