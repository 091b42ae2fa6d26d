package bench

import (
	"slices"
	"unsafe"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// llama3 is Llama-3-8B's attention: 32 query and 8 key/value heads of 128.
var llama3 = rotary.Spec{HeadSize: 128, RotaryDim: 128, Base: 500000, Style: rotary.NeoX, MaxPositions: 16384}

// DeepSeek-V3's MLA latent: kv_lora_rank 512 normalised, qk_rope_head_dim 64 rotated; cache
// blocks of 128 slots.
const dsDv, dsDk, dsBlockSize = 512, 64, 128

// forwardSetup times Embedding.Forward of q and k, or with qkNorm Embedding.ForwardQKNorm: q
// and k rotated in place; the positions, the norm weights and the cache's cos/sin rows 0..T−1
// read. (MRoPE reads the same rows: its temporal position is the token's index, the temporal
// frequencies fall in every 64-byte line of a row, and the other axes' positions are smaller.)
// The cache is the Embedding's own, out of reach; the limit pass reads a copy of its rows, the
// same bytes laid out alike.
func forwardSetup(spec rotary.Spec, heads, kvHeads int, qkNorm bool) func(tensor.DType, int, *ops.Dispatcher) (func() error, []Operand, error) {
	return func(d tensor.DType, T int, disp *ops.Dispatcher) (func() error, []Operand, error) {
		emb, err := rotary.New(spec, rotary.WithDispatcher(disp))
		if err != nil {
			return nil, nil, err
		}
		rows, err := emb.CosSinCache(T, false)
		if err != nil {
			return nil, nil, err
		}
		D := spec.HeadSize
		q := Filled(d, T, heads, D)
		k := Filled(d, T, kvHeads, D)
		pos := positions(spec, T)
		touched := slices.Concat(Updates(q, k), Reads(pos), []Operand{{Read, AsBytes(rows)}})
		if qkNorm {
			qw, kw := signs(d, D), signs(d, D)
			return func() error { return emb.ForwardQKNorm(pos, q, k, qw, kw, 1e-6) }, append(touched, Reads(qw, kw)...), nil
		}
		return func() error { return emb.Forward(pos, q, k) }, touched, nil
	}
}

// Reads, Writes and Updates describe whole tensors (contiguous, as the cases make them) as
// operands.
func Reads(ts ...tensor.Tensor) []Operand { return operands(Read, ts) }

// Writes: see Reads.
func Writes(ts ...tensor.Tensor) []Operand { return operands(Write, ts) }

// Updates: see Reads.
func Updates(ts ...tensor.Tensor) []Operand { return operands(Update, ts) }

func operands(a Access, ts []tensor.Tensor) []Operand {
	out := make([]Operand, len(ts))
	for i, t := range ts {
		out[i] = Operand{a, TensorBytes(t)}
	}
	return out
}

// TensorBytes is the memory of contiguous t's elements.
func TensorBytes(t tensor.Tensor) []byte {
	lo, hi := t.Offset, t.Offset+t.Len()
	switch {
	case t.F32 != nil:
		return AsBytes(t.F32[lo:hi])
	case t.Bits != nil:
		return AsBytes(t.Bits[lo:hi])
	case t.F64 != nil:
		return AsBytes(t.F64[lo:hi])
	case t.I32 != nil:
		return AsBytes(t.I32[lo:hi])
	case t.I64 != nil:
		return AsBytes(t.I64[lo:hi])
	case t.I8 != nil:
		return AsBytes(t.I8[lo:hi])
	}
	return AsBytes(t.U8[lo:hi])
}

// AsBytes is the memory of s.
func AsBytes[E any](s []E) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(s[0])))
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
