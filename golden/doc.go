// Package golden makes and applies golden bundles: an op's seeded inputs and its expected
// outputs in one file, the reference a port of RoPE to new hardware or a new framework is
// checked against (`rotary golden`, `rotary apply --in`, `rotary verify`).
//
// A bundle holds the op's inputs under the names the op reads (positions, query, key; x, cos,
// sin; kv, the caches, ...), its outputs under out.NAME, and metadata: the op, the model and
// the SHA-256 of its config, dtype, seed, layer, positions, how the values were drawn
// (generator), and apply_args, the flags after which `rotary apply --in BUNDLE` recomputes the
// outputs bit for bit. The same seed gives the same bytes.
//
// Each op is registered with its parameters (Op.Params: the flags of `rotary apply` and
// `rotary golden`, each with its kind, default and usage), the parameters it reads, how it
// uses a model (ModelUse), the inputs it draws and its run. Parameters travel as Args: values
// by name, in the text the flag takes. Make and Suite draw the inputs and run the op; Run runs
// an op on any named tensors, a bundle's or a candidate's; ReadFiles reads them from
// safetensors and .npy files. ReadApplyArgs, ApplyArg, ReadModelArgs and RecordedModel read a
// bundle's apply_args back; ModelArgs are the model flags as values.
//
// Inputs are drawn from math/rand/v2's PCG, uniform in (−1, 1) on a grid float32 holds exactly,
// then rounded once to the bundle's dtype; cos/sin inputs (the explicit cos/sin ops) come from
// the model's RoPE through the library, gathered at the bundle's positions. A bundle is one
// sequence: positions range (0..N−1), range:START, random (below the model's cache length),
// random:LIMIT, or given (PositionsOf).
//
// Errors name the flag or tensor at fault, as the command prints them.
package golden
