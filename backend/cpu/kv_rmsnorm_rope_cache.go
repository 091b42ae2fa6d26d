package cpu

import (
	"math"
	"unsafe"

	"github.com/rotary-go/rotary/backend/native"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// kv_rmsnorm_rope_cache: the reference's arithmetic in the reference's order (native.SumSquares and
// native.RMSNormScale, float32 scaling and rotation with each product rounded), so results match
// backend/native bit for bit; what changes is the memory traffic:
// each kv row widens once into a stack buffer, gamma once per call, and results go out as whole
// contiguous runs (one per row, or one per 32-byte group of an NZ cache) through re-sliced
// slices the compiler can drop bounds checks from.

// kvcStack is the widest row (Dv + Dk) the stack buffers hold; DeepSeek's is 576. Wider rows
// take heap buffers, once per call.
const kvcStack = 1024

func init() {
	ops.KVRMSNormRoPECache.Register(&ops.Impl[ops.KVRMSNormRoPECacheArgs]{Backend: Name, Priority: 10, Fn: func(a ops.KVRMSNormRoPECacheArgs) {
		tokens := a.Batch * a.Seq
		// Per token: the kv row and cos/sin read, the two cache rows written.
		perToken := (2*(a.Dv+a.Dk) + 2*a.Dk) * a.KV.DType.Size()
		j := (*kvRMSNormRoPECacheJob)(&a)
		if tokens < 2 || ThreadsFor(tokens*perToken) < 2 || !parallel(j, tokens) {
			j.run(0, tokens)
		}
	}})
}

// kvRMSNormRoPECacheJob is a kv_rmsnorm_rope_cache call as the pool runs it, by token (token t
// is batch t/S, position t%S).
type kvRMSNormRoPECacheJob ops.KVRMSNormRoPECacheArgs

var kvRMSNormRoPECacheSlot kvRMSNormRoPECacheJob

func (*kvRMSNormRoPECacheJob) slot() *kvRMSNormRoPECacheJob { return &kvRMSNormRoPECacheSlot }

// run runs tokens [lo, hi). The active implementation's assembly does the bulk of each row
// (widening, the norm, the rounding stores); Go does the rest.
func (j *kvRMSNormRoPECacheJob) run(lo, hi int) {
	a := (*ops.KVRMSNormRoPECacheArgs)(j)
	k := active
	if kvcGroupOK(k.isa, a.KV.DType, a.Dv, a.Dk) && kvcContiguous(a) {
		kvcGroups(k, a, lo, hi)
		return
	}
	// The per-token path's buffers: declared here, not in the caller, so that the group path
	// does not pay for clearing them.
	var b kvcBufs
	g, x, y, cosB, sinB := b.slices(a)
	kvcGamma(k, g, a.Gamma)
	eps := float32(a.Epsilon)
	for t := lo; t < hi; t++ {
		kvcExactToken(k, a, t/a.Seq, t%a.Seq, g, x, y, cosB, sinB, eps)
	}
}

// kvcBufs are the widened rows of the per-token paths, on the stack up to kvcStack elements.
type kvcBufs struct {
	g, x, y, cs [kvcStack]float32
}

// slices returns gamma's, x's and y's buffers (Dv, Dv+Dk and Dv+Dk float32) and cos's and sin's
// (Dk each), from b or, for rows wider than kvcStack, from the heap.
func (b *kvcBufs) slices(a *ops.KVRMSNormRoPECacheArgs) (g, x, y, cosB, sinB []float32) {
	dv, dk := a.Dv, a.Dk
	w := dv + dk
	g, x, y, cs := b.g[:], b.x[:], b.y[:], b.cs[:]
	if w > kvcStack {
		g, x, y, cs = make([]float32, dv), make([]float32, w), make([]float32, w), make([]float32, 2*dk)
	}
	return g[:dv:dv], x[:w:w], y[:w:w], cs[:dk:dk], cs[dk : 2*dk : 2*dk]
}

// kvcGamma widens the norm weight into g (Dv float32).
func kvcGamma(k *kernels, g []float32, gamma tensor.Tensor) {
	if gs := gamma.Stride(0); gs == 1 {
		kvcRowF32(k, g, gamma, gamma.Offset)
	} else {
		for j := range g {
			g[j] = gamma.Float32At(gamma.Offset + j*gs)
		}
	}
}

// kvcWeight is what the multi-token kernel takes of a call besides its rows: gamma widened in
// its layout, ε, and (bf16) kvcRMin of gamma.
type kvcWeight struct {
	g         []float32
	eps, rMin float32
}

// kvcScratch is the multi-token kernel's scratch: the tokens' scales, then (bf16) their flags.
type kvcScratch [2 * kvcGroupSize]float32

// kvcGroups runs tokens [lo, hi) (rows kvcGroupOK and kvcContiguous accept) through the
// multi-token kernel: gamma widened once in the kernel's layout, then the affine path when the
// call has one, else kvcGroupRange.
func kvcGroups(k *kernels, a *ops.KVRMSNormRoPECacheArgs, lo, hi int) {
	dv := a.Dv
	var gdStack [kvcStack]float32
	gd := gdStack[:]
	if dv > kvcStack {
		gd = make([]float32, dv)
	}
	w := kvcWeight{g: gd[:dv:dv], eps: float32(a.Epsilon)}
	if a.KV.DType != tensor.BF16 {
		kvcGamma(k, w.g, a.Gamma) // in element order
	} else {
		least, ok := float32(0), false
		if a.Gamma.DType == tensor.BF16 && a.Gamma.Stride(0) == 1 {
			least, ok = kvcGammaSplitAsm(k.isa, w.g, a.Gamma.Bits[a.Gamma.Offset:a.Gamma.Offset+dv])
		}
		if !ok {
			kvcGammaDeinterleaved(k, w.g, a.Gamma)
			least = kvcLeast(w.g)
		}
		w.rMin = kvcRMin(least)
	}
	if lin, ok := a.Linear(); ok && a.KRoPE.IsZero() && a.CKV.IsZero() && kvcLinearRange(a, &lin, lo, hi, &w) {
		return
	}
	kvcGroupRange(k, a, lo, hi, &w)
}

// kvcLeast is the least magnitude of g's nonzero values, 0 when every one is ±0; a NaN counts as
// larger than every number.
func kvcLeast(g []float32) float32 {
	least := uint32(math.MaxUint32)
	for _, v := range g {
		least = min(least, math.Float32bits(v)&0x7fffffff-1) // a zero wraps to the top
	}
	return math.Float32frombits(least + 1)
}

// kvcRMin is the least scale r at which the bf16 kernel's norm results need no test for the
// subnormals VCVTNE2PS2BF16 flushes, given least, kvcLeast of gamma: with every element of a row 0
// or at least 2^-63 in magnitude and r ≥ 2^-62/least, every product float32(float32(x·r)·g) is 0,
// not finite, or at least about 2^-125 in magnitude. Rows with a smaller r (or NaN) take the
// tested norm.
func kvcRMin(least float32) float32 {
	if least == 0 || least != least {
		return least // no nonzero weight: no result is subnormal; NaN: every row tested
	}
	v := math.Ldexp(1, -62) / float64(least)
	r := float32(v)
	if float64(r) < v {
		r = math.Nextafter32(r, float32(math.Inf(1)))
	}
	return r
}

// kvcGammaDeinterleaved widens gamma into gd in the multi-token kernel's layout through a plain
// widening (kvcGamma) and kvcDeinterleave.
func kvcGammaDeinterleaved(k *kernels, gd []float32, gamma tensor.Tensor) {
	var gStack [kvcStack]float32
	g := gStack[:]
	if len(gd) > kvcStack {
		g = make([]float32, len(gd))
	}
	g = g[:len(gd):len(gd)]
	kvcGamma(k, g, gamma)
	kvcDeinterleave(gd, g)
}

// kvcExactToken runs token (b, s) through widened rows: x and y hold Dv+Dk float32, cosB and
// sinB Dk.
func kvcExactToken(k *kernels, a *ops.KVRMSNormRoPECacheArgs, b, s int, g, x, y, cosB, sinB []float32, eps float32) {
	dv := a.Dv
	kvcRowF32(k, x, a.KV, a.KVRow(b, s))
	kvcRowF32(k, cosB, a.Cos, a.CosRow(b, s))
	kvcRowF32(k, sinB, a.Sin, a.SinRow(b, s))
	kvcNorm(k, y[:dv:dv], x[:dv:dv], g, eps)
	kvcRope(y[dv:], x[dv:], cosB, sinB)

	if !a.KRoPE.IsZero() {
		kvcStoreRun(k, a.KRoPE, a.KRoPERow(b, s), y[dv:])
	}
	if !a.CKV.IsZero() {
		kvcStoreRun(k, a.CKV, a.CKVRow(b, s), y[:dv])
	}
	block, slot, ok := a.Slot(b, s)
	if !ok {
		return
	}
	kvcStoreCache(k, a.KCache, &a.KLayout, &a.KQuant, block, slot, y[dv:])
	kvcStoreCache(k, a.CKVCache, &a.CKVLayout, &a.CKVQuant, block, slot, y[:dv])
}

// kvcGroupSize is how many tokens one call of the multi-token kernel takes.
const kvcGroupSize = 16

// kvcGroup holds up to kvcGroupSize tokens' row addresses, laid out as kvcGroupAsm reads them:
// the kv, cos and sin rows, then where the normalized and the rotated results go.
type kvcGroup struct {
	kv, cos, sin, ckv, krope [kvcGroupSize]*byte
}

// kvcGroupLen is how many tokens go to one call of the multi-token kernel in dtype d: as many
// as it takes, or in f32 a quarter as many, so that the rows its first pass reads are still in
// L1 when the second reads them again, beside the rows the second writes (four of DeepSeek's
// 576 float32 read and four written are 18 KiB; eight would be 36 KiB, more than a 32 KiB L1).
func kvcGroupLen(d tensor.DType) int {
	if d == tensor.F32 {
		return kvcGroupSize / 4
	}
	return kvcGroupSize
}

// kvcDeinterleave writes g to dst (same length, a multiple of 32) as the multi-token kernel
// multiplies it: each block of 32 as its 16 even elements, then its 16 odd ones.
func kvcDeinterleave(dst, g []float32) []float32 {
	for j := 0; j+32 <= len(dst) && j+32 <= len(g); j += 32 {
		d, s := dst[j:j+32:j+32], g[j:j+32:j+32]
		for l := range 16 {
			d[l], d[16+l] = s[2*l], s[2*l+1]
		}
	}
	return dst
}

// kvcGroupRange runs tokens [lo, hi) through the multi-token kernel, kvcGroupSize at a time, then
// copies each cached token's rounded rows into the outputs, when asked for. A skipped token with
// one output only takes kvcExactToken.
func kvcGroupRange(k *kernels, a *ops.KVRMSNormRoPECacheArgs, lo, hi int, w *kvcWeight) {
	dv, dk := a.Dv, a.Dk
	var bufs kvcBufs
	g, x, y, cosB, sinB := bufs.slices(a)
	gWide := false // g holds the widened gamma (only kvcExactToken wants it)
	kv, cos, sin := kvcViewOf(a.KV), kvcViewOf(a.Cos), kvcViewOf(a.Sin)
	kc, cc := kvcViewOf(a.KCache), kvcViewOf(a.CKVCache)
	hasK, hasC := !a.KRoPE.IsZero(), !a.CKV.IsZero()
	kOut, cOut := kvcViewOf(a.KRoPE), kvcViewOf(a.CKV)
	var grp kvcGroup
	var scratch kvcScratch
	glen := kvcGroupLen(a.KV.DType)
	eps := w.eps
	// Per token of the group, for the outputs' copies: its (b, s) and cache rows, ok when cached.
	var bs, ss, cis, kis [kvcGroupSize]int
	var oks [kvcGroupSize]bool
	n := 0
	flush := func() {
		kvcGroupAsm(a.KV.DType, &grp, n, w, &scratch, dk)
		for i := range n {
			if !oks[i] {
				continue
			}
			if hasC {
				kvcCopyRow(a.CKV, a.CKVRow(bs[i], ss[i]), a.CKVCache, cis[i], dv)
			}
			if hasK {
				kvcCopyRow(a.KRoPE, a.KRoPERow(bs[i], ss[i]), a.KCache, kis[i], dk)
			}
		}
		n = 0
	}
	b, s := lo/a.Seq, lo%a.Seq
	for t := lo; t < hi; t, s = t+1, s+1 {
		if s == a.Seq {
			b, s = b+1, 0
		}
		ki, ci, ok := a.CacheRows(b, s)
		switch {
		case ok:
			grp.ckv[n], grp.krope[n] = cc.row(ci, dv), kc.row(ki, dk)
			cis[n], kis[n] = ci, ki
		case hasC && hasK:
			grp.ckv[n], grp.krope[n] = cOut.row(a.CKVRow(b, s), dv), kOut.row(a.KRoPERow(b, s), dk)
		case hasC || hasK:
			if n > 0 {
				flush()
			}
			if !gWide {
				kvcGamma(k, g, a.Gamma)
				gWide = true
			}
			kvcExactToken(k, a, b, s, g, x, y, cosB, sinB, eps)
			continue
		default:
			continue // skipped, and no outputs
		}
		grp.kv[n] = kv.row(a.KVRow(b, s), dv+dk)
		grp.cos[n], grp.sin[n] = cos.row(a.CosRow(b, s), dk), sin.row(a.SinRow(b, s), dk)
		bs[n], ss[n], oks[n] = b, s, ok
		n++
		if n == glen {
			flush()
		}
	}
	if n > 0 {
		flush()
	}
}

// kvcLinearRange is kvcGroupRange for a call without outputs whose rows are affine in the token
// (ops.KVLinear): row addresses come from one multiply-add each, with no per-row bounds check,
// because the extents are checked here once: the rows of tokens lo..hi-1 and of every slot the
// index check admits lie inside their tensors' backings. It is false, having done nothing, when
// they do not.
func kvcLinearRange(a *ops.KVRMSNormRoPECacheArgs, l *ops.KVLinear, lo, hi int, w *kvcWeight) bool {
	dv, dk := a.Dv, a.Dk
	if lo >= hi || l.Slots == 0 {
		return lo >= hi
	}
	kv, cos, sin := kvcViewOf(a.KV), kvcViewOf(a.Cos), kvcViewOf(a.Sin)
	kc, cc := kvcViewOf(a.KCache), kvcViewOf(a.CKVCache)
	// Every step is non-negative (tensor strides are), so the last row of a range is the
	// furthest.
	if !kv.holds(l.KV, hi-1, dv+dk) || !cos.holds(l.Cos, hi-1, dk) || !sin.holds(l.Sin, hi-1, dk) ||
		!kc.holds(l.K, l.Slots-1, dk) || !cc.holds(l.CKV, l.Slots-1, dv) ||
		l.IndexAt.At(lo) < 0 || l.IndexAt.At(hi-1) >= len(l.Index) {
		return false
	}
	var grp kvcGroup
	var scratch kvcScratch
	glen := kvcGroupLen(a.KV.DType)
	n := 0
	for t := lo; t < hi; t++ {
		v := l.Index[l.IndexAt.At(t)]
		if uint64(v) >= uint64(l.Slots) {
			continue // −1: skipped (the index check admits nothing else outside the slots)
		}
		grp.kv[n] = kv.at(l.KV.At(t))
		grp.cos[n], grp.sin[n] = cos.at(l.Cos.At(t)), sin.at(l.Sin.At(t))
		grp.ckv[n], grp.krope[n] = cc.at(l.CKV.At(int(v))), kc.at(l.K.At(int(v)))
		if n++; n == glen {
			kvcGroupAsm(a.KV.DType, &grp, n, w, &scratch, dk)
			n = 0
		}
	}
	if n > 0 {
		kvcGroupAsm(a.KV.DType, &grp, n, w, &scratch, dk)
	}
	return true
}

// kvcView is a float tensor's backing as bytes, for row addresses without a tensor.Tensor per row.
type kvcView struct {
	b  []byte
	es int
}

func kvcViewOf(t tensor.Tensor) kvcView {
	switch {
	case t.DType == tensor.F32 && len(t.F32) > 0:
		return kvcView{unsafe.Slice((*byte)(unsafe.Pointer(&t.F32[0])), 4*len(t.F32)), 4}
	case len(t.Bits) > 0:
		return kvcView{unsafe.Slice((*byte)(unsafe.Pointer(&t.Bits[0])), 2*len(t.Bits)), 2}
	}
	return kvcView{}
}

// row is the address of the n elements from backing index off, bounds-checked.
func (v kvcView) row(off, n int) *byte { return &v.b[off*v.es : (off+n)*v.es][0] }

// holds reports whether the n elements from backing index f.At(i) lie inside the backing.
func (v kvcView) holds(f ops.KVAffine, i, n int) bool {
	off := f.At(i)
	return off >= 0 && n > 0 && (off+n)*v.es <= len(v.b)
}

// at is the address of backing index off, unchecked: for rows holds has vouched for.
func (v kvcView) at(off int) *byte {
	return (*byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(v.b)), off*v.es))
}

// kvcContiguous reports whether every cache row the op writes is one contiguous run in the kv
// dtype: no int8 cache, and no NZ mode's 32-byte groups.
func kvcContiguous(a *ops.KVRMSNormRoPECacheArgs) bool {
	return a.KCache.DType != tensor.I8 && a.CKVCache.DType != tensor.I8 &&
		a.KLayout.Group >= a.Dk && a.CKVLayout.Group >= a.Dv
}

// kvcCopyRow copies n elements of src from si into dst from di (one float dtype).
func kvcCopyRow(dst tensor.Tensor, di int, src tensor.Tensor, si, n int) {
	if dst.DType == tensor.F32 {
		copy(dst.F32[di:di+n], src.F32[si:si+n])
		return
	}
	copy(dst.Bits[di:di+n], src.Bits[si:si+n])
}

// kvcNorm writes the RMSNorm of x times g into y, as backend/native does.
func kvcNorm(k *kernels, y, x, g []float32, eps float32) {
	if kvcNormAsm(k.isa, y, x, g, eps) {
		return
	}
	n := len(x)
	y, g = y[:n:n], g[:n:n]
	r := native.RMSNormScale(native.SumSquares(x), n, eps)
	for j, v := range x {
		y[j] = float32(v*r) * g[j]
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
func kvcStoreCache(k *kernels, cache tensor.Tensor, l *ops.KVCacheLayout, q *ops.KVQuant, block, slot int, y []float32) {
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
				dst[i] = native.QuantizeInt8(run[i], sc, of)
			}
			continue
		}
		for i := range dst {
			dst[i] = native.Quantize(q, c0+i, run[i])
		}
	}
}
