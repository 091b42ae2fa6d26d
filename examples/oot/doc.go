// Package oot is an example out-of-tree backend: a package outside rotary that replaces the
// implementation of one op, the way vllm-ascend replaces RotaryEmbedding.forward_oot through
// vLLM's CustomOp.register_oot (vllm/model_executor/custom_op.py).
//
// The package registers nothing on import. A program opts in by calling Register once, before
// it builds its embeddings or at any later time: dispatch caches notice the change. From then
// on every enabled rotary_embedding call in the process, under any Dispatcher, runs Rotate
// instead of the in-tree backends; a Dispatcher whose custom-ops spec disables the op still runs
// the native kernel, and ops.ClearOOT("rotary_embedding") undoes the registration.
//
// A real backend would call its device kernel in Rotate; this one calls the exported reference
// kernel, so its results equal native bit for bit, and counts its calls so a program (or a test)
// can see that it ran.
package oot
