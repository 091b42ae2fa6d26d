package explain

import (
	"math"

	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/tensor"
)

// The arithmetic of other implementations, for the readings of precision. Each computes the
// rotation of every pair from its own cos/sin; the exact arithmetic (rotary's) takes the angle
// p·inv_freq in float64 and rounds cos and sin to float32 once, then computes each output as
// x·cos − y·sin in float32 and rounds it to the tensor's dtype once.

// angles says how cos and sin are computed.
type angles int

const (
	anglesExact angles = iota // float64 angle, cos/sin rounded to float32 once
	// anglesHF is transformers' rotary embedding (modeling_llama.py LlamaRotaryEmbedding.forward):
	// inv_freq a float32 buffer, freqs = inv_freq @ position_ids in float32, cos = emb.cos() *
	// attention_scaling in float32.
	anglesHF
	// anglesGGML is ggml's (ggml/src/ggml-cpu/ops.cpp rope_yarn and rope_cache_init): theta_scale
	// = powf(base, −2/n_dims), theta starting at p and multiplied by theta_scale pair by pair,
	// all in float32.
	anglesGGML
)

// arithmetic is one way of computing the rotation.
type arithmetic struct {
	angles angles
	// cosSinInDType rounds cos and sin to the tensor's dtype before the multiply (HF's
	// cos.to(x.dtype)).
	cosSinInDType bool
	// productsInDType rounds each product and the sum to the tensor's dtype, as torch computes
	// q * cos + rotate_half(q) * sin on BF16 or F16 tensors; otherwise they are float32.
	productsInDType bool
}

// compute rotates the inputs by a.
func (s *state) compute(a arithmetic) (map[string]tensor.Tensor, error) {
	spec := s.spec
	half := spec.Half()
	T := s.tokens
	inv64, att := spec.Frequencies(int(min(s.maxPos, math.MaxInt32)))
	if len(inv64) != half {
		return nil, nil
	}
	inv32 := make([]float32, half)
	for i, f := range inv64 {
		inv32[i] = float32(f)
	}
	if spec.Scaling.Type == "" || spec.Scaling.Type == rope.ScalingDefault {
		// HF's compute_default_rope_parameters: 1.0 / (base ** (arange(0, dim, 2).float() / dim)),
		// the exponent and the power in float32.
		for i := range inv32 {
			e := float32(2*i) / float32(spec.RotaryDim)
			inv32[i] = float32(1 / float64(float32(math.Pow(spec.Base, float64(e)))))
		}
	}
	theta := float32(math.Pow(spec.Base, float64(float32(-2)/float32(spec.RotaryDim)))) // ggml's theta_scale
	// Token t's cos and sin of pair i are at t·half + i.
	cos, sin := make([]float32, T*half), make([]float32, T*half)
	for t := range T {
		ggml := float32(0)
		for i := range half {
			row := spec.MRoPE.Axis(i)
			if row >= s.posRows {
				row = 0 // one row of positions serves every MRoPE section
			}
			p := s.pos.Int64At(row*T + t)
			if i == 0 {
				ggml = float32(p)
			}
			var c, sn float32
			switch a.angles {
			case anglesExact:
				x := float64(p) * inv64[i]
				c, sn = float32(math.Cos(x)*att), float32(math.Sin(x)*att)
			case anglesHF:
				x := float64(float32(float64(float32(p)) * float64(inv32[i])))
				c = float32(float64(float32(math.Cos(x))) * float64(float32(att)))
				sn = float32(float64(float32(math.Sin(x))) * float64(float32(att)))
			case anglesGGML:
				c = float32(float64(float32(math.Cos(float64(ggml)))) * float64(float32(att)))
				sn = float32(float64(float32(math.Sin(float64(ggml)))) * float64(float32(att)))
				ggml *= theta
			}
			cos[t*half+i], sin[t*half+i] = c, sn
		}
	}
	out := map[string]tensor.Tensor{}
	for _, n := range s.names {
		in := s.inputs[n]
		d := in.DType
		r := same // rounding to d, when a rounds there
		if d == tensor.BF16 || d == tensor.F16 {
			r = func(x float32) float32 { return tensor.ToFloat32(d, tensor.FromFloat32(d, x)) }
		}
		rc, rp := same, same
		if a.cosSinInDType {
			rc = r
		}
		if a.productsInDType {
			rp = r
		}
		o := in.Clone()
		D := spec.HeadSize
		perToken := in.Len() / T
		for row := 0; row+D <= in.Len(); row += D {
			t := row / perToken
			for i := range half {
				j, k := i, i+half
				if spec.Style == rope.GPTJ {
					j, k = 2*i, 2*i+1
				}
				x, y := in.Float32At(row+j), in.Float32At(row+k)
				c, sn := rc(cos[t*half+i]), rc(sin[t*half+i])
				// Each product converted on its own: a fused multiply-add would round once.
				o.SetFloat32(row+j, rp(rp(float32(x*c))-rp(float32(y*sn))))
				o.SetFloat32(row+k, rp(rp(float32(y*c))+rp(float32(x*sn))))
			}
		}
		out[n] = o
	}
	return out, nil
}

// same keeps a float32 value: float32 arithmetic rounds each operation already.
func same(x float32) float32 { return x }
