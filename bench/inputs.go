package bench

import (
	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// llama3 is Llama-3-8B's attention: 32 query and 8 key/value heads of 128.
var llama3 = rotary.Spec{HeadSize: 128, RotaryDim: 128, Base: 500000, Style: rotary.NeoX, MaxPositions: 16384}

// DeepSeek-V3's MLA latent: kv_lora_rank 512 normalised, qk_rope_head_dim 64 rotated; cache
// blocks of 128 slots.
const dsDv, dsDk, dsBlockSize = 512, 64, 128

// forwardSetup times Embedding.Forward of q and k, or with qkNorm Embedding.ForwardQKNorm. The
// bytes are q's and k's read and write either way: the fused norm moves no more memory.
func forwardSetup(spec rotary.Spec, heads, kvHeads int, qkNorm bool) func(tensor.DType, int, *ops.Dispatcher) (func() error, int, error) {
	return func(d tensor.DType, T int, disp *ops.Dispatcher) (func() error, int, error) {
		emb, err := rotary.New(spec, rotary.WithDispatcher(disp))
		if err != nil {
			return nil, 0, err
		}
		D := spec.HeadSize
		q := Filled(d, T, heads, D)
		k := Filled(d, T, kvHeads, D)
		pos := positions(spec, T)
		bytes := 2 * (q.Len() + k.Len()) * d.Size()
		if qkNorm {
			qw, kw := signs(d, D), signs(d, D)
			return func() error { return emb.ForwardQKNorm(pos, q, k, qw, kw, 1e-6) }, bytes, nil
		}
		return func() error { return emb.Forward(pos, q, k) }, bytes, nil
	}
}

// Filled makes a tensor of pseudo-random values in (-1, 1) (not zeros: they take slow paths).
func Filled(d tensor.DType, shape ...int) tensor.Tensor {
	t := tensor.Zeros(d, shape...)
	x := uint32(12345)
	for i := range t.Len() {
		x = x*1664525 + 1013904223
		v := float32(int32(x>>8)-(1<<23)) / (1 << 23)
		if d == tensor.F32 {
			t.F32[i] = v
		} else {
			t.Bits[i] = tensor.FromFloat32(d, v)
		}
	}
	return t
}

// positions are 0..T−1, or for an MRoPE spec one row per axis.
func positions(spec rotary.Spec, T int) tensor.Tensor {
	if spec.MRoPE == nil {
		p := make([]int64, T)
		for i := range p {
			p[i] = int64(i)
		}
		return tensor.FromI64(p, T)
	}
	rows := len(spec.MRoPE.Sections)
	p := make([]int64, rows*T)
	for r := range rows {
		for i := range T {
			p[r*T+i] = int64(i / (r + 1)) // distinct axes, as image tokens have
		}
	}
	return tensor.FromI64(p, rows, T)
}
