package cpu

import (
	"math"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// kv_rmsnorm_rope_cache in pure Go: the reference's arithmetic in the reference's order (four
// float64 lanes for the sum of squares, float64 scaling, float32 rotation with each product
// rounded), so results match backend/native bit for bit; what changes is the memory traffic:
// each kv row widens once into a stack buffer, gamma once per call, and results go out as whole
// contiguous runs (one per row, or one per 32-byte group of an NZ cache) through re-sliced
// slices the compiler can drop bounds checks from.

// kvcStack is the widest row (Dv + Dk) the stack buffers hold; DeepSeek's is 576. Wider rows
// take heap buffers, once per call.
const kvcStack = 1024

func init() {
	ops.KvRmsNormRopeCache.Register(&ops.Impl[ops.KvRmsNormRopeCacheArgs]{Backend: Name, Priority: 10, Fn: func(a ops.KvRmsNormRopeCacheArgs) {
		tokens := a.Batch * a.Seq
		// Per token: the kv row and cos/sin read, the two cache rows written.
		perToken := (2*(a.Dv+a.Dk) + 2*a.Dk) * a.KV.DType.Size()
		if tokens < 2 || ThreadsFor(tokens*perToken) < 2 {
			kvRmsNormRopeCache(&a, 0, tokens)
			return
		}
		parallel(&job{kind: jobKvRmsNormRopeCache, kv: a}, tokens)
	}})
}

// kvcBatch is how many tokens go through the RMSNorm sum together: the reference's four lanes
// are four serial add chains per token, and eight tokens keep enough chains in flight.
const kvcBatch = 8

// kvRmsNormRopeCache runs tokens [lo, hi) (token t is batch t/S, position t%S): a range, so a
// worker pool can split a call. The active implementation's assembly does the bulk of each
// row (widening, the sum of squares, the scaling, the rounding stores); Go does the rest.
func kvRmsNormRopeCache(a *ops.KvRmsNormRopeCacheArgs, lo, hi int) {
	k := active
	dv, dk := a.Dv, a.Dk
	w := dv + dk
	var gStack [kvcStack]float64
	var xStack [kvcBatch * kvcStack]float32
	var yStack, csStack [kvcStack]float32
	g, xs, y, cs := gStack[:], xStack[:], yStack[:], csStack[:]
	if w > kvcStack {
		g, xs, y, cs = make([]float64, dv), make([]float32, kvcBatch*w), make([]float32, w), make([]float32, 2*dk)
	}
	g, xs, y, cs = g[:dv:dv], xs[:kvcBatch*w:kvcBatch*w], y[:w:w], cs[:2*dk:2*dk]
	if gs := a.Gamma.Stride(0); gs == 1 {
		x0 := xs[:dv:dv]
		kvcRowF32(k, x0, a.Gamma, a.Gamma.Offset)
		for j, v := range x0 {
			g[j] = float64(v)
		}
	} else {
		for j := range g {
			g[j] = float64(kvcLoad(a.Gamma, a.Gamma.Offset+j*gs))
		}
	}
	cosB, sinB := cs[:dk:dk], cs[dk:]
	var sums [kvcBatch]float64
	for t0 := lo; t0 < hi; t0 += kvcBatch {
		t1 := min(t0+kvcBatch, hi)
		for t := t0; t < t1; t++ {
			b, s := t/a.Seq, t%a.Seq
			r := (t - t0) * w
			kvcRowF32(k, xs[r:r+w:r+w], a.KV, a.KVRow(b, s))
		}
		// All eight rows are summed; rows past t1 hold stale values whose sums go unused.
		if !kvcSumSq8Asm(k.isa, xs, w, dv, &sums) {
			for t := t0; t < t1; t++ {
				r := (t - t0) * w
				sums[t-t0] = kvcSumSq(xs[r : r+dv : r+dv])
			}
		}
		for t := t0; t < t1; t++ {
			b, s := t/a.Seq, t%a.Seq
			r := (t - t0) * w
			x := xs[r : r+w : r+w]
			kvcRowF32(k, cosB, a.Cos, a.CosRow(b, s))
			kvcRowF32(k, sinB, a.Sin, a.SinRow(b, s))
			kvcScale(k, y[:dv:dv], x[:dv:dv], g, 1/math.Sqrt(sums[t-t0]/float64(dv)+a.Epsilon))
			kvcRope(y[dv:], x[dv:], cosB, sinB)

			if !a.KRope.IsZero() {
				kvcStoreRun(k, a.KRope, a.KRopeRow(b, s), y[dv:])
			}
			if !a.CKV.IsZero() {
				kvcStoreRun(k, a.CKV, a.CKVRow(b, s), y[:dv])
			}
			block, slot, ok := a.Slot(b, s)
			if !ok {
				continue
			}
			kvcStoreCache(k, a.KCache, &a.KLayout, &a.KQuant, block, slot, y[dv:])
			kvcStoreCache(k, a.CKVCache, &a.CKVLayout, &a.CKVQuant, block, slot, y[:dv])
		}
	}
}

// kvcSumSq is backend/native's RMSNorm sum of squares: exact float64 squares in four lanes
// (element j into lane j%4, in increasing j), combined (l0+l1)+(l2+l3).
func kvcSumSq(x []float32) float64 {
	n := len(x)
	var l0, l1, l2, l3 float64
	j := 0
	for ; j+4 <= n; j += 4 {
		a, b, c, d := float64(x[j]), float64(x[j+1]), float64(x[j+2]), float64(x[j+3])
		l0 += a * a
		l1 += b * b
		l2 += c * c
		l3 += d * d
	}
	// The tail continues the lanes j%4 = 0, 1, 2.
	if j < n {
		a := float64(x[j])
		l0 += a * a
	}
	if j+1 < n {
		a := float64(x[j+1])
		l1 += a * a
	}
	if j+2 < n {
		a := float64(x[j+2])
		l2 += a * a
	}
	return (l0 + l1) + (l2 + l3)
}

// kvcScale writes y = float32((x·inv)·g), the products in float64, as backend/native does.
func kvcScale(k *kernels, y, x []float32, g []float64, inv float64) {
	n := len(y)
	x, g = x[:n:n], g[:n:n]
	for j := kvcScaleAsm(k.isa, y, x, g, inv); j < n; j++ {
		y[j] = float32(float64(x[j]) * inv * g[j])
	}
}

// kvcRope rotates the interleaved pairs of r into de-interleaved y.
func kvcRope(y, r, cos, sin []float32) {
	h := len(cos) / 2
	y1, y2 := y[:h:h], y[h:2*h:2*h]
	c1, c2, s1, s2 := cos[:h:h], cos[h:2*h:2*h], sin[:h:h], sin[h:2*h:2*h]
	r = r[: 2*h : 2*h]
	for i := range y1 {
		x1, x2 := r[2*i], r[2*i+1]
		y1[i] = float32(x1*c1[i]) - float32(x2*s1[i])
		y2[i] = float32(x2*c2[i]) + float32(x1*s2[i])
	}
}

// kvcRowF32 widens len(dst) elements of t from backing index off.
func kvcRowF32(k *kernels, dst []float32, t tensor.Tensor, off int) {
	n := len(dst)
	switch t.DType {
	case tensor.F32:
		copy(dst, t.F32[off:off+n])
	default:
		widenBits(k, t.DType, dst, t.Bits[off:off+n:off+n])
	}
}

// kvcStoreRun rounds y into len(y) contiguous elements of t from backing index off.
func kvcStoreRun(k *kernels, t tensor.Tensor, off int, y []float32) {
	n := len(y)
	switch t.DType {
	case tensor.F32:
		copy(t.F32[off:off+n], y)
	default:
		narrowBits(k, t.DType, t.Bits[off:off+n:off+n], y)
	}
}

// kvcStoreCache writes a row of results into the cache row of (block, slot), a run per group.
func kvcStoreCache(k *kernels, cache tensor.Tensor, l *ops.KvCacheLayout, q *ops.KvQuant, block, slot int, y []float32) {
	for c0 := 0; c0 < len(y); c0 += l.Group {
		off := l.At(block, slot, c0)
		run := y[c0 : c0+l.Group]
		if cache.DType != tensor.I8 {
			kvcStoreRun(k, cache, off, run)
			continue
		}
		dst := cache.I8[off : off+len(run) : off+len(run)]
		if q.ScaleStep == 0 && q.OffsetStep == 0 {
			// Per-tensor parameters: hoisted.
			sc := q.Scale[q.ScaleAt]
			var of float32
			if q.Offset != nil {
				of = q.Offset[q.OffsetAt]
			}
			for i := range dst {
				dst[i] = ops.QuantizeInt8(run[i], sc, of)
			}
			continue
		}
		for i := range dst {
			dst[i] = q.Quantize(c0+i, run[i])
		}
	}
}

func kvcLoad(t tensor.Tensor, i int) float32 {
	if t.DType == tensor.F32 {
		return t.F32[i]
	}
	return tensor.ToFloat32(t.DType, t.Bits[i])
}
