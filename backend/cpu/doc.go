// Package cpu is the fast CPU backend: AVX-512 and AVX2 kernels in Go assembly (generated with
// avo from the _asm module, generated files committed), F16C for f16, integer round-to-nearest-
// even for bf16, and a pure-Go fallback under the negated build tags and under -tags purego.
//
// Every kernel keeps backend/native's order of operations (in the rotations each product rounded
// to float32, one add or subtract, no FMA; the norms' sums are FMAs by definition), so results
// match the reference bit for bit. The implementation is chosen once from golang.org/x/sys/cpu;
// tests force each one the machine has.
//
// The RMS norms of the fused ops are native.SumSquares' float32 fused multiply-adds, 32 lanes in
// two zmm, and its pairwise tree. qk_rmsnorm_rope runs one AVX-512 kernel per token for the
// norm, and for heads of 128 rotated full width NeoX style (Qwen3) one kernel per token for the
// whole op. In f32 and f16 (AVX-512) it keeps two interleaved heads in registers from load to
// store: a head alone is one long dependency chain (sum, square root, two roundings, rotation)
// that the out-of-order window cannot overlap with the next. In bf16 (AVX512BF16) it takes 16
// heads in two passes, first every head's scale, then each head from load to store, with values
// kept deinterleaved so that a rounding to bf16 and back is one VCVTNE2PS2BF16 and two splits.
// That instruction flushes subnormals: a head whose rounded words fail a test (one test per
// head when the token's cos and sin have no value in (0, 2^-39), one per rounding otherwise) is
// handed back to the exact path (_asm/qk_rmsnorm_rope.go explains why one test suffices, at
// qkNormRoPEBF16Kernel and qkHead, and _asm/bf16_layout.go the deinterleaved layouts).
//
// kv_rmsnorm_rope_cache runs assembly per token when its rows are contiguous (caches in the kv
// dtype, not the NZ modes; Dv a multiple of 32, Dk of 64, as DeepSeek's 512 and 64): the sum of
// squares, the rotation, the norm's scaling and the rounding stores straight into the cache
// rows. In f32 and f16 that is one kernel per token. In bf16 (AVX512BF16) one kernel takes 16
// tokens in two passes: every token's scale (four tokens' sums of squares at once) and rotation,
// then each token's normalized row, converted 32 values at a time, with one check per row for
// values the conversion flushed (such a row is redone with the integer rounding). When every row
// address is affine in the token (an in-order I64 index of a PA, PA_BNSD or PA_NZ call without
// outputs: ops.KVLinear) the 16 tokens' addresses cost one multiply-add each. Other layouts and
// int8 caches widen each row, normalize it (one kernel on AVX-512, Go otherwise) and store
// through Go.
//
// apply_rotary_emb and apply_rotary_emb_thd (forward and backward) go row by row through the
// rotations' full-row kernels: each row (or a token's heads together) is read from the input
// and rotated into the output in one pass by its cos/sin row widened once; the backward passes
// rotate by the sin row with each value replaced by minus its pair partner's. apply_rotary_emb's
// backward sums dcos and dsin in float64 kernels, the pool splitting the cos rows so that each
// element's terms are added in native's order by one thread. interleave_rope has
// kv_rmsnorm_rope_cache's formula for the rope part and runs that op's rotation (kvcRopeLoop) as
// a kernel of its own, a token's heads per call; where the kernel does not apply it
// de-interleaves rows in Go and rotates them as apply_rotary_emb does.
//
// mrope assembles an image token's cos/sin row from its axes' cache rows with a masked-load
// kernel (text tokens take their cache row as it is) and rotates as rotary_embedding does.
// vision_rope_2d evaluates cos/sin in float64 as native does, keeping each half's by coordinate
// in a small table per call, since an image's coordinates repeat.
//
// Each op has its files named after it: <op>.go holds its Go code and registers it. The ops with
// assembly kernels of their own (interleave_rope, qk_rmsnorm_rope, kv_rmsnorm_rope_cache, mrope
// for its gather, and apply_rotary_emb for its backward pass's sums) add
// <op>_amd64.go, the kernels' wrappers and the checks of when they apply, and <op>_generic.go,
// the same names for builds without assembly (other architectures, -tags purego), where no
// kernel applies. apply_rotary_emb.go and apply_rotary_emb_thd.go hold their ops' backward
// passes too. What several ops share is named for what it is: kernels.go (with _amd64 and
// _generic) selects the kernel set; rotation.go holds the two shared rotations, per pair by a
// token's cos/sin (rotateHeads: rotary_embedding, its gathered form, mrope, qk_rmsnorm_rope) and
// per element by full-width rows (rotateRows: apply_rotary_emb, apply_rotary_emb_thd,
// interleave_rope's Go path, which walk a tensor's rows with rotateBroadcastRows), their
// kernels reached through the generated dispatch_amd64.go (rotation_generic.go without
// assembly); convert.go (with _amd64 and _generic) holds the bulk bf16/f16 conversions, rows.go
// the row walker, row buffers and row addresses, pool.go the thread pool that splits large
// calls, each op's call handed to it as a job type of the op's own (poolJob). rotate_amd64.s,
// rotate_amd64_stubs.go and dispatch_amd64.go are generated from _asm by the go:generate line
// in kernels_amd64.go.
//
// Importing the package registers its kernels with package ops as backend "cpu".
package cpu
