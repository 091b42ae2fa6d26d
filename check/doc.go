// Package check finds contract mistakes in a model config and the launch options it is run
// with, and measures where the frameworks that read the same config disagree.
//
// Config runs the contract checks: the MRoPE launch mistakes the torch_npu npu_mrope and
// MindSpeed/Megatron documentation warn about (an MRoPE model on the plain RoPE branch, fused
// flags with MRoPE, section and position-row mismatches, npu_mrope and npu_interleave_rope
// constraints) and the ones users hit elsewhere (YaRN factor inconsistent with the context
// lengths, rotary dim past head dim, LongRoPE factor lists of the wrong length, unknown model
// types). Each finding says what is wrong, why it matters, and the fix. It reads the config
// through hf (hf.Parse, and hf.ReadRaw to explain a config hf refuses).
//
// Three comparisons return reports whose JSON forms are contracts for tools and whose WriteText
// is what rotary check prints:
//
//   - Frameworks: the framework dialects (hf.Dialects) read a config rule by rule, each rule on
//     which two differ measured alone as a Comparison of the two rotations over the model's
//     positions (and, for the Qwen-VL get_rope_index versions, on a canonical prompt's
//     positions).
//   - GGUF: the RoPE llama.cpp derives from a GGUF file against the config's, rule by rule.
//   - Precision: how far angles computed in float32 drift from the exact ones.
//
// Inspect describes one layer's RoPE of a model (InspectGGUF: of a GGUF file) in the report
// rotary inspect prints: the spec, its frequencies and attention factor, the model's other
// RoPE, notes and warnings.
//
// A Comparison measures two specs' rotations of a unit vector at every position below the
// longer max length (an even sample past 2^20), as each feeds a text token, and calls them
// divergent past float32 noise (2^-22).
package check
