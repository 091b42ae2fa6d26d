package ops

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/rotary-go/rotary/tensor"
)

// kv_rmsnorm_rope_cache is DeepSeek MLA's fused KV-cache update (torch_npu
// npu_kv_rmsnorm_rope_cache, aclnnKVRMSNormRoPECache): each token's kv row [Dv+Dk] splits into
// the compressed part kv[:Dv], which is RMS-normalised and scaled by gamma, and the rope part
// kv[Dv:], which is rotated GPT-J style but written de-interleaved (NeoX order); both results
// are scattered into their caches at the slot the index gives, optionally quantised to int8.

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

// KVRMSNormRoPECache is the op; its native implementation is registered by backend/native.
var KVRMSNormRoPECache = NewOp[KVRMSNormRoPECacheArgs]("kv_rmsnorm_rope_cache")

// NewKVRMSNormRoPECache checks everything a kernel relies on: dtypes, shapes, strides, the cache
// layout of the mode, the quantisation parameters, and every index value (range and, where the
// mode forbids them, duplicates). On success a kernel cannot fail or write outside the views; on
// error nothing has been written.
func NewKVRMSNormRoPECache(p KVRMSNormRoPECacheParams) (KVRMSNormRoPECacheArgs, error) {
	var a KVRMSNormRoPECacheArgs
	if err := NewKVRMSNormRoPECacheInto(&a, &p); err != nil {
		return KVRMSNormRoPECacheArgs{}, err
	}
	return a, nil
}

// NewKVRMSNormRoPECacheInto is NewKVRMSNormRoPECache for the per-call hot path: it reads p
// through a pointer and checks straight into *a, which it overwrites whatever it held, with the
// same checks and errors. On success *a is what NewKVRMSNormRoPECache(*p) returns; on error it is
// the zero KVRMSNormRoPECacheArgs, as NewKVRMSNormRoPECache returns it, and no tensor has been
// written. The arguments are some kilobytes of tensors, and a decode call updates one token per
// batch: copied from layer to layer and into every check, they cost more than the kernel does.
// p may be a's own parameters; nil a or p is an error.
func NewKVRMSNormRoPECacheInto(a *KVRMSNormRoPECacheArgs, p *KVRMSNormRoPECacheParams) error {
	if a == nil {
		return errors.New("kv_rmsnorm_rope_cache: nil arguments to write into")
	}
	if p == nil {
		*a = KVRMSNormRoPECacheArgs{}
		return errors.New("kv_rmsnorm_rope_cache: parameters missing (nil)")
	}
	if p != &a.KVRMSNormRoPECacheParams {
		a.KVRMSNormRoPECacheParams = *p
	}
	// check sets every derived field but the row addressing, which follows.
	if err := a.check(); err != nil {
		*a = KVRMSNormRoPECacheArgs{}
		return err
	}
	a.kvRows, a.cosRows, a.sinRows = kvcRowsOf(&a.KV), kvcRowsOf(&a.Cos), kvcRowsOf(&a.Sin)
	a.kRopeRows, a.ckvRows = kvcRowsOf(&a.KRoPE), kvcRowsOf(&a.CKV)
	return nil
}

// check starts from kv, since every other shape is stated in its B, S and width; each step sets
// what the later ones compare against (Batch, Seq, Dv, Dk, the layouts), so the order is fixed.
// The tensors are read in place, through pointers: Tensor's value methods would copy the whole
// Tensor at every call.
func (a *KVRMSNormRoPECacheArgs) check() error {
	if err := a.checkKV(); err != nil {
		return err
	}
	if err := a.checkGamma(); err != nil {
		return err
	}
	if err := a.checkCosSin(); err != nil {
		return err
	}
	mode, err := ParseCacheMode(string(a.CacheMode))
	if err != nil {
		return err
	}
	a.CacheMode = mode
	if _, err := CheckEpsilon(a.Epsilon); err != nil {
		return err
	}
	if err := a.checkCaches(); err != nil {
		return err
	}
	if err := kvcQuantParams(&a.KQuant, "k_rope_scale", &a.KRoPEScale, "k_rope_offset", &a.KRoPEOffset, "k_cache", a.KCache.DType, a.Dk); err != nil {
		return err
	}
	if err := kvcQuantParams(&a.CKVQuant, "c_kv_scale", &a.CKVScale, "c_kv_offset", &a.CKVOffset, "ckv_cache", a.CKVCache.DType, a.Dv); err != nil {
		return err
	}
	if err := a.checkOutputs(); err != nil {
		return err
	}
	return a.checkIndex()
}

// checkKV checks kv and sets Batch and Seq.
func (a *KVRMSNormRoPECacheArgs) checkKV() error {
	kv := &a.KV
	if err := kvcFloat("kv", kv); err != nil {
		return err
	}
	if len(kv.Shape) != 4 {
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
	return nil
}

// checkGamma checks gamma against kv and sets Dv.
func (a *KVRMSNormRoPECacheArgs) checkGamma() error {
	g := &a.Gamma
	if err := kvcFloat("gamma", g); err != nil {
		return err
	}
	if err := kvcSameDType("gamma", g.DType, a.KV.DType); err != nil {
		return err
	}
	if len(g.Shape) != 1 || g.Shape[0] < 1 {
		return fmt.Errorf("gamma: shape %s: want [Dv] with Dv ≥ 1", tensor.ShapeString(g.Shape))
	}
	a.Dv = g.Shape[0]
	return nil
}

// checkCosSin checks cos and sin against kv, sets Dk, and checks that Dv and Dk make up kv's
// last dimension.
func (a *KVRMSNormRoPECacheArgs) checkCosSin() error {
	// One call per tensor rather than a loop over name and pointer pairs: escape analysis
	// follows a pair as a whole, so the name going into an error would take a with it to the heap.
	if err := a.checkRotation("cos", &a.Cos); err != nil {
		return err
	}
	if err := a.checkRotation("sin", &a.Sin); err != nil {
		return err
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
	if D := a.KV.Shape[3]; D-a.Dk != a.Dv {
		if a.Dv > math.MaxInt-a.Dk {
			return fmt.Errorf("kv: last dimension %d: want gamma's Dv %d + cos's Dk %d, which overflows int", D, a.Dv, a.Dk)
		}
		return fmt.Errorf("kv: last dimension %d: want gamma's Dv %d + cos's Dk %d = %d", D, a.Dv, a.Dk, a.Dv+a.Dk)
	}
	return nil
}

// checkRotation checks cos or sin (named n) against kv.
func (a *KVRMSNormRoPECacheArgs) checkRotation(n string, t *tensor.Tensor) error {
	if err := kvcFloat(n, t); err != nil {
		return err
	}
	if err := kvcSameDType(n, t.DType, a.KV.DType); err != nil {
		return err
	}
	B, S, sh := a.Batch, a.Seq, t.Shape
	if len(sh) != 4 || sh[0] != B && sh[0] != 1 || sh[1] != 1 || sh[2] != S && sh[2] != 1 {
		return fmt.Errorf("%s: shape %s: want [B,1,S,Dk] or [B,1,1,Dk] with B = %d, S = %d", n, tensor.ShapeString(sh), B, S)
	}
	return kvcContiguousRows(n, t)
}

// checkCaches checks both caches against the mode, sets their layouts, and checks that the
// index addresses the same blocks in both.
func (a *KVRMSNormRoPECacheArgs) checkCaches() error {
	mode, dtype := a.CacheMode, a.KV.DType
	if err := kvcCacheLayout(&a.KLayout, "k_cache", &a.KCache, mode, dtype, a.Batch, a.Dk); err != nil {
		return err
	}
	if err := kvcCacheLayout(&a.CKVLayout, "ckv_cache", &a.CKVCache, mode, dtype, a.Batch, a.Dv); err != nil {
		return err
	}
	if kl, cl := &a.KLayout, &a.CKVLayout; kl.Blocks != cl.Blocks || kl.BlockSize != cl.BlockSize {
		what := "blocks of"
		if mode == CacheNorm {
			what = "batches of length"
		}
		return fmt.Errorf("ckv_cache: shape %s: %d %s %d, but k_cache %s has %d %s %d",
			tensor.ShapeString(a.CKVCache.Shape), cl.Blocks, what, cl.BlockSize, tensor.ShapeString(a.KCache.Shape), kl.Blocks, what, kl.BlockSize)
	}
	return nil
}

// checkOutputs checks the optional unquantised outputs k_rope and c_kv.
func (a *KVRMSNormRoPECacheArgs) checkOutputs() error {
	if err := a.checkOutput("k_rope", &a.KRoPE, a.Dk); err != nil {
		return err
	}
	return a.checkOutput("c_kv", &a.CKV, a.Dv)
}

// checkOutput checks k_rope or c_kv (named n, of width d) when it is present.
func (a *KVRMSNormRoPECacheArgs) checkOutput(n string, t *tensor.Tensor, d int) error {
	if t.DType == tensor.Invalid { // absent
		return nil
	}
	if err := kvcFloat(n, t); err != nil {
		return err
	}
	if err := kvcSameDType(n, t.DType, a.KV.DType); err != nil {
		return err
	}
	if want := [...]int{a.Batch, 1, a.Seq, d}; !slices.Equal(t.Shape, want[:]) {
		return fmt.Errorf("%s: shape %s: want %s", n, tensor.ShapeString(t.Shape), tensor.ShapeString(want[:]))
	}
	return kvcContiguousRows(n, t)
}

func kvcFloat(name string, t *tensor.Tensor) error {
	if t.DType == tensor.Invalid {
		return fmt.Errorf("%s: missing", name)
	}
	if err := tensor.CheckPtr(t, name); err != nil {
		return err
	}
	if !t.DType.IsFloat() {
		return fmt.Errorf("%s: dtype %v: want F16, BF16 or F32", name, t.DType)
	}
	return nil
}

func kvcSameDType(name string, d, kv tensor.DType) error {
	if d != kv {
		return fmt.Errorf("%s: dtype %v differs from kv's %v", name, d, kv)
	}
	return nil
}

func kvcContiguousRows(name string, t *tensor.Tensor) error {
	if r := len(t.Shape); r > 0 && t.Shape[r-1] > 1 {
		if st := tensor.StrideOf(t, r-1); st != 1 {
			return fmt.Errorf("%s: the last dimension must be contiguous (stride 1, not %d)", name, st)
		}
	}
	return nil
}
