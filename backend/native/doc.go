// Package native holds the reference kernels: plain loops, written to be obviously right, the
// oracle every other backend is tested against.
//
// Arithmetic is float32 with one fixed order of operations, each product rounded before the sum
// (no fused multiply-add): o1 = x1·cos − x2·sin, o2 = x2·cos + x1·sin. Inputs in F16/BF16 widen
// exactly; each output rounds once, to nearest even. A fast backend that keeps that order matches
// these kernels bit for bit.
//
// Elements a rotation does not touch (past the rotary dim) are never widened: out of place they
// are copied as raw bits, in place they are not written, so signalling NaNs and every other
// pattern come through unchanged.
//
// Kernels take arguments already checked by package ops and never fail.
//
// Each op's file, named after the op, holds its kernel and registers it as backend native, the
// fallback for whatever op no other backend serves: rotary_embedding.go,
// rotary_embedding_gathered.go, mrope.go, apply_rotary_emb.go and apply_rotary_emb_thd.go (each
// with its backward pass), interleave_rope.go, qk_rmsnorm_rope.go and kv_rmsnorm_rope_cache.go.
// What several ops share is named for what it is: rotation.go (the pair rotation of
// rotary_embedding, its gathered form, mrope and qk_rmsnorm_rope), rows.go (walking a tensor's
// rows, with cos and sin broadcast against them) and rmsnorm.go (the fused norms' arithmetic).
package native
