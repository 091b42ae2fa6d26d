package ops

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rotary-go/rotary/tensor"
)

// kv_rmsnorm_rope_cache is DeepSeek MLA's fused KV-cache update (torch_npu
// npu_kv_rmsnorm_rope_cache, aclnnKVRMSNormRoPECache): each token's kv row [Dv+Dk] splits into
// the compressed part kv[:Dv], which is RMS-normalised and scaled by gamma, and the rope part
// kv[Dv:], which is rotated GPT-J style but written de-interleaved (NeoX order); both results
// are scattered into their caches at the slot the index gives, optionally quantised to int8.

// CacheMode is how kv_rmsnorm_rope_cache's index addresses the caches (torch_npu's cache_mode).
type CacheMode string

// The cache modes. Norm caches are [Bcache, 1, Scache, D] and the index gives a position per
// batch; the paged modes (PA*) use caches of BlockNum blocks of BlockSize slots, [BlockNum,
// BlockSize, 1, D]. PA and PA_BNSD are the same mode under two names.
const (
	// CacheNorm: index [B, S]; token (b, s) goes to cache[b, 0, index[b, s]].
	CacheNorm CacheMode = "Norm"
	// CachePA: index [B·S]; token t goes to global slot index[t] (block index[t]/BlockSize).
	CachePA CacheMode = "PA"
	// CachePABNSD is CachePA.
	CachePABNSD CacheMode = "PA_BNSD"
	// CachePANZ is CachePA with caches in the FRACTAL_NZ layout (see KVCacheLayout).
	CachePANZ CacheMode = "PA_NZ"
	// CachePABlkBNSD: index [B·ceil(S/BlockSize)], one value per block of a sequence: token s
	// of batch b goes to slot s%BlockSize of block index[b·ceil(S/BlockSize) + s/BlockSize] /
	// BlockSize (the value's remainder is ignored, as the NPU kernel ignores it).
	CachePABlkBNSD CacheMode = "PA_BLK_BNSD"
	// CachePABlkNZ is CachePABlkBNSD with FRACTAL_NZ caches.
	CachePABlkNZ CacheMode = "PA_BLK_NZ"
)

var cacheModes = []CacheMode{CacheNorm, CachePA, CachePABNSD, CachePANZ, CachePABlkBNSD, CachePABlkNZ}

// ParseCacheMode checks a cache mode name; empty means Norm (torch_npu's default).
// PA_BLK_BSND, a spelling the aclnn documentation also uses, means PA_BLK_BNSD.
func ParseCacheMode(s string) (CacheMode, error) {
	switch s {
	case "":
		return CacheNorm, nil
	case "PA_BLK_BSND":
		return CachePABlkBNSD, nil
	}
	if m := CacheMode(s); slices.Contains(cacheModes, m) {
		return m, nil
	}
	names := make([]string, len(cacheModes))
	for i, m := range cacheModes {
		names[i] = string(m)
	}
	return "", fmt.Errorf("cache mode %q: want one of %s", s, strings.Join(names, ", "))
}

// Paged reports whether m is a PagedAttention mode (every mode but Norm).
func (m CacheMode) Paged() bool { return m != CacheNorm }

// NZ reports whether m stores its caches in the FRACTAL_NZ layout.
func (m CacheMode) NZ() bool { return m == CachePANZ || m == CachePABlkNZ }

// PerBlock reports whether m's index has one value per block of a sequence (PA_BLK_*).
func (m CacheMode) PerBlock() bool { return m == CachePABlkBNSD || m == CachePABlkNZ }

// KVRMSNormRoPECacheParams are the tensors and options of kv_rmsnorm_rope_cache as the caller
// gives them (torch_npu's argument names). Optional tensors are zero Tensors when absent.
type KVRMSNormRoPECacheParams struct {
	// KV is [B, 1, S, Dv+Dk], F16, BF16 or F32.
	KV tensor.Tensor
	// Gamma is the RMSNorm weight [Dv], kv's dtype.
	Gamma tensor.Tensor
	// Cos and Sin are [B, 1, S, Dk] or [B, 1, 1, Dk] (one row for all of a batch's tokens), kv's
	// dtype, full width: element i < Dk/2 rotates pair i into output i, element Dk/2+i into
	// output Dk/2+i. A batch dimension of 1 also broadcasts.
	Cos, Sin tensor.Tensor
	// Index says where each token goes; I64 (I32 accepted). Its shape and meaning follow
	// CacheMode; a value −1 skips the token's cache writes.
	Index tensor.Tensor
	// KCache receives the rope part [.., Dk], CKVCache the normalised part [.., Dv]; each is
	// kv's dtype or I8 (quantised), shaped as CacheMode says. They are updated in place.
	KCache, CKVCache tensor.Tensor
	// KRoPEScale and CKVScale (F32, [D], [1, D] per channel or [1] per tensor) are required
	// exactly when the matching cache is I8; the offsets (same shapes) make the quantisation
	// asymmetric: q = clamp(round_half_even(y·scale + offset), −128, 127).
	KRoPEScale, CKVScale, KRoPEOffset, CKVOffset tensor.Tensor
	// Epsilon is added to the mean square as a float32 (torch_npu's default is 1e-5; zero is
	// taken as zero; it must be finite, ≥ 0 and within float32's range).
	Epsilon float64
	// CacheMode addresses the caches; empty means Norm.
	CacheMode CacheMode
	// KRoPE [B, 1, S, Dk] and CKV [B, 1, S, Dv] (kv's dtype) optionally receive every token's
	// unquantised results, skipped tokens included (torch_npu's is_output_kv).
	KRoPE, CKV tensor.Tensor
}

// KVCacheLayout locates a cache row: element c of the row of (block, slot) lies at backing index
// Off + block·BlockStride + slot·SlotStride + (c/Group)·GroupStride + c%Group. An ND cache is
// one group of the whole row; a FRACTAL_NZ cache ([BlockNum, D/C0, BlockSize, 1, C0] in memory,
// C0 = 32 bytes of the cache's dtype: 16 for F16/BF16, 32 for I8, 8 for F32) stores each run of
// C0 channels of a block's slots together. In Norm mode a block is a cache batch and a slot a
// sequence position.
type KVCacheLayout struct {
	Blocks, BlockSize int
	Off               int
	BlockStride       int
	SlotStride        int
	GroupStride       int
	Group             int
}

// At is the backing index of channel c of the row of (block, slot).
func (l *KVCacheLayout) At(block, slot, c int) int {
	return l.Off + block*l.BlockStride + slot*l.SlotStride + c/l.Group*l.GroupStride + c%l.Group
}

// RowAt is At(block, slot, 0): the backing index of the row of (block, slot).
func (l *KVCacheLayout) RowAt(block, slot int) int {
	return l.Off + block*l.BlockStride + slot*l.SlotStride
}

// KVQuant is the int8 quantisation of one cache: channel c uses Scale[ScaleAt + c·ScaleStep]
// and, when Offset is set, Offset[OffsetAt + c·OffsetStep] (step 0: one value per tensor).
type KVQuant struct {
	Scale, Offset        []float32
	ScaleAt, ScaleStep   int
	OffsetAt, OffsetStep int
}

// At is channel c's scale and offset (0 without offsets).
func (q *KVQuant) At(c int) (scale, offset float32) {
	if q.Offset != nil {
		offset = q.Offset[q.OffsetAt+c*q.OffsetStep]
	}
	return q.Scale[q.ScaleAt+c*q.ScaleStep], offset
}

// KVRMSNormRoPECacheArgs are the checked arguments of op kv_rmsnorm_rope_cache: the caller's
// parameters plus what the checks derived. Build them with NewKVRMSNormRoPECache.
type KVRMSNormRoPECacheArgs struct {
	KVRMSNormRoPECacheParams
	// Batch and Seq are kv's B and S; Dv and Dk split its last dimension.
	Batch, Seq, Dv, Dk int
	// KLayout and CKVLayout locate the cache rows.
	KLayout, CKVLayout KVCacheLayout
	// KQuant and CKVQuant are set (Scale non-nil) for I8 caches.
	KQuant, CKVQuant KVQuant
	// The row addressing of kv, cos, sin and the optional outputs, worked out once.
	kvRows, cosRows, sinRows, kRopeRows, ckvRows kvcRows
	// idx addresses the index tensor's values, worked out once.
	idx kvcIndex
	// linear: a global slot v's rows lie at Off + v·SlotStride in both caches (a slot-per-token
	// mode whose blocks are BlockSize rows apart), so CacheRows needs no division.
	linear bool
}

// kvcIndex reads the index tensor's values (I64 or I32, rank 1 or 2) without going through
// tensor.Tensor per value: the per-token paths and the checks read every value.
type kvcIndex struct {
	i64             []int64
	i32             []int32
	off, s0, s1, n1 int // n1: the length of the second dimension (1 for rank 1)
}

func kvcIndexOf(t tensor.Tensor) kvcIndex {
	x := kvcIndex{i64: t.I64, i32: t.I32, off: t.Offset, s0: t.Stride(0), n1: 1}
	if t.Rank() == 2 {
		x.s1, x.n1 = t.Stride(1), t.Shape[1]
	}
	return x
}

// at is the value at backing index p.
func (x *kvcIndex) at(p int) int64 {
	if x.i32 != nil {
		return int64(x.i32[p])
	}
	return x.i64[p]
}

// IndexValue is the index entry that places token s of batch b (for PA_BLK_* modes, the entry
// of the block the token falls in).
func (a *KVRMSNormRoPECacheArgs) IndexValue(b, s int) int64 {
	x := &a.idx
	var i int
	switch {
	case a.CacheMode == CacheNorm:
		i = x.off + b*x.s0 + s*x.s1
	case a.CacheMode.PerBlock():
		i = x.off + (b*a.blocksPerSeq()+s/a.KLayout.BlockSize)*x.s0
	default:
		i = x.off + (b*a.Seq+s)*x.s0
	}
	return x.at(i)
}

// blocksPerSeq is ceil(S/BlockSize), without overflow.
func (a *KVRMSNormRoPECacheArgs) blocksPerSeq() int {
	if a.Seq == 0 {
		return 0
	}
	return (a.Seq-1)/a.KLayout.BlockSize + 1
}

// Slot is where token s of batch b goes in both caches; ok is false when its index is −1.
func (a *KVRMSNormRoPECacheArgs) Slot(b, s int) (block, slot int, ok bool) {
	v := a.IndexValue(b, s)
	if v < 0 {
		return 0, 0, false
	}
	bs := a.KLayout.BlockSize
	switch {
	case a.CacheMode == CacheNorm:
		return b, int(v), true
	case a.CacheMode.PerBlock():
		return int(v) / bs, s % bs, true
	}
	return int(v) / bs, int(v) % bs, true
}

// CacheRows is where token (b, s)'s rows start in the k and ckv caches' backings, the RowAt of
// its Slot; ok is false for a skipped token.
func (a *KVRMSNormRoPECacheArgs) CacheRows(b, s int) (k, ckv int, ok bool) {
	if a.linear {
		v := int(a.IndexValue(b, s))
		if v < 0 {
			return 0, 0, false
		}
		return a.KLayout.Off + v*a.KLayout.SlotStride, a.CKVLayout.Off + v*a.CKVLayout.SlotStride, true
	}
	block, slot, ok := a.Slot(b, s)
	if !ok {
		return 0, 0, false
	}
	return a.KLayout.RowAt(block, slot), a.CKVLayout.RowAt(block, slot), true
}

// KVRow, CosRow, SinRow, KRoPERow and CKVRow are the backing indices of the first element of
// token (b, s)'s row in each tensor (cos and sin broadcast).
func (a *KVRMSNormRoPECacheArgs) KVRow(b, s int) int { return a.kvRows.at(b, s) }

// CosRow: see KVRow.
func (a *KVRMSNormRoPECacheArgs) CosRow(b, s int) int { return a.cosRows.at(b, s) }

// SinRow: see KVRow.
func (a *KVRMSNormRoPECacheArgs) SinRow(b, s int) int { return a.sinRows.at(b, s) }

// KRoPERow: see KVRow; KRoPE must be present.
func (a *KVRMSNormRoPECacheArgs) KRoPERow(b, s int) int { return a.kRopeRows.at(b, s) }

// CKVRow: see KVRow; CKV must be present.
func (a *KVRMSNormRoPECacheArgs) CKVRow(b, s int) int { return a.ckvRows.at(b, s) }

// KVAffine is an address affine in one number: Off + n·Step.
type KVAffine struct{ Off, Step int }

// At is Off + n·Step.
func (f KVAffine) At(n int) int { return f.Off + n*f.Step }

// KVLinear is the addressing of a call whose rows are affine in the token number t = b·S + s
// (batch b, position s): token t's kv, cos and sin rows start at KV.At(t), Cos.At(t) and
// Sin.At(t) in their backings, its index value is Index[IndexAt.At(t)], and a non-negative
// value v puts its rows at K.At(v) and CKV.At(v) in the caches. Slots is the number of slots
// the index check admits (every value is below it).
type KVLinear struct {
	KV, Cos, Sin, IndexAt, K, CKV KVAffine
	Index                         []int64
	Slots                         int
}

// Linear reports the call's KVLinear, when it has one: an I64 index of a PA, PA_BNSD or PA_NZ
// call whose caches keep one row stride across blocks (BlockStride = BlockSize·SlotStride: no
// padding between blocks, and for NZ a single 16-element group), and kv, cos and sin whose batch
// stride is S times their position stride (or whose B or S is 1). The optional outputs are not
// part of it.
func (a *KVRMSNormRoPECacheArgs) Linear() (KVLinear, bool) {
	if !a.linear || a.idx.i64 == nil {
		return KVLinear{}, false
	}
	l := KVLinear{
		IndexAt: KVAffine{a.idx.off, a.idx.s0}, Index: a.idx.i64,
		K:     KVAffine{a.KLayout.Off, a.KLayout.SlotStride},
		CKV:   KVAffine{a.CKVLayout.Off, a.CKVLayout.SlotStride},
		Slots: a.KLayout.Blocks * a.KLayout.BlockSize,
	}
	for _, r := range []struct {
		dst  *KVAffine
		rows kvcRows
	}{{&l.KV, a.kvRows}, {&l.Cos, a.cosRows}, {&l.Sin, a.sinRows}} {
		step, ok := r.rows.tokenStep(a.Batch, a.Seq)
		if !ok {
			return KVLinear{}, false
		}
		*r.dst = KVAffine{r.rows.off, step}
	}
	return l, true
}

// tokenStep is the rows' stride in t = b·S + s, when they have one.
func (r kvcRows) tokenStep(B, S int) (int, bool) {
	switch {
	case S == 1:
		return r.bStride, true
	case B == 1 || r.bStride == S*r.sStride:
		return r.sStride, true
	}
	return 0, false
}

// kvcRows addresses the rows (b, 0, s) of a [B|1, 1, S|1, D] tensor, size-1 dimensions
// broadcast (stride 0).
type kvcRows struct{ off, bStride, sStride int }

func kvcRowsOf(t tensor.Tensor) kvcRows {
	if t.IsZero() {
		return kvcRows{}
	}
	r := kvcRows{off: t.Offset}
	if t.Shape[0] != 1 {
		r.bStride = t.Stride(0)
	}
	if t.Shape[2] != 1 {
		r.sStride = t.Stride(2)
	}
	return r
}

func (r kvcRows) at(b, s int) int { return r.off + b*r.bStride + s*r.sStride }

// KVRMSNormRoPECache is the op; its native implementation is registered by backend/native.
var KVRMSNormRoPECache = NewOp[KVRMSNormRoPECacheArgs]("kv_rmsnorm_rope_cache")

// NewKVRMSNormRoPECache checks everything a kernel relies on: dtypes, shapes, strides, the cache
// layout of the mode, the quantisation parameters, and every index value (range and, where the
// mode forbids them, duplicates). On success a kernel cannot fail or write outside the views; on
// error nothing has been written.
func NewKVRMSNormRoPECache(p KVRMSNormRoPECacheParams) (KVRMSNormRoPECacheArgs, error) {
	a := KVRMSNormRoPECacheArgs{KVRMSNormRoPECacheParams: p}
	if err := a.check(); err != nil {
		return KVRMSNormRoPECacheArgs{}, err
	}
	a.kvRows, a.cosRows, a.sinRows = kvcRowsOf(a.KV), kvcRowsOf(a.Cos), kvcRowsOf(a.Sin)
	a.kRopeRows, a.ckvRows = kvcRowsOf(a.KRoPE), kvcRowsOf(a.CKV)
	return a, nil
}

func (a *KVRMSNormRoPECacheArgs) check() error {
	kv := a.KV
	if err := kvcFloat("kv", kv); err != nil {
		return err
	}
	if kv.Rank() != 4 {
		return fmt.Errorf("kv: shape %s: want 4 dimensions [B, 1, S, Dv+Dk]", tensor.ShapeString(kv.Shape))
	}
	if kv.Shape[1] != 1 {
		return fmt.Errorf("kv: shape %s: %d heads; DeepSeek MLA's latent kv has N = 1", tensor.ShapeString(kv.Shape), kv.Shape[1])
	}
	if err := kvcContiguousRows("kv", kv); err != nil {
		return err
	}
	a.Batch, a.Seq = kv.Shape[0], kv.Shape[2]
	if a.Batch != 0 && a.Seq > math.MaxInt/a.Batch {
		return fmt.Errorf("kv: shape %s: B·S overflows", tensor.ShapeString(kv.Shape))
	}
	B, S, D := a.Batch, a.Seq, kv.Shape[3]

	if err := kvcFloat("gamma", a.Gamma); err != nil {
		return err
	}
	if err := kvcSameDType("gamma", a.Gamma, kv); err != nil {
		return err
	}
	if a.Gamma.Rank() != 1 || a.Gamma.Shape[0] < 1 {
		return fmt.Errorf("gamma: shape %s: want [Dv] with Dv ≥ 1", tensor.ShapeString(a.Gamma.Shape))
	}
	a.Dv = a.Gamma.Shape[0]

	for _, c := range []struct {
		n string
		t tensor.Tensor
	}{{"cos", a.Cos}, {"sin", a.Sin}} {
		if err := kvcFloat(c.n, c.t); err != nil {
			return err
		}
		if err := kvcSameDType(c.n, c.t, kv); err != nil {
			return err
		}
		sh := c.t.Shape
		if len(sh) != 4 || sh[0] != B && sh[0] != 1 || sh[1] != 1 || sh[2] != S && sh[2] != 1 {
			return fmt.Errorf("%s: shape %s: want [B,1,S,Dk] or [B,1,1,Dk] with B = %d, S = %d", c.n, tensor.ShapeString(sh), B, S)
		}
		if err := kvcContiguousRows(c.n, c.t); err != nil {
			return err
		}
	}
	if !slices.Equal(a.Sin.Shape, a.Cos.Shape) {
		return fmt.Errorf("sin: shape %s differs from cos's %s", tensor.ShapeString(a.Sin.Shape), tensor.ShapeString(a.Cos.Shape))
	}
	a.Dk = a.Cos.Shape[3]
	if a.Dk < 2 || a.Dk%2 != 0 {
		return fmt.Errorf("cos: last dimension Dk = %d: want an even number ≥ 2", a.Dk)
	}
	// Subtracted, not added: gamma broadcast over a stride of 0 can claim any Dv, and Dv + Dk
	// would wrap negative.
	if D-a.Dk != a.Dv {
		if a.Dv > math.MaxInt-a.Dk {
			return fmt.Errorf("kv: last dimension %d: want gamma's Dv %d + cos's Dk %d, which overflows int", D, a.Dv, a.Dk)
		}
		return fmt.Errorf("kv: last dimension %d: want gamma's Dv %d + cos's Dk %d = %d", D, a.Dv, a.Dk, a.Dv+a.Dk)
	}

	mode, err := ParseCacheMode(string(a.CacheMode))
	if err != nil {
		return err
	}
	a.CacheMode = mode
	if _, err := CheckEpsilon(a.Epsilon); err != nil {
		return err
	}

	if a.KLayout, err = kvcCacheLayout("k_cache", a.KCache, mode, kv.DType, B, a.Dk); err != nil {
		return err
	}
	if a.CKVLayout, err = kvcCacheLayout("ckv_cache", a.CKVCache, mode, kv.DType, B, a.Dv); err != nil {
		return err
	}
	if kl, cl := a.KLayout, a.CKVLayout; kl.Blocks != cl.Blocks || kl.BlockSize != cl.BlockSize {
		what := "blocks of"
		if mode == CacheNorm {
			what = "batches of length"
		}
		return fmt.Errorf("ckv_cache: shape %s: %d %s %d, but k_cache %s has %d %s %d",
			tensor.ShapeString(a.CKVCache.Shape), cl.Blocks, what, cl.BlockSize, tensor.ShapeString(a.KCache.Shape), kl.Blocks, what, kl.BlockSize)
	}

	if a.KQuant, err = kvcQuantParams("k_rope_scale", a.KRoPEScale, "k_rope_offset", a.KRoPEOffset, "k_cache", a.KCache.DType, a.Dk); err != nil {
		return err
	}
	if a.CKVQuant, err = kvcQuantParams("c_kv_scale", a.CKVScale, "c_kv_offset", a.CKVOffset, "ckv_cache", a.CKVCache.DType, a.Dv); err != nil {
		return err
	}

	for _, o := range []struct {
		n string
		t tensor.Tensor
		d int
	}{{"k_rope", a.KRoPE, a.Dk}, {"c_kv", a.CKV, a.Dv}} {
		if o.t.IsZero() {
			continue
		}
		if err := kvcFloat(o.n, o.t); err != nil {
			return err
		}
		if err := kvcSameDType(o.n, o.t, kv); err != nil {
			return err
		}
		if want := []int{B, 1, S, o.d}; !slices.Equal(o.t.Shape, want) {
			return fmt.Errorf("%s: shape %s: want %s", o.n, tensor.ShapeString(o.t.Shape), tensor.ShapeString(want))
		}
		if err := kvcContiguousRows(o.n, o.t); err != nil {
			return err
		}
	}
	return a.checkIndex()
}

// checkIndex checks the index's dtype, shape, every value's range, and duplicates.
func (a *KVRMSNormRoPECacheArgs) checkIndex() error {
	idx, mode := a.Index, a.CacheMode
	if idx.IsZero() {
		return fmt.Errorf("index: missing")
	}
	if err := idx.Check("index"); err != nil {
		return err
	}
	if idx.DType != tensor.I64 && idx.DType != tensor.I32 {
		return fmt.Errorf("index: dtype %v: want I64", idx.DType)
	}
	B, S := a.Batch, a.Seq
	bs, blocks := a.KLayout.BlockSize, a.KLayout.Blocks
	var want []int
	var form string
	switch {
	case mode == CacheNorm:
		want, form = []int{B, S}, "[B, S]"
	case mode.PerBlock():
		want, form = []int{B * a.blocksPerSeq()}, "[B·ceil(S/BlockSize)]"
	default:
		want, form = []int{B * S}, "[B·S]"
	}
	if !slices.Equal(idx.Shape, want) {
		return fmt.Errorf("index: shape %s: %s mode wants %s = %s", tensor.ShapeString(idx.Shape), mode, form, tensor.ShapeString(want))
	}
	a.idx = kvcIndexOf(idx)
	a.linear = mode != CacheNorm && !mode.PerBlock() &&
		a.KLayout.BlockStride == bs*a.KLayout.SlotStride && a.CKVLayout.BlockStride == bs*a.CKVLayout.SlotStride

	// Range: Norm positions lie in [−1, Scache); paged values are global slots in
	// [−1, BlockNum·BlockSize). Keys identify what must not repeat.
	limit := int64(bs)
	if mode.Paged() {
		limit = int64(blocks) * int64(bs)
		if blocks != 0 && limit/int64(blocks) != int64(bs) {
			limit = math.MaxInt64
		}
	}
	// One pass checks the range and whether the keys strictly increase (slot mappings usually
	// do): then no key repeats, and nothing is sorted or allocated.
	n := idx.Len()
	if a.idx.i64 != nil && a.idx.n1 == 1 && mode != CacheNorm && !mode.PerBlock() && kvcIncreasingSlots(a.idx.i64, a.idx.off, a.idx.s0, n, limit) {
		return nil
	}
	increasing, last := true, int64(math.MinInt64)
	for i := range n {
		v := a.indexAt(i)
		if v < -1 || v >= limit {
			rangeOf := fmt.Sprintf("k_cache's sequence length %d", bs)
			if mode.Paged() {
				rangeOf = fmt.Sprintf("BlockNum·BlockSize = %d·%d", blocks, bs)
			}
			return fmt.Errorf("index%s = %d: out of range [-1, %d) (%s)", a.indexName(i), v, limit, rangeOf)
		}
		if v == -1 {
			continue
		}
		k := a.indexKey(i, v)
		increasing = increasing && k > last
		last = k
	}
	if increasing {
		return nil
	}
	// Every key lies in [0, space), so once space+1 keys are in hand two of them must be equal:
	// the keys kept are bounded by the caches' slots, which kvcCacheLayout bounds by their
	// buffers, rather than by B·S, which a kv and an index broadcast over a stride of 0 can
	// make as large as they like from a few real values.
	space := int64(blocks) * int64(bs) // no overflow: kvcCacheLayout keeps it within a buffer
	if mode.PerBlock() {
		space = int64(blocks)
	}
	var stack [256]int64
	keys := stack[:0]
	if int64(n) <= space && n > len(stack) {
		keys = make([]int64, 0, n)
	}
	for i := range n {
		if v := a.indexAt(i); v != -1 {
			keys = append(keys, a.indexKey(i, v))
			if int64(len(keys)) > space {
				break
			}
		}
	}
	if dup, ok := kvcDuplicate(keys); ok {
		// Find the two entries for the message; only the error path pays for the scan.
		first := -1
		for i := range n {
			v := a.indexAt(i)
			if v < 0 || a.indexKey(i, v) != dup {
				continue
			}
			if first < 0 {
				first = i
				continue
			}
			switch {
			case mode == CacheNorm:
				return fmt.Errorf("index%s = %d: repeats index%s in batch %d (a cache position takes one token)", a.indexName(i), v, a.indexName(first), i/S)
			case mode.PerBlock():
				return fmt.Errorf("index%s = %d: block %d already taken by index%s = %d (%s wants distinct index/BlockSize)", a.indexName(i), v, v/int64(bs), a.indexName(first), a.indexAt(first), mode)
			}
			return fmt.Errorf("index%s = %d: slot already taken by index%s (%s wants distinct slots)", a.indexName(i), v, a.indexName(first), mode)
		}
	}
	return nil
}

// indexAt is the i-th index value in row-major order.
func (a *KVRMSNormRoPECacheArgs) indexAt(i int) int64 {
	x := &a.idx
	if x.n1 == 1 {
		return x.at(x.off + i*x.s0)
	}
	return x.at(x.off + i/x.n1*x.s0 + i%x.n1*x.s1)
}

// indexName formats the coordinates of the i-th index value.
func (a *KVRMSNormRoPECacheArgs) indexName(i int) string {
	if a.Index.Rank() == 2 {
		return fmt.Sprintf("[%d,%d]", i/a.Index.Shape[1], i%a.Index.Shape[1])
	}
	return fmt.Sprintf("[%d]", i)
}

// indexKey is what must be unique among the non-negative index values: the cache position
// within its batch (Norm), the slot (PA, PA_BNSD, PA_NZ) or the block (PA_BLK_*).
func (a *KVRMSNormRoPECacheArgs) indexKey(i int, v int64) int64 {
	switch {
	case a.CacheMode == CacheNorm:
		return int64(i/a.Seq)*int64(a.KLayout.BlockSize) + v
	case a.CacheMode.PerBlock():
		return v / int64(a.KLayout.BlockSize)
	}
	return v
}

// kvcIncreasingSlots reports whether the n values x[off + i·step] all lie in [−1, limit) and
// the non-negative ones strictly increase: checkIndex's common case (a slot mapping in order,
// rank-1 I64 index, the value its own key) in a loop without per-value dispatch.
func kvcIncreasingSlots(x []int64, off, step, n int, limit int64) bool {
	if n == 0 || off < 0 || off+(n-1)*step >= len(x) {
		return n == 0
	}
	if step == 1 {
		// Contiguous and, usually, without −1: in range at both ends and increasing pair by
		// pair, with no value carried from one step to the next.
		xs := x[off : off+n : off+n]
		if xs[0] >= 0 && xs[n-1] < limit && kvcStrictlyIncreasing(xs) {
			return true
		}
	}
	last := int64(-1)
	for i := range n {
		v := x[off+i*step]
		if v == -1 {
			continue
		}
		if v <= last || v >= limit {
			return false
		}
		last = v
	}
	return true
}

// kvcStrictlyIncreasing reports whether every value of xs is greater than the one before.
func kvcStrictlyIncreasing(xs []int64) bool {
	for i := 1; i < len(xs); i++ {
		if xs[i] <= xs[i-1] {
			return false
		}
	}
	return true
}

// kvcDuplicate sorts keys and returns a value that occurs twice.
func kvcDuplicate(keys []int64) (int64, bool) {
	slices.Sort(keys)
	for i := 1; i < len(keys); i++ {
		if keys[i] == keys[i-1] {
			return keys[i], true
		}
	}
	return 0, false
}

func kvcFloat(name string, t tensor.Tensor) error {
	if t.IsZero() {
		return fmt.Errorf("%s: missing", name)
	}
	if err := t.Check(name); err != nil {
		return err
	}
	if !t.DType.IsFloat() {
		return fmt.Errorf("%s: dtype %v: want F16, BF16 or F32", name, t.DType)
	}
	return nil
}

func kvcSameDType(name string, t tensor.Tensor, kv tensor.Tensor) error {
	if t.DType != kv.DType {
		return fmt.Errorf("%s: dtype %v differs from kv's %v", name, t.DType, kv.DType)
	}
	return nil
}

func kvcContiguousRows(name string, t tensor.Tensor) error {
	if t.Rank() > 0 && t.Shape[t.Rank()-1] > 1 && t.Stride(t.Rank()-1) != 1 {
		return fmt.Errorf("%s: the last dimension must be contiguous (stride 1, not %d)", name, t.Stride(t.Rank()-1))
	}
	return nil
}

// kvcCacheLayout checks one cache against the mode and returns where its rows live; width is
// the row length (Dk or Dv) and B kv's batch. A cache must hold at least one element per slot:
// a view with more slots than its buffer has elements repeats memory (a stride of 0), so its
// slots are not the distinct rows the index check assumes, and that check's memory, bounded by
// the slot count, would not be bounded by the caller's data.
func kvcCacheLayout(name string, c tensor.Tensor, mode CacheMode, kvType tensor.DType, B, width int) (KVCacheLayout, error) {
	l, err := kvcCacheLayoutOf(name, c, mode, kvType, B, width)
	if err != nil {
		return KVCacheLayout{}, err
	}
	n := 0
	switch c.DType {
	case tensor.F32:
		n = len(c.F32)
	case tensor.F16, tensor.BF16:
		n = len(c.Bits)
	case tensor.I8:
		n = len(c.I8)
	}
	if l.BlockSize > 0 && l.Blocks > n/l.BlockSize {
		return KVCacheLayout{}, fmt.Errorf("%s: shape %s: %d blocks of %d slots over a %d-element buffer: want memory of its own for every slot (no stride 0)", name, tensor.ShapeString(c.Shape), l.Blocks, l.BlockSize, n)
	}
	return l, nil
}

func kvcCacheLayoutOf(name string, c tensor.Tensor, mode CacheMode, kvType tensor.DType, B, width int) (KVCacheLayout, error) {
	if c.IsZero() {
		return KVCacheLayout{}, fmt.Errorf("%s: missing", name)
	}
	if err := c.Check(name); err != nil {
		return KVCacheLayout{}, err
	}
	if c.DType != kvType && c.DType != tensor.I8 {
		return KVCacheLayout{}, fmt.Errorf("%s: dtype %v: want kv's %v or I8", name, c.DType, kvType)
	}
	sh := c.Shape
	if mode == CacheNorm {
		if len(sh) != 4 || sh[0] < B || sh[1] != 1 || sh[3] != width {
			return KVCacheLayout{}, fmt.Errorf("%s: shape %s: Norm mode wants [Bcache, 1, Scache, %d] with Bcache ≥ B = %d", name, tensor.ShapeString(sh), width, B)
		}
		if err := kvcContiguousRows(name, c); err != nil {
			return KVCacheLayout{}, err
		}
		return KVCacheLayout{Blocks: sh[0], BlockSize: sh[2], Off: c.Offset, BlockStride: c.Stride(0), SlotStride: c.Stride(2), Group: width}, nil
	}
	if !mode.NZ() {
		if len(sh) != 4 || sh[2] != 1 || sh[3] != width || sh[1] < 1 {
			return KVCacheLayout{}, fmt.Errorf("%s: shape %s: %s mode wants [BlockNum, BlockSize ≥ 1, 1, %d]", name, tensor.ShapeString(sh), mode, width)
		}
		if err := kvcContiguousRows(name, c); err != nil {
			return KVCacheLayout{}, err
		}
		return KVCacheLayout{Blocks: sh[0], BlockSize: sh[1], Off: c.Offset, BlockStride: c.Stride(0), SlotStride: c.Stride(1), Group: width}, nil
	}
	c0 := 32 / c.DType.Size()
	if width%c0 != 0 {
		return KVCacheLayout{}, fmt.Errorf("%s: %s stores rows in 32-byte groups of %d %v: row length %d is not a multiple", name, mode, c0, c.DType, width)
	}
	switch len(sh) {
	case 4: // the logical shape torch_npu reports; the memory is NZ, so the view must be whole
		if sh[2] != 1 || sh[3] != width || sh[1] < 1 {
			break
		}
		if !c.Contiguous() {
			return KVCacheLayout{}, fmt.Errorf("%s: a [BlockNum, BlockSize, 1, %d] view of an NZ cache must be contiguous (or give the NZ shape [BlockNum, %d, BlockSize, 1, %d] with strides)", name, width, width/c0, c0)
		}
		bs := sh[1]
		// Check bounds bs·width by the buffer only when the cache has a block.
		blockStride, ok := mulInt(bs, width)
		if !ok {
			return KVCacheLayout{}, fmt.Errorf("%s: shape %s: a block of %d slots of %d overflows int", name, tensor.ShapeString(sh), bs, width)
		}
		return KVCacheLayout{Blocks: sh[0], BlockSize: bs, Off: c.Offset, BlockStride: blockStride, SlotStride: c0, GroupStride: bs * c0, Group: c0}, nil
	case 5: // the NZ memory shape
		if sh[1] != width/c0 || sh[2] < 1 || sh[3] != 1 || sh[4] != c0 {
			break
		}
		if err := kvcContiguousRows(name, c); err != nil {
			return KVCacheLayout{}, err
		}
		return KVCacheLayout{Blocks: sh[0], BlockSize: sh[2], Off: c.Offset, BlockStride: c.Stride(0), SlotStride: c.Stride(2), GroupStride: c.Stride(1), Group: c0}, nil
	}
	return KVCacheLayout{}, fmt.Errorf("%s: shape %s: %s mode wants [BlockNum, BlockSize ≥ 1, 1, %d] or its NZ form [BlockNum, %d, BlockSize, 1, %d]", name, tensor.ShapeString(sh), mode, width, width/c0, c0)
}

// kvcQuantParams checks a cache's scale and offset (named sn and on) against its dtype.
func kvcQuantParams(sn string, scale tensor.Tensor, on string, offset tensor.Tensor, cacheName string, cacheType tensor.DType, width int) (KVQuant, error) {
	if cacheType != tensor.I8 {
		for _, p := range []struct {
			n string
			t tensor.Tensor
		}{{sn, scale}, {on, offset}} {
			if !p.t.IsZero() {
				return KVQuant{}, fmt.Errorf("%s: given, but %s is %v, not I8: only int8 caches are quantised", p.n, cacheName, cacheType)
			}
		}
		return KVQuant{}, nil
	}
	if scale.IsZero() {
		return KVQuant{}, fmt.Errorf("%s: missing: %s is I8 and needs it (q = round(y·scale + offset))", sn, cacheName)
	}
	var q KVQuant
	var err error
	if q.Scale, q.ScaleAt, q.ScaleStep, err = kvcQuantVector(sn, scale, width); err != nil {
		return KVQuant{}, err
	}
	if !offset.IsZero() {
		if q.Offset, q.OffsetAt, q.OffsetStep, err = kvcQuantVector(on, offset, width); err != nil {
			return KVQuant{}, err
		}
	}
	return q, nil
}

// kvcQuantVector checks a per-channel ([width] or [1, width]) or per-tensor ([1]) F32 vector.
func kvcQuantVector(name string, t tensor.Tensor, width int) ([]float32, int, int, error) {
	if err := t.Check(name); err != nil {
		return nil, 0, 0, err
	}
	if t.DType != tensor.F32 {
		return nil, 0, 0, fmt.Errorf("%s: dtype %v: want F32", name, t.DType)
	}
	sh := t.Shape
	switch {
	case len(sh) <= 2 && t.Len() == 1:
		return t.F32, t.Offset, 0, nil
	case len(sh) == 1 && sh[0] == width, len(sh) == 2 && sh[0] == 1 && sh[1] == width:
		return t.F32, t.Offset, t.Stride(len(sh) - 1), nil
	}
	return nil, 0, 0, fmt.Errorf("%s: shape %s: want [%d] or [1,%d] (per channel) or [1] (per tensor)", name, tensor.ShapeString(sh), width, width)
}
