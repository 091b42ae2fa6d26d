// Package rotary applies rotary position embeddings (RoPE) exactly as the models that use them
// define it, fast.
//
// A Spec says what a model's RoPE is: head size, rotary dim, base (rope_theta), pair style
// (NeoX halves or GPT-J interleaved pairs), the scaling variant (linear, dynamic NTK, NTK-alpha,
// YaRN, Llama 3, LongRoPE), MRoPE sections, per-layer rules and dual-chunk attention. Package hf
// derives one from a Hugging Face config.json. New validates a Spec and builds its cos/sin cache
// once, in float64 rounded once to float32; the returned Embedding is immutable and safe for
// concurrent use. A model whose layers differ (sliding and full layers, layers without RoPE)
// is built with NewLayers, one Embedding per distinct layer RoPE; New refuses its spec.
//
// Per forward pass:
//
//   - Embedding.Forward rotates query and key in place at the given positions (vLLM's
//     RotaryEmbedding.forward; MRoPE for multimodal models);
//   - Embedding.Gather gathers cos/sin for the batch's positions once, and CosSin.Apply rotates
//     every layer's query and key with them, without allocating;
//   - Embedding.ForwardQKNorm fuses Qwen3's per-head RMSNorm with the rotation;
//   - for a Layers, Layers.Gather once and LayersCosSin.Apply(l, q, k) on layer l.
//
// The free functions are torch_npu's and TransformerEngine's fused operators on explicit
// tensors: ApplyRotaryEmb and its backward pass (npu_rotary_mul), ApplyRotaryEmbTHD (packed
// sequences, context parallel), InterleaveRoPE (npu_interleave_rope), NPUMRoPE (npu_mrope) and
// KVRMSNormRoPECache (npu_kv_rmsnorm_rope_cache).
//
// Every op goes through the registry in package ops, which picks a backend per op: the
// reference kernels of backend/native, or the SIMD kernels of backend/cpu, both linked in by
// this package. Errors name the argument and what was expected; a call that fails writes
// nothing.
package rotary
