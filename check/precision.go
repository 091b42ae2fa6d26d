package check

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/rotary-go/rotary/rope"
)

// precisionWindow is how many positions below each length the precision report visits: the
// drift of a float32 angle grows with the position, so its largest values are at the end.
const precisionWindow = 1 << 16

// PrecisionReport is how far angles computed in float32 drift from the exact ones (rotary check
// --precision). Its JSON form is a contract for tools.
type PrecisionReport struct {
	Source string `json:"source"`
	// Model is how a float32 framework forms the angle: inv_freq in float32 (as transformers
	// forms it where hfInvFreq32 models the variant, else rounded once), the position rounded to
	// float32, their product rounded to float32 (HF's inv_freq @ position_ids with autocast
	// disabled, a float32 matmul whose inner dimension is 1), against p · inv_freq in float64.
	// cos, sin and the attention factor's product are taken exactly: their float32 roundings
	// (an ulp each) are far below the angle's at long positions.
	Model   string           `json:"model"`
	Lengths []PrecisionAtLen `json:"lengths"`
}

// PrecisionAtLen is the drift over the last positions below one length.
type PrecisionAtLen struct {
	Name   string `json:"name"` // "original" or "max"
	Length int    `json:"length"`
	// From is the first position visited; positions From..Length-1 were.
	From int `json:"from"`
	// MaxAngleError is the largest |θ_f32 − θ| in radians, at AnglePosition, pair AnglePair.
	MaxAngleError float64 `json:"max_angle_error"`
	AnglePosition int     `json:"angle_position"`
	AnglePair     int     `json:"angle_pair"`
	// MaxCosSinError is the largest |cos θ_f32 − cos θ|, |sin θ_f32 − sin θ|, times the
	// attention factor: the error of a unit vector's rotation.
	MaxCosSinError float64 `json:"max_cos_sin_error"`
	// MaxBF16ULPs is MaxCosSinError in bf16 ULPs of the rotated vector's norm (the attention
	// factor): near a zero of cos or sin the output's own ULP is far smaller, so the norm's is the
	// scale that says whether bf16 can show the error. BF16Differ is the fraction of outputs
	// (cos and sin of every pair and position visited, times the attention factor) whose bf16
	// rounding changes.
	MaxBF16ULPs float64 `json:"max_bf16_ulps"`
	BF16Differ  float64 `json:"bf16_differ"`
}

// WriteText writes the report as rotary check --precision prints it. A nil report or a nil w
// writes nothing.
func (r *PrecisionReport) WriteText(w io.Writer) {
	if r == nil || w == nil {
		return
	}
	fmt.Fprintf(w, "config: %s\nmodel: %s\n", r.Source, r.Model)
	for _, l := range r.Lengths {
		fmt.Fprintf(w, "\nat the %s length %d (positions %d..%d):\n", l.Name, l.Length, l.From, l.Length-1)
		fmt.Fprintf(w, "  angle error        %.3g rad (position %d, pair %d)\n", l.MaxAngleError, l.AnglePosition, l.AnglePair)
		fmt.Fprintf(w, "  cos/sin error      %.3g\n", l.MaxCosSinError)
		fmt.Fprintf(w, "  bf16 output        error up to %.3g ULP of the vector's norm; %.2f%% of outputs round differently\n", l.MaxBF16ULPs, 100*l.BF16Differ)
	}
}

// Precision measures how far angles a float32 framework computes drift from the exact ones
// (PrecisionReport.Model says how it forms them) at the spec's original length, for the
// variants that scale from one, and at its max positions: over the last 2^16 positions below
// each, in radians, in cos/sin and in bf16 ULPs. The spec must be valid and rotate (not
// NoRoPE). The caller names the config in Source.
func Precision(spec rope.Spec) (*PrecisionReport, error) {
	if spec.NoRoPE {
		return nil, errors.New("check: Precision of a spec without RoPE")
	}
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	model := "θ_f32 = f32(f32(p) · inv32) against θ = p · inv_freq in float64; inv32 = "
	if _, ok := hfInvFreq32(spec); ok {
		model += "inv_freq as transformers forms it in float32 (1.0 / base ** (arange(0, d, 2) / d), then the variant's own float32 steps, each op rounded, pow correctly rounded)"
	} else {
		model += "f32(inv_freq), inv_freq rounded once (this variant's own float32 steps not modelled: a lower bound on its drift)"
	}
	r := &PrecisionReport{Model: model}
	maxLen := max(spec.MaxPositions, 1)
	if o := spec.OriginalMax(); o > 0 && o < maxLen {
		r.Lengths = append(r.Lengths, precisionAt(spec, "original", o))
	}
	r.Lengths = append(r.Lengths, precisionAt(spec, "max", maxLen))
	return r, nil
}

func precisionAt(spec rope.Spec, name string, length int) PrecisionAtLen {
	l := PrecisionAtLen{Name: name, Length: length, From: max(length-precisionWindow, 0)}
	table := &frequencyTable{spec: spec}
	hfInv, hfForm := hfInvFreq32(spec)
	outputs, differ := 0, 0
	for p := l.From; p < length; p++ {
		inv, att := table.at(p)
		p32 := float64(float32(p))
		for i, f := range inv {
			exact := float64(p) * f
			f32 := float32(f)
			if hfForm {
				f32 = hfInv[i]
			}
			// The product of two float32 values is exact in float64; one rounding to float32
			// is the framework's (the k = 1 float32 matmul inv_freq @ position_ids).
			approx := float64(float32(p32 * float64(f32)))
			if e := math.Abs(approx - exact); e > l.MaxAngleError {
				l.MaxAngleError, l.AnglePosition, l.AnglePair = e, p, i
			}
			se, ce := math.Sincos(exact)
			sa, ca := math.Sincos(approx)
			l.MaxCosSinError = max(l.MaxCosSinError, att*math.Abs(ca-ce), att*math.Abs(sa-se))
			for _, v := range [2][2]float64{{att * ce, att * ca}, {att * se, att * sa}} {
				outputs++
				if roundBF16(v[0]) != roundBF16(v[1]) {
					differ++
				}
			}
		}
	}
	if outputs > 0 {
		l.BF16Differ = float64(differ) / float64(outputs)
		_, att := table.at(length - 1)
		l.MaxBF16ULPs = l.MaxCosSinError / bf16ULP(att)
	}
	return l
}

// hfInvFreq32 is inv_freq as transformers main forms it in float32, for the variants whose float32
// steps were read; ok is false for the others. The base frequencies are
// models/llama/modeling_llama.py LlamaRotaryEmbedding.compute_default_rope_parameters' (and every
// _compute_*_parameters' in modeling_rope_utils.py): 1.0 / (base ** (arange(0, d, 2).float() / d)),
// the exponent, the power and the reciprocal each rounded to float32, so inv32 can be an ulp off
// f32(inv_freq). pow is taken as correctly rounded (torch's powf may be an ulp off that).
// _compute_linear_scaling_rope_parameters then divides by factor; _compute_llama3_parameters
// compares wavelen = 2π / inv32 with the two cut-offs and blends in float32. Each float32()
// conversion is one rounding, and keeps products from being fused with the following sum.
func hfInvFreq32(s rope.Spec) ([]float32, bool) {
	sc := s.Scaling
	switch sc.Type {
	case rope.ScalingDefault, rope.ScalingLinear, rope.ScalingLlama3:
	default:
		return nil, false
	}
	if s.NoRoPE || s.RotaryDim < 2 {
		return nil, false
	}
	d := float32(s.RotaryDim)
	base := float64(float32(s.Base))
	inv := make([]float32, s.Half())
	for i := range inv {
		e := float32(float32(2*i) / d)
		inv[i] = float32(1) / float32(math.Pow(base, float64(e)))
	}
	switch sc.Type {
	case rope.ScalingLinear:
		f := float32(sc.Factor)
		for i := range inv {
			inv[i] = float32(inv[i] / f)
		}
	case rope.ScalingLlama3:
		old := float64(sc.OriginalMaxPositions)
		lowWavelen := float32(old / sc.LowFreqFactor)
		highWavelen := float32(old / sc.HighFreqFactor)
		f := float32(sc.Factor)
		twoPi, old32 := float32(2*math.Pi), float32(old)
		low, span := float32(sc.LowFreqFactor), float32(sc.HighFreqFactor-sc.LowFreqFactor)
		for i, v := range inv {
			wavelen := float32(twoPi / v)
			scaled := v
			if wavelen > lowWavelen {
				scaled = float32(v / f)
			}
			if !(wavelen < highWavelen) && !(wavelen > lowWavelen) {
				smooth := float32(float32(float32(old32/wavelen)-low) / span)
				a := float32(float32(float32(1)-smooth) * scaled)
				scaled = float32(float32(a/f) + float32(smooth*scaled))
			}
			inv[i] = scaled
		}
	}
	return inv, true
}

// bf16ULP is the spacing of bf16 values at |v| (v normal): 2^(exponent − 7).
func bf16ULP(v float64) float64 {
	_, exp := math.Frexp(v)
	return math.Ldexp(1, exp-1-7)
}

// roundBF16 rounds x to the nearest bf16 value, ties to even, in one step (rounding through
// float32 first could round twice).
func roundBF16(x float64) float64 {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	frac, exp := math.Frexp(x) // x = frac · 2^exp, 0.5 ≤ |frac| < 1
	const bits = 8             // bf16 keeps 8 significant bits
	if exp < -125 {            // subnormal bf16: the step is fixed at 2^-133
		return math.RoundToEven(x*0x1p133) * 0x1p-133
	}
	return math.Ldexp(math.RoundToEven(math.Ldexp(frac, bits)), exp-bits)
}
