package rope

// An independent float64 evaluation of inv_freq and the attention factor, written from Hugging
// Face's modeling_rope_utils formulas: the oracle Spec.Frequencies is held to.

import "math"

// refPow is base^(2i/d), HF's pos_freqs.
func refPow(base float64, i, d int) float64 {
	return math.Pow(base, float64(2*i)/float64(d))
}

// refOriginal is the trained length the variants scale from.
func refOriginal(s Spec) int {
	if s.Scaling.OriginalMaxPositions > 0 {
		return s.Scaling.OriginalMaxPositions
	}
	return s.MaxPositions
}

// refMscale is YaRN's get_mscale.
func refMscale(scale, m float64) float64 {
	if scale <= 1 {
		return 1
	}
	return 0.1*m*math.Log(scale) + 1
}

// refFrequencies evaluates inv_freq and the attention factor from the published formulas, for a
// call whose largest position is maxPos (-1: the static choice).
func refFrequencies(s Spec, maxPos int) ([]float64, float64) {
	d := s.RotaryDim
	sc := s.Scaling
	M := float64(refOriginal(s))
	inv := make([]float64, d/2)
	withBase := func(base float64) {
		for i := range inv {
			inv[i] = 1 / refPow(base, i, d)
		}
	}
	switch sc.Type {
	case "", ScalingDefault:
		withBase(s.Base)
		return inv, 1
	case ScalingLinear:
		for i := range inv {
			inv[i] = 1 / (sc.Factor * refPow(s.Base, i, d))
		}
		return inv, 1
	case ScalingDynamic:
		// HF _compute_dynamic_ntk_parameters: base · (factor·L/M − (factor−1))^(d/(d−2)).
		// Static (vLLM ≤ 0.21): L = factor·original over the original length. Per call (HF):
		// L = max(seq_len, max_position_embeddings) over max_position_embeddings. Max-trained
		// (vLLM ≥ 0.22): max_position over max_trained_positions.
		L := sc.Factor * M
		switch sc.Dynamic {
		case DynamicPerCall:
			M = float64(s.MaxPositions)
			L = math.Max(float64(maxPos+1), M)
		case DynamicMaxTrained:
			L = float64(s.MaxPositions)
			M = L
			if sc.MaxTrainedPositions > 0 {
				M = float64(sc.MaxTrainedPositions)
			}
		}
		withBase(s.Base * math.Pow(sc.Factor*L/M-(sc.Factor-1), float64(d)/float64(d-2)))
		return inv, 1
	case ScalingNTKAlpha:
		withBase(s.Base * math.Pow(sc.Alpha, float64(d)/float64(d-2)))
		return inv, 1
	case ScalingYaRN:
		bf, bs := sc.BetaFast, sc.BetaSlow
		if bf == 0 {
			bf = 32
		}
		if bs == 0 {
			bs = 1
		}
		// The pair index whose wavelength 2π·g turns r times over M: M/(2π g) = r.
		corr := func(r float64) float64 {
			return float64(d) * math.Log(M/(r*2*math.Pi)) / (2 * math.Log(s.Base))
		}
		low, high := corr(bf), corr(bs)
		if !sc.NoTruncate {
			low, high = math.Floor(low), math.Ceil(high)
		}
		low = math.Max(low, 0)
		high = math.Min(high, float64(d-1))
		if low == high {
			high += 0.001
		}
		for i := range inv {
			g := refPow(s.Base, i, d)
			ramp := (float64(i) - low) / (high - low)
			ramp = math.Min(math.Max(ramp, 0), 1)
			extra := 1 - ramp // inv_freq_extrapolation_factor
			inv[i] = (1/(sc.Factor*g))*(1-extra) + (1/g)*extra
		}
		att := refMscale(sc.Factor, 1)
		if sc.Mscale != 0 && sc.MscaleAllDim != 0 {
			att = refMscale(sc.Factor, sc.Mscale) / refMscale(sc.Factor, sc.MscaleAllDim)
		}
		if sc.AttentionFactor != 0 {
			att = sc.AttentionFactor
		}
		return inv, att
	case ScalingLlama3:
		old := float64(sc.OriginalMaxPositions)
		for i := range inv {
			f := 1 / refPow(s.Base, i, d)
			wl := 2 * math.Pi / f
			switch {
			case wl < old/sc.HighFreqFactor:
				inv[i] = f
			case wl > old/sc.LowFreqFactor:
				inv[i] = f / sc.Factor
			default:
				sm := (old/wl - sc.LowFreqFactor) / (sc.HighFreqFactor - sc.LowFreqFactor)
				inv[i] = (1-sm)*f/sc.Factor + sm*f
			}
		}
		return inv, 1
	case ScalingLongRoPE:
		ext := sc.ShortFactor
		if maxPos+1 > int(M) { // HF: seq_len > original_max_position_embeddings
			ext = sc.LongFactor
		}
		for i := range inv {
			inv[i] = 1 / (ext[i] * refPow(s.Base, i, d))
		}
		att := 1.0
		if sc.Factor > 1 {
			att = math.Sqrt(1 + math.Log(sc.Factor)/math.Log(M))
		}
		if sc.AttentionFactor != 0 {
			att = sc.AttentionFactor
		}
		return inv, att
	}
	panic("refFrequencies: unknown type " + string(sc.Type))
}
