package rope

import (
	"math"
	"math/rand/v2"
	"testing"
)

// relClose reports whether got is within rel of want (relative), or both are 0.
func relClose(got, want, rel float64) bool {
	if got == want {
		return true
	}
	return math.Abs(got-want) <= rel*math.Abs(want)
}

func randFactors(rng *rand.Rand, n int, lo, hi float64) []float64 {
	f := make([]float64, n)
	for i := range f {
		f[i] = lo + (hi-lo)*rng.Float64()
	}
	return f
}

func llama31() Spec {
	return Spec{HeadSize: 128, RotaryDim: 128, Base: 500000, MaxPositions: 131072, Scaling: Scaling{
		Type: ScalingLlama3, Factor: 8, LowFreqFactor: 1, HighFreqFactor: 4, OriginalMaxPositions: 8192,
	}}
}

func phi3Mini128k(rng *rand.Rand) Spec {
	return Spec{HeadSize: 96, RotaryDim: 96, Base: 10000, MaxPositions: 131072, Scaling: Scaling{
		Type: ScalingLongRoPE, Factor: 32, OriginalMaxPositions: 4096,
		ShortFactor: randFactors(rng, 48, 1, 1.2), LongFactor: randFactors(rng, 48, 1, 60),
	}}
}

// TestFrequenciesVariants compares Spec.Frequencies with the independent float64 evaluation for
// every scaling variant, at the static choice (-1) and at call lengths on both sides of the
// trained length.
func TestFrequenciesVariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := []struct {
		name string
		spec Spec
	}{
		{"default", Spec{HeadSize: 128, RotaryDim: 128, Base: 10000, MaxPositions: 4096}},
		{"default empty type", Spec{HeadSize: 128, RotaryDim: 128, Base: 1e6, MaxPositions: 4096, Scaling: Scaling{Type: ""}}},
		{"default partial", Spec{HeadSize: 256, RotaryDim: 64, Base: 10000, MaxPositions: 2048}},
		{"linear", Spec{HeadSize: 128, RotaryDim: 128, Base: 10000, MaxPositions: 4096, Scaling: Scaling{Type: ScalingLinear, Factor: 4}}},
		{"dynamic static", Spec{HeadSize: 128, RotaryDim: 128, Base: 10000, MaxPositions: 2048, Scaling: Scaling{Type: ScalingDynamic, Factor: 2}}},
		{"dynamic static original", Spec{HeadSize: 80, RotaryDim: 40, Base: 10000, MaxPositions: 8192, Scaling: Scaling{Type: ScalingDynamic, Factor: 3, OriginalMaxPositions: 2048}}},
		{"dynamic per-call", Spec{HeadSize: 128, RotaryDim: 128, Base: 10000, MaxPositions: 2048, Scaling: Scaling{Type: ScalingDynamic, Factor: 2, Dynamic: DynamicPerCall}}},
		{"dynamic per-call original", Spec{HeadSize: 128, RotaryDim: 128, Base: 10000, MaxPositions: 8192, Scaling: Scaling{Type: ScalingDynamic, Factor: 2, OriginalMaxPositions: 4096, Dynamic: DynamicPerCall}}},
		{"dynamic max-trained", Spec{HeadSize: 96, RotaryDim: 96, Base: 10000, MaxPositions: 8192, Scaling: Scaling{Type: ScalingDynamic, Factor: 3, MaxTrainedPositions: 2048, Dynamic: DynamicMaxTrained}}},
		{"ntk alpha", Spec{HeadSize: 128, RotaryDim: 128, Base: 10000, MaxPositions: 32768, Scaling: Scaling{Type: ScalingNTKAlpha, Alpha: 1000}}},
		{"yarn qwen", Spec{HeadSize: 128, RotaryDim: 128, Base: 1e6, MaxPositions: 131072, Scaling: Scaling{Type: ScalingYaRN, Factor: 4, OriginalMaxPositions: 32768}}},
		{"yarn deepseek", Spec{HeadSize: 64, RotaryDim: 64, Base: 10000, Style: GPTJ, MaxPositions: 163840, Scaling: Scaling{
			Type: ScalingYaRN, Factor: 40, OriginalMaxPositions: 4096, BetaFast: 32, BetaSlow: 1, Mscale: 1, MscaleAllDim: 1}}},
		{"yarn mscale", Spec{HeadSize: 64, RotaryDim: 64, Base: 10000, MaxPositions: 163840, Scaling: Scaling{
			Type: ScalingYaRN, Factor: 40, OriginalMaxPositions: 4096, Mscale: 0.707, MscaleAllDim: 1}}},
		{"yarn gpt-oss", Spec{HeadSize: 64, RotaryDim: 64, Base: 150000, MaxPositions: 131072, Scaling: Scaling{
			Type: ScalingYaRN, Factor: 32, OriginalMaxPositions: 4096, BetaFast: 32, BetaSlow: 1, NoTruncate: true}}},
		{"yarn attention override", Spec{HeadSize: 64, RotaryDim: 64, Base: 10000, MaxPositions: 16384, Scaling: Scaling{
			Type: ScalingYaRN, Factor: 4, OriginalMaxPositions: 4096, AttentionFactor: 0.75, Mscale: 1, MscaleAllDim: 0.5}}},
		{"yarn betas", Spec{HeadSize: 128, RotaryDim: 96, Base: 10000, MaxPositions: 16384, Scaling: Scaling{
			Type: ScalingYaRN, Factor: 8, OriginalMaxPositions: 2048, BetaFast: 16, BetaSlow: 2}}},
		{"yarn factor 1", Spec{HeadSize: 64, RotaryDim: 64, Base: 10000, MaxPositions: 4096, Scaling: Scaling{Type: ScalingYaRN, Factor: 1}}},
		{"yarn empty range", Spec{HeadSize: 8, RotaryDim: 8, Base: 10000, MaxPositions: 64, Scaling: Scaling{Type: ScalingYaRN, Factor: 4, BetaFast: 2, BetaSlow: 2, NoTruncate: true}}},
		{"llama3.1", llama31()},
		{"llama3.2 partial", Spec{HeadSize: 64, RotaryDim: 64, Base: 500000, MaxPositions: 131072, Scaling: Scaling{
			Type: ScalingLlama3, Factor: 32, LowFreqFactor: 1, HighFreqFactor: 4, OriginalMaxPositions: 8192}}},
		{"llama4 high = low", Spec{HeadSize: 128, RotaryDim: 128, Base: 500000, MaxPositions: 131072, Scaling: Scaling{
			Type: ScalingLlama3, Factor: 16, LowFreqFactor: 1, HighFreqFactor: 1, OriginalMaxPositions: 8192}}},
		{"longrope phi3", phi3Mini128k(rng)},
		{"longrope override", Spec{HeadSize: 64, RotaryDim: 32, Base: 10000, MaxPositions: 1024, Scaling: Scaling{
			Type: ScalingLongRoPE, Factor: 4, OriginalMaxPositions: 256, AttentionFactor: 1.25,
			ShortFactor: randFactors(rng, 16, 1, 2), LongFactor: randFactors(rng, 16, 1, 8)}}},
		{"longrope factor ≤ 1", Spec{HeadSize: 64, RotaryDim: 64, Base: 10000, MaxPositions: 1024, Scaling: Scaling{
			Type: ScalingLongRoPE, Factor: 1, OriginalMaxPositions: 1024,
			ShortFactor: randFactors(rng, 32, 1, 2), LongFactor: randFactors(rng, 32, 1, 8)}}},
	}
	for _, c := range cases {
		if err := c.spec.Validate(); err != nil {
			t.Fatalf("%s: Validate: %v", c.name, err)
		}
		M := refOriginal(c.spec)
		for _, maxPos := range []int{-1, 0, 100, M - 1, M, M + 1, 3*M + 17} {
			got, gotAtt := c.spec.Frequencies(maxPos)
			want, wantAtt := refFrequencies(c.spec, maxPos)
			if len(got) != c.spec.RotaryDim/2 {
				t.Fatalf("%s: %d frequencies, want %d", c.name, len(got), c.spec.RotaryDim/2)
			}
			if !relClose(gotAtt, wantAtt, 1e-15) {
				t.Errorf("%s (max pos %d): attention %v, want %v", c.name, maxPos, gotAtt, wantAtt)
			}
			for i := range got {
				if !relClose(got[i], want[i], 1e-13) {
					t.Errorf("%s (max pos %d): inv_freq[%d] = %v, want %v", c.name, maxPos, i, got[i], want[i])
				}
			}
		}
	}
}

// TestLlama31Published checks Llama 3.1's frequencies (base 500000, d 128, factor 8, low 1,
// high 4, original 8192) at pairs worked out by hand: wavelengths below 8192/4 = 2048 keep their
// frequency (pairs 0..28), past 8192/1 are divided by 8 (pairs 35..63), and pairs 29..34 blend
// with smooth = (8192/wavelen − 1)/3.
func TestLlama31Published(t *testing.T) {
	inv, att := llama31().Frequencies(-1)
	if att != 1 {
		t.Errorf("attention %v, want 1", att)
	}
	g := func(i int) float64 { return math.Pow(500000, float64(i)/64) }
	for i := 0; i <= 28; i++ {
		if !relClose(inv[i], 1/g(i), 1e-14) {
			t.Errorf("high-frequency pair %d: %v, want unchanged %v", i, inv[i], 1/g(i))
		}
	}
	for i := 35; i < 64; i++ {
		if !relClose(inv[i], 1/g(i)/8, 1e-14) {
			t.Errorf("low-frequency pair %d: %v, want %v / 8", i, inv[i], 1/g(i))
		}
	}
	// Pair 32: inv = 500000^-0.5 = 1/707.1067811865476, wavelength 2π·707.107 = 4442.88,
	// smooth = (8192/4442.88 − 1)/3 = 0.281284, inv' = inv·((1 − smooth)/8 + smooth).
	f32 := 1 / math.Sqrt(500000)
	wl := 2 * math.Pi / f32
	smooth := (8192/wl - 1) / 3
	if math.Abs(smooth-0.2812826) > 1e-7 {
		t.Fatalf("hand computation of smooth: %v", smooth)
	}
	hand := map[int]float64{
		0:  1,
		28: 0.0032114459947525913,
		29: 0.002166570763503359,
		32: f32 * ((1-smooth)/8 + smooth),
		34: 0.00017850781276799638,
		35: 9.556212353964683e-05,
		63: 3.068925988914511e-07,
	}
	if !relClose(hand[32], 0.0005248461609929547, 1e-14) {
		t.Fatalf("hand computation of pair 32: %v", hand[32])
	}
	for i, want := range hand {
		if !relClose(inv[i], want, 1e-14) {
			t.Errorf("pair %d: %v, want %v", i, inv[i], want)
		}
	}
	// The blend is strictly between the two limits.
	for i := 29; i <= 34; i++ {
		if !(inv[i] < 1/g(i) && inv[i] > 1/g(i)/8) {
			t.Errorf("middle pair %d: %v not strictly between %v/8 and %v", i, inv[i], 1/g(i), 1/g(i))
		}
	}
}

// TestYaRNAttentionPublished checks published attention factors: 0.1·ln(s) + 1 by default,
// DeepSeek's mscale = mscale_all_dim = 1 cancelling to 1, the override winning.
func TestYaRNAttentionPublished(t *testing.T) {
	yarn := func(sc Scaling) float64 {
		sc.Type = ScalingYaRN
		if sc.OriginalMaxPositions == 0 {
			sc.OriginalMaxPositions = 4096
		}
		s := Spec{HeadSize: 64, RotaryDim: 64, Base: 10000, MaxPositions: 4096, Scaling: sc}
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		_, att := s.Frequencies(-1)
		return att
	}
	for _, c := range []struct {
		name string
		sc   Scaling
		want float64
	}{
		{"s=40", Scaling{Factor: 40}, 1.3688879454113936},
		{"s=4", Scaling{Factor: 4}, 1.1386294361119891},
		{"s=1", Scaling{Factor: 1}, 1},
		{"s=0.5", Scaling{Factor: 0.5}, 1},
		{"deepseek mscale 1/1", Scaling{Factor: 40, Mscale: 1, MscaleAllDim: 1}, 1},
		{"mscale only (ignored without mscale_all_dim)", Scaling{Factor: 40, Mscale: 0.707}, 1.3688879454113936},
		{"mscale 0.707 / 1", Scaling{Factor: 40, Mscale: 0.707, MscaleAllDim: 1}, (0.0707*math.Log(40) + 1) / 1.3688879454113936},
		{"override", Scaling{Factor: 40, AttentionFactor: 1.5, Mscale: 1, MscaleAllDim: 1}, 1.5},
	} {
		if got := yarn(c.sc); !relClose(got, c.want, 1e-15) {
			t.Errorf("%s: attention %v, want %v", c.name, got, c.want)
		}
	}
}

// TestYaRNCorrectionRange works one correction range out by hand: base 10000, d 128, original
// 4096, betas 32/1 give low = 128·ln(4096/(64π))/(2 ln 10000) = 20.944 and
// high = 128·ln(4096/(2π))/(2 ln 10000) = 45.027; truncated to [20, 46].
func TestYaRNCorrectionRange(t *testing.T) {
	s := Spec{HeadSize: 128, RotaryDim: 128, Base: 10000, MaxPositions: 16384, Scaling: Scaling{
		Type: ScalingYaRN, Factor: 4, OriginalMaxPositions: 4096}}
	g := func(i int) float64 { return math.Pow(10000, float64(i)/64) }
	lowExact := 128 * math.Log(4096/(32*2*math.Pi)) / (2 * math.Log(10000))
	highExact := 128 * math.Log(4096/(2*math.Pi)) / (2 * math.Log(10000))
	if math.Abs(lowExact-20.944) > 1e-3 || math.Abs(highExact-45.027) > 1e-3 {
		t.Fatalf("hand correction range %v %v", lowExact, highExact)
	}
	for _, trunc := range []bool{true, false} {
		s.Scaling.NoTruncate = !trunc
		inv, att := s.Frequencies(-1)
		if !relClose(att, 0.1*math.Log(4)+1, 1e-15) {
			t.Errorf("attention %v", att)
		}
		low, high := 20.0, 46.0
		if !trunc {
			low, high = lowExact, highExact
		}
		for i := range 64 {
			ramp := math.Min(math.Max((float64(i)-low)/(high-low), 0), 1)
			want := (1/g(i))*(1-ramp) + (1/(4*g(i)))*ramp
			if !relClose(inv[i], want, 1e-13) {
				t.Errorf("truncate=%v pair %d: %v, want %v", trunc, i, inv[i], want)
			}
			switch {
			case float64(i) <= low && inv[i] != 1/g(i) && !relClose(inv[i], 1/g(i), 1e-15):
				t.Errorf("truncate=%v pair %d below the range: want pure extrapolation", trunc, i)
			case float64(i) >= high && !relClose(inv[i], 1/(4*g(i)), 1e-15):
				t.Errorf("truncate=%v pair %d above the range: want pure interpolation", trunc, i)
			}
		}
	}
	// Truncation matters at the range's edges.
	s.Scaling.NoTruncate = false
	a, _ := s.Frequencies(-1)
	s.Scaling.NoTruncate = true
	b, _ := s.Frequencies(-1)
	if relClose(a[21], b[21], 1e-6) || relClose(a[45], b[45], 1e-6) {
		t.Errorf("truncate made no difference at pairs 21/45: %v %v / %v %v", a[21], b[21], a[45], b[45])
	}
}

// TestLongRoPEPublished: Phi-3-mini-128k's attention factor √(1 + ln 32 / ln 4096) and the
// switch to the long factors at positions ≥ original.
func TestLongRoPEPublished(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	s := phi3Mini128k(rng)
	const want = 1.1902380714238083 // √(17/12)
	if !relClose(want, math.Sqrt(17.0/12), 1e-15) {
		t.Fatal("hand value")
	}
	for _, maxPos := range []int{-1, 0, 4095, 4096, 100000} {
		inv, att := s.Frequencies(maxPos)
		if !relClose(att, want, 1e-15) {
			t.Errorf("max pos %d: attention %v, want %v", maxPos, att, want)
		}
		ext := s.Scaling.ShortFactor
		if maxPos >= 4096 {
			ext = s.Scaling.LongFactor
		}
		for i := range inv {
			w := 1 / (ext[i] * math.Pow(10000, float64(2*i)/96))
			if !relClose(inv[i], w, 1e-14) {
				t.Errorf("max pos %d pair %d: %v, want %v", maxPos, i, inv[i], w)
			}
		}
	}
}

// TestDynamicPublished: the static length is factor·M (vLLM), the per-call length
// max(maxPos+1, M) (HF), so per-call equals default up to the trained length.
func TestDynamicPublished(t *testing.T) {
	s := Spec{HeadSize: 128, RotaryDim: 128, Base: 10000, MaxPositions: 2048, Scaling: Scaling{Type: ScalingDynamic, Factor: 2}}
	// Static: base' = 10000 · (2·(2·2048)/2048 − 1)^(128/126) = 10000 · 3^(64/63).
	base := 10000 * math.Pow(3, 64.0/63)
	inv, _ := s.Frequencies(-1)
	for i := range inv {
		if w := 1 / math.Pow(base, float64(i)/64); !relClose(inv[i], w, 1e-13) {
			t.Errorf("static pair %d: %v, want %v", i, inv[i], w)
		}
	}
	s.Scaling.Dynamic = DynamicPerCall
	def := Spec{HeadSize: 128, RotaryDim: 128, Base: 10000}
	wantDef, _ := def.Frequencies(-1)
	for _, maxPos := range []int{-1, 0, 2047} {
		got, _ := s.Frequencies(maxPos)
		for i := range got {
			if !relClose(got[i], wantDef[i], 1e-15) {
				t.Errorf("per-call max pos %d pair %d: %v, want the default %v", maxPos, i, got[i], wantDef[i])
			}
		}
	}
	// maxPos 4095: L = 4096, base' = 10000 · (2·2 − 1)^(64/63), the static value.
	got, _ := s.Frequencies(4095)
	for i := range got {
		if !relClose(got[i], inv[i], 1e-13) {
			t.Errorf("per-call at L = factor·M pair %d: %v, want the static %v", i, got[i], inv[i])
		}
	}
	// One past the trained length already changes the low frequencies.
	g1, _ := s.Frequencies(2048)
	if g1[63] == wantDef[63] || g1[0] != 1 {
		t.Errorf("per-call at 2048: pair 63 %v (default %v), pair 0 %v", g1[63], wantDef[63], g1[0])
	}
}

// TestNTKAlphaPublished: base' = base·α^(d/(d−2)).
func TestNTKAlphaPublished(t *testing.T) {
	s := Spec{HeadSize: 128, RotaryDim: 128, Base: 10000, MaxPositions: 32768, Scaling: Scaling{Type: ScalingNTKAlpha, Alpha: 1000}}
	inv, att := s.Frequencies(-1)
	base := 10000 * math.Pow(1000, 128.0/126)
	if att != 1 {
		t.Errorf("attention %v", att)
	}
	for i := range inv {
		if w := math.Pow(base, -float64(i)/64); !relClose(inv[i], w, 1e-13) {
			t.Errorf("pair %d: %v, want %v", i, inv[i], w)
		}
	}
}

func TestDefaultCacheLen(t *testing.T) {
	base := Spec{HeadSize: 64, RotaryDim: 64, Base: 10000, MaxPositions: 4096}
	for _, c := range []struct {
		name string
		mod  func(*Spec)
		want int
	}{
		{"default", func(*Spec) {}, 4096},
		{"linear", func(s *Spec) { s.Scaling = Scaling{Type: ScalingLinear, Factor: 4} }, 4096},
		{"dynamic", func(s *Spec) { s.Scaling = Scaling{Type: ScalingDynamic, Factor: 4} }, 16384},
		{"yarn", func(s *Spec) { s.Scaling = Scaling{Type: ScalingYaRN, Factor: 4, OriginalMaxPositions: 2048} }, 8192},
		{"dual chunk", func(s *Spec) { s.DualChunk = &DualChunk{ChunkSize: 8192, LocalSize: 128} }, 8192},
	} {
		s := base
		c.mod(&s)
		if got := s.DefaultCacheLen(); got != c.want {
			t.Errorf("%s: DefaultCacheLen %d, want %d", c.name, got, c.want)
		}
	}
}
