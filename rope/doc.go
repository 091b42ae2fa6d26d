// Package rope says what a model's rotary position embedding is: Spec (head size, rotary dim,
// base, pair Style, the Scaling variant, MRoPE sections, per-layer and dual-chunk rules), its
// validation, and the inverse frequencies and attention factor of every variant, in float64.
//
// It depends on nothing but the standard library and internal/errs (itself standard library
// only), so that code which only reads or checks configs (packages hf, check and multimodal)
// does not link the kernels. Package rotary (the
// root) turns a Spec into an Embedding that rotates tensors, and re-exports these names.
//
// Spec and the types inside it encode to JSON with snake_case keys, their Go names in snake_case
// (MscaleAllDim as mscale_all_dim), as config.json spells them where it has the key: what
// rotary inspect --json prints of them.
package rope
