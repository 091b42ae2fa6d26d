package explain

import (
	"fmt"
	"math"

	"github.com/rotary-go/rotary/backend/native"
	"github.com/rotary-go/rotary/compare"
	"github.com/rotary-go/rotary/tensor"
)

// QKNormCase is one failed qk_rmsnorm_rope: Qwen3's per-head RMSNorm of query and key (with the
// weights QWeight, KWeight and Epsilon), then Case's rotation. The op rounds the normalized
// heads to their dtype before it rotates them, so it is rotary_embedding of those heads, bit
// for bit, and every reading of Case applies to them.
type QKNormCase struct {
	Case
	QWeight, KWeight tensor.Tensor
	Epsilon          float64
}

// qkNorm is what a qk_rmsnorm_rope reading needs beside the normalized heads.
type qkNorm struct {
	raw     map[string]tensor.Tensor // query and key before the norm
	weights map[string]tensor.Tensor
	eps     float32
}

// ExplainQKNorm is Explain for qk_rmsnorm_rope.
func ExplainQKNorm(c QKNormCase, opts compare.Options) (Report, error) {
	D := c.Spec.HeadSize
	eps := float32(c.Epsilon)
	if math.IsNaN(c.Epsilon) || c.Epsilon < 0 || math.IsInf(float64(eps), 0) {
		return Report{}, fmt.Errorf("%w: Epsilon %v: want a finite value ≥ 0", ErrCase, c.Epsilon)
	}
	q := &qkNorm{raw: map[string]tensor.Tensor{}, weights: map[string]tensor.Tensor{}, eps: eps}
	normed := c.Case
	for _, in := range []struct {
		name string
		x, w tensor.Tensor
		dst  *tensor.Tensor
	}{{"query", c.Query, c.QWeight, &normed.Query}, {"key", c.Key, c.KWeight, &normed.Key}} {
		if in.x.IsZero() {
			continue
		}
		x, w := in.x.Clone(), in.w.Clone()
		if x.IsZero() || w.IsZero() || w.Len() != D || D <= 0 || x.Len()%D != 0 || !isFloat(x) || !isFloat(w) {
			return Report{}, fmt.Errorf("%w: %s and its weight: want float tensors, the weight [%d] and the heads of %[3]d", ErrCase, in.name, D)
		}
		q.raw[in.name], q.weights[in.name] = x, w
		*in.dst = normHeads(x, w, D, eps)
	}
	s, err := newState(normed, opts)
	if err != nil {
		return Report{}, err
	}
	s.qk = q
	return s.report(), nil
}

func isFloat(t tensor.Tensor) bool {
	return t.DType == tensor.F32 || t.DType == tensor.F16 || t.DType == tensor.BF16
}

// normHeads is qk_rmsnorm_rope's norm of every head of x (backend/native.QKRMSNormRoPE's): in
// float32, x·rsqrt(mean(x²) + ε) rounded to x's dtype, times the weight, rounded again. A nil
// w skips the weight.
func normHeads(x, w tensor.Tensor, D int, eps float32) tensor.Tensor {
	out := x.Clone()
	round := func(v float32) float32 { return tensor.ToFloat32(x.DType, tensor.FromFloat32(x.DType, v)) }
	if x.DType == tensor.F32 {
		round = same
	}
	y := make([]float32, D)
	for base := 0; base+D <= x.Len(); base += D {
		for j := range D {
			y[j] = x.Float32At(base + j)
		}
		r := native.RMSNormScale(native.SumSquares(y), D, eps)
		for j := range D {
			v := round(float32(y[j] * r))
			if !w.IsZero() {
				v = round(float32(w.Float32At(j) * v))
			}
			out.SetFloat32(base+j, v)
		}
	}
	return out
}

// qkReading recomputes the op with the norm and the rotation composed another way.
func (s *state) qkReading(f func(raw, w tensor.Tensor) (tensor.Tensor, error)) (map[string]tensor.Tensor, error) {
	out := map[string]tensor.Tensor{}
	for _, n := range s.names {
		t, err := f(s.qk.raw[n], s.qk.weights[n])
		if err != nil {
			return nil, err
		}
		out[n] = t
	}
	return out, nil
}

// rotateOne is the exact rotation of one tensor (query or key) by the case's spec.
func (s *state) rotateOne(x tensor.Tensor) (tensor.Tensor, error) {
	out, err := s.rotate(s.spec, s.pos, map[string]tensor.Tensor{"query": x})
	if err != nil {
		return tensor.Tensor{}, err
	}
	return out["query"], nil
}
