package rotary

import "github.com/rotary-go/rotary/ops"

// KVRMSNormRoPECacheParams are KVRMSNormRoPECache's arguments (see ops.KVRMSNormRoPECacheParams).
type KVRMSNormRoPECacheParams = ops.KVRMSNormRoPECacheParams

// KVRMSNormRoPECache is op kv_rmsnorm_rope_cache (torch_npu
// npu_kv_rmsnorm_rope_cache): DeepSeek MLA's KV-cache update for one layer. Each token's row of
// p.KV [B, 1, S, Dv+Dk] splits in two:
//
//   - c_kv = RMSNorm(kv[:Dv])·gamma (float32, native.SumSquares' order), written to p.CKVCache;
//   - k_rope = the GPT-J rotation of kv[Dv:] by full-width cos/sin, written de-interleaved:
//     with x1 = x[0::2], x2 = x[1::2], k_rope = cat(x1, x2)·cos + cat(−x2, x1)·sin (NeoX order,
//     as HF's DeepSeek code returns it), to p.KCache.
//
// p.Index places the token in both caches as p.CacheMode says (Norm: a position per batch;
// PA/PA_BNSD/PA_NZ: a global slot per token; PA_BLK_BNSD/PA_BLK_NZ: a global offset per block
// of BlockSize tokens); −1 skips the token. NZ modes use the FRACTAL_NZ cache layout
// (ops.KVCacheLayout). An I8 cache stores clamp(round_half_even(y·scale + offset), −128, 127)
// with the matching F32 scale (and optional offset), per channel or per tensor. p.KRoPE and
// p.CKV, when given, receive every token's unquantised results.
//
// d chooses the backend (nil: ops.Default). Everything is checked first: on error (a bad dtype
// or shape, an index out of range or repeated where the mode forbids it) the caches and outputs
// are unchanged.
func KVRMSNormRoPECache(d *ops.Dispatcher, p KVRMSNormRoPECacheParams) error {
	// Checked straight into the op's arguments and passed from this variable, so the kilobytes
	// of tensors are copied once into the arguments and once into the call: a decode call
	// updates one row per batch.
	var a ops.KVRMSNormRoPECacheArgs
	if err := ops.NewKVRMSNormRoPECacheInto(&a, &p); err != nil {
		return err
	}
	_, err := ops.Run(dispatcher(d), ops.KVRMSNormRoPECache, a)
	return err
}
