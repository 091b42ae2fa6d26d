package rope

import "math"

// All frequency math is float64: inv_freq and the attention factor are rounded only when the
// tables that use them are stored (the accuracy contract in the README's Semantics section).

// defaultInvFreq fills inv with 1/base^(2i/d).
func defaultInvFreq(inv []float64, base float64, d int) {
	for i := range inv {
		inv[i] = 1 / math.Pow(base, float64(2*i)/float64(d))
	}
}

// yarnMscale is YaRN's attention scale 0.1·m·ln(s) + 1 (1 for s ≤ 1).
func yarnMscale(scale, m float64) float64 {
	if scale <= 1 {
		return 1
	}
	return 0.1*m*math.Log(scale) + 1
}

// yarnCorrectionDim is the dimension whose wavelength makes numRotations turns over maxPos.
func yarnCorrectionDim(numRotations float64, d int, base float64, maxPos int) float64 {
	return float64(d) * math.Log(float64(maxPos)/(numRotations*2*math.Pi)) / (2 * math.Log(base))
}

// Frequencies returns inv_freq (RotaryDim/2 values) and the attention factor that multiplies
// cos and sin, for a call whose largest position is maxPos. maxPos matters only for the
// per-call variants (dynamic NTK in per-call mode, LongRoPE); pass -1 for the static choice,
// which is what the cache holds. The spec must be valid: an invalid one gives NaN (or nil),
// never a panic.
func (s Spec) Frequencies(maxPos int) (invFreq []float64, attention float64) {
	if s.Half() < 0 {
		return nil, math.NaN()
	}
	inv := make([]float64, s.Half())
	attention = s.FrequenciesInto(inv, maxPos)
	return inv, attention
}

// FrequenciesInto is Frequencies writing inv_freq into inv (len Half), for callers that reuse a
// buffer on every call.
func (s Spec) FrequenciesInto(inv []float64, maxPos int) float64 {
	d := s.RotaryDim
	sc := s.Scaling
	origMax := s.OriginalMax()
	switch sc.Type {
	case ScalingLinear:
		defaultInvFreq(inv, s.Base, d)
		for i := range inv {
			inv[i] /= sc.Factor
		}
		return 1
	case ScalingDynamic:
		base := s.Base * math.Pow(s.dynamicStretch(maxPos), float64(d)/float64(d-2))
		defaultInvFreq(inv, base, d)
		return 1
	case ScalingNTK:
		s.ntk(inv)
		return 1
	case ScalingNTKAlpha:
		defaultInvFreq(inv, s.Base*math.Pow(sc.Alpha, float64(d)/float64(d-2)), d)
		return 1
	case ScalingYaRN:
		return s.yarn(inv)
	case ScalingProportional:
		defaultInvFreq(inv, s.Base, d)
		for i := range inv {
			if i >= sc.RotatedPairs {
				inv[i] = 0
			}
			inv[i] /= sc.Factor
		}
		return 1
	case ScalingLlama3:
		s.llama3(inv)
		return 1
	case ScalingLongRoPE:
		ext := sc.ShortFactor
		if maxPos >= origMax {
			ext = sc.LongFactor
		}
		if len(ext) < len(inv) {
			for i := range inv {
				inv[i] = math.NaN()
			}
			return math.NaN()
		}
		for i := range inv {
			inv[i] = 1 / (ext[i] * math.Pow(s.Base, float64(2*i)/float64(d)))
		}
		return s.longRoPEAttention()
	}
	defaultInvFreq(inv, s.Base, d)
	return 1
}

// dynamicStretch is the dynamic NTK term factor·L/M − (factor − 1) of the spec's length rule.
func (s Spec) dynamicStretch(maxPos int) float64 {
	sc := s.Scaling
	switch sc.Dynamic {
	case DynamicPerCall:
		M := float64(s.DynamicMax())
		L := max(float64(maxPos)+1, M)
		return sc.Factor*L/M - (sc.Factor - 1)
	case DynamicMaxTrained:
		M := s.DynamicMax()
		T := sc.MaxTrainedPositions
		if T <= 0 {
			T = M
		}
		return sc.Factor*float64(M)/float64(T) - (sc.Factor - 1)
	}
	origMax := s.OriginalMax()
	L := float64(origMax) * sc.Factor
	return sc.Factor*L/float64(origMax) - (sc.Factor - 1)
}

// DynamicMax is the length the per-call and max-trained dynamic NTK rules divide by:
// max_position_embeddings (the original length when max positions is unset).
func (s Spec) DynamicMax() int {
	if s.MaxPositions > 0 {
		return s.MaxPositions
	}
	return s.OriginalMax()
}

// longRoPEAttention is HF main's _compute_longrope_parameters: attention_factor when given,
// else √(1 + ln f / ln original) for f > 1, where f is the config's factor, or
// max_position_embeddings / original when it has none (or LongRoPEFactorFromLengths asks for
// that rule, v4.57's, vLLM's and Microsoft's Phi-3 code's).
func (s Spec) longRoPEAttention() float64 {
	sc := s.Scaling
	if sc.AttentionFactor != 0 {
		return sc.AttentionFactor
	}
	f := s.LongRoPEFactor()
	if f <= 1 {
		return 1
	}
	return math.Sqrt(1 + math.Log(f)/math.Log(float64(s.OriginalMax())))
}

// LongRoPEFactor is the factor LongRoPE's attention factor is computed from (see
// longRoPEAttention).
func (s Spec) LongRoPEFactor() float64 {
	if s.Scaling.Factor == 0 || s.Scaling.LongRoPEFactorFromLengths {
		return float64(s.DynamicMax()) / float64(s.OriginalMax())
	}
	return s.Scaling.Factor
}

// yarn blends interpolated (1/(factor·g)) and extrapolated (1/g) frequencies with a linear ramp
// over the correction range [low, high] of pair indices (HF _compute_yarn_parameters).
func (s Spec) yarn(inv []float64) float64 {
	sc := s.Scaling
	d := s.RotaryDim
	betaFast, betaSlow := sc.BetaFast, sc.BetaSlow
	if betaFast == 0 {
		betaFast = 32
	}
	if betaSlow == 0 {
		betaSlow = 1
	}
	origMax := s.OriginalMax()
	low := yarnCorrectionDim(betaFast, d, s.Base, origMax)
	high := yarnCorrectionDim(betaSlow, d, s.Base, origMax)
	if !sc.NoTruncate {
		low, high = math.Floor(low), math.Ceil(high)
	}
	low, high = max(low, 0), min(high, float64(d-1))
	if low == high {
		high += 0.001 // avoid a division by zero, as the reference does
	}
	for i := range inv {
		g := math.Pow(s.Base, float64(2*i)/float64(d))
		ramp := min(max((float64(i)-low)/(high-low), 0), 1)
		extrapolation := 1 - ramp
		inv[i] = (1/(sc.Factor*g))*(1-extrapolation) + (1/g)*extrapolation
	}
	switch {
	case sc.AttentionFactor != 0:
		return sc.AttentionFactor
	case sc.Mscale != 0 && sc.MscaleAllDim != 0:
		return yarnMscale(sc.Factor, sc.Mscale) / yarnMscale(sc.Factor, sc.MscaleAllDim)
	}
	return yarnMscale(sc.Factor, 1)
}

// llama3 divides low frequencies (wavelength past original/low_freq_factor) by factor, keeps
// high frequencies (wavelength below original/high_freq_factor), and blends in between.
func (s Spec) llama3(inv []float64) {
	sc := s.Scaling
	defaultInvFreq(inv, s.Base, s.RotaryDim)
	old := float64(sc.OriginalMaxPositions)
	lowWavelen := old / sc.LowFreqFactor
	highWavelen := old / sc.HighFreqFactor
	for i, f := range inv {
		wavelen := 2 * math.Pi / f
		switch {
		case wavelen < highWavelen:
			// high frequency: unchanged
		case wavelen > lowWavelen:
			inv[i] = f / sc.Factor
		case sc.HighFreqFactor == sc.LowFreqFactor:
			// Llama 4 sets both to 1: the blended band is empty, and a wavelength exactly on the
			// boundary counts as high frequency.
		default:
			smooth := (old/wavelen - sc.LowFreqFactor) / (sc.HighFreqFactor - sc.LowFreqFactor)
			inv[i] = (1-smooth)*f/sc.Factor + smooth*f
		}
	}
}

// DefaultCacheLen is the number of positions the cos/sin cache covers by default: vLLM's choice,
// max_position_embeddings, or original × factor for the variants that stretch the context
// (dynamic static, yarn), whichever is larger.
func (s Spec) DefaultCacheLen() int {
	n := s.MaxPositions
	switch s.Scaling.Type {
	case ScalingDynamic, ScalingYaRN:
		n = max(n, saturatingInt(float64(s.OriginalMax())*s.Scaling.Factor))
	}
	if s.DualChunk != nil {
		n = max(n, s.DualChunk.ChunkSize)
	}
	return n
}

// saturatingInt converts v ≥ 0 to int, clamping at math.MaxInt: Go's conversion of an
// out-of-range float is implementation-defined (on amd64 it yields math.MinInt).
func saturatingInt(v float64) int {
	if !(v < math.MaxInt) {
		return math.MaxInt
	}
	return int(v)
}

// ntk is vLLM's NTKScalingRotaryEmbedding._compute_inv_freq (ntk_scaling_rope.py), in float64
// where vLLM computes in float32. Fixed: the base times factor, then every frequency over
// factor^(2/d), so the last pair is stretched by exactly factor. Mixed: the plain frequencies,
// pair m (1-based) divided by exp(a·m^b) with a = ln(factor)/(d/2)^b, which also stretches the
// last pair by factor but the first ones less as b grows.
func (s Spec) ntk(inv []float64) {
	sc := s.Scaling
	d := s.RotaryDim
	if !sc.NTKMixed {
		defaultInvFreq(inv, s.Base*sc.Factor, d)
		div := math.Pow(sc.Factor, 2/float64(d))
		for i := range inv {
			inv[i] /= div
		}
		return
	}
	defaultInvFreq(inv, s.Base, d)
	a := math.Log(sc.Factor) / math.Pow(float64(d/2), sc.MixedB)
	for i := range inv {
		inv[i] /= math.Exp(a * math.Pow(float64(i+1), sc.MixedB))
	}
}
