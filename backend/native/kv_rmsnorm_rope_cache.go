package native

import (
	"math"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

func init() {
	ops.KVRMSNormRoPECache.Register(&ops.Impl[ops.KVRMSNormRoPECacheArgs]{Backend: ops.Native, Fn: func(a ops.KVRMSNormRoPECacheArgs) { KVRMSNormRoPECache(&a) }})
}

// KVRMSNormRoPECache is op kv_rmsnorm_rope_cache (torch_npu npu_kv_rmsnorm_rope_cache). For each token (b, s), with
// x = kv[b, 0, s]:
//
// RMSNorm of x[:Dv], in float32 with the fused norms' shared arithmetic:
// r = RMSNormScale(SumSquares(x[:Dv]), Dv, float32(epsilon)), then
// y_j = float32(float32(x_j·r)·gamma_j), each product rounded (torch_npu's float32 (x/rms)·gamma,
// with x·(1/rms)).
//
// RoPE of r = x[Dv:], interleaved pairs (r[2i], r[2i+1]) written de-interleaved:
// y_i = r[2i]·cos_i − r[2i+1]·sin_i and y_{h+i} = r[2i+1]·cos_{h+i} + r[2i]·sin_{h+i}, h = Dk/2,
// in float32, each product rounded.
//
// The float32 results round once to the cache's dtype, or quantise (QuantizeInt8) for I8
// caches, and go to the slot ops.KVRMSNormRoPECacheArgs.Slot gives; an index of −1 skips both
// cache writes. The optional outputs k_rope and c_kv take every token's rounded results.
func KVRMSNormRoPECache(a *ops.KVRMSNormRoPECacheArgs) {
	dv, dk, half := a.Dv, a.Dk, a.Dk/2
	y := make([]float32, dv+dk) // the normalised part, then the rope part
	for b := range a.Batch {
		for s := range a.Seq {
			xi := a.KVRow(b, s)
			for j := range dv {
				y[j] = a.KV.Float32At(xi + j)
			}
			r := RMSNormScale(SumSquares(y[:dv]), dv, float32(a.Epsilon))
			for j := range dv {
				g := a.Gamma.Float32At(a.Gamma.Offset + j*a.Gamma.Stride(0))
				y[j] = float32(y[j]*r) * g
			}

			ri, ci, si := xi+dv, a.CosRow(b, s), a.SinRow(b, s)
			for i := range half {
				x1, x2 := a.KV.Float32At(ri+2*i), a.KV.Float32At(ri+2*i+1)
				y[dv+i] = float32(x1*a.Cos.Float32At(ci+i)) - float32(x2*a.Sin.Float32At(si+i))
				y[dv+half+i] = float32(x2*a.Cos.Float32At(ci+half+i)) + float32(x1*a.Sin.Float32At(si+half+i))
			}

			if !a.KRoPE.IsZero() {
				o := a.KRoPERow(b, s)
				for c := range dk {
					a.KRoPE.SetFloat32(o+c, y[dv+c])
				}
			}
			if !a.CKV.IsZero() {
				o := a.CKVRow(b, s)
				for c := range dv {
					a.CKV.SetFloat32(o+c, y[c])
				}
			}
			block, slot, ok := a.Slot(b, s)
			if !ok {
				continue
			}
			kvcWriteCacheRow(a.KCache, &a.KLayout, &a.KQuant, block, slot, y[dv:])
			kvcWriteCacheRow(a.CKVCache, &a.CKVLayout, &a.CKVQuant, block, slot, y[:dv])
		}
	}
}

// kvcWriteCacheRow stores one row of results into the cache row of (block, slot).
func kvcWriteCacheRow(cache tensor.Tensor, l *ops.KVCacheLayout, q *ops.KVQuant, block, slot int, y []float32) {
	for c, v := range y {
		i := l.At(block, slot, c)
		if cache.DType == tensor.I8 {
			cache.I8[i] = Quantize(q, c, v)
			continue
		}
		cache.SetFloat32(i, v)
	}
}

// QuantizeInt8 is kv_rmsnorm_rope_cache's quantisation, as the NPU kernels do it: the float32
// product y·scale (rounded), plus offset (rounded), rounded half to even (CAST_RINT) and
// saturated to [−128, 127]. NaN becomes 0. The scale multiplies: it is the reciprocal of the
// dequantisation scale.
func QuantizeInt8(y, scale, offset float32) int8 {
	v := float32(y*scale) + offset
	if v != v {
		return 0
	}
	r := math.RoundToEven(float64(v))
	switch {
	case r >= 127:
		return 127
	case r <= -128:
		return -128
	}
	return int8(r)
}

// Quantize is channel c's int8 value of y under q.
func Quantize(q *ops.KVQuant, c int, y float32) int8 {
	scale, offset := q.At(c)
	return QuantizeInt8(y, scale, offset)
}
