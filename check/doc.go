// Package check finds contract mistakes in a model config and the launch options it is run
// with: the MRoPE launch mistakes the torch_npu npu_mrope and MindSpeed/Megatron documentation
// warn about (an MRoPE model on the plain RoPE branch, fused flags
// with MRoPE, section and position-row mismatches, npu_mrope and npu_interleave_rope
// constraints) and the ones users hit elsewhere (YaRN factor inconsistent with the context
// lengths, rotary dim past head dim, LongRoPE factor lists of the wrong length, unknown model
// types). Each finding says what is wrong, why it matters, and the fix.
package check
