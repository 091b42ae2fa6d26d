package rotary

import "github.com/rotary-go/rotary/rope"

// What a model's RoPE is lives in package rope, which depends on nothing but the standard
// library, so that config readers (hf, check, multimodal) need not link the kernels. These
// aliases keep the names users know in this package.

// Spec is everything that determines a model's RoPE (see rope.Spec).
type Spec = rope.Spec

// Style says which elements of a head form a rotation pair (see rope.Style).
type Style = rope.Style

// The pair styles.
const (
	NeoX = rope.NeoX
	GPTJ = rope.GPTJ
)

// ScalingType names a frequency-scaling variant (see rope.ScalingType).
type ScalingType = rope.ScalingType

// The scaling variants.
const (
	ScalingDefault  = rope.ScalingDefault
	ScalingLinear   = rope.ScalingLinear
	ScalingDynamic  = rope.ScalingDynamic
	ScalingNTKAlpha = rope.ScalingNTKAlpha
	ScalingYaRN     = rope.ScalingYaRN
	ScalingLlama3   = rope.ScalingLlama3
	ScalingLongRoPE = rope.ScalingLongRoPE
	ScalingNTK      = rope.ScalingNTK
	// ScalingProportional is Gemma 4's proportional RoPE.
	ScalingProportional = rope.ScalingProportional
)

// DynamicLength says which length the dynamic NTK formula uses (see rope.DynamicLength).
type DynamicLength = rope.DynamicLength

// The dynamic NTK lengths.
const (
	DynamicStatic     = rope.DynamicStatic
	DynamicPerCall    = rope.DynamicPerCall
	DynamicMaxTrained = rope.DynamicMaxTrained
)

// Scaling holds a variant's parameters (see rope.Scaling).
type Scaling = rope.Scaling

// MRoPE describes multimodal RoPE sections (see rope.MRoPE).
type MRoPE = rope.MRoPE

// LocalRoPE is per-layer RoPE: layer types with their own RoPE, layers without RoPE (see
// rope.LocalRoPE).
type LocalRoPE = rope.LocalRoPE

// LayerRoPE is one layer type's RoPE (see rope.LayerRoPE).
type LayerRoPE = rope.LayerRoPE

// DualChunk is Qwen2.5-1M's dual-chunk attention (see rope.DualChunk).
type DualChunk = rope.DualChunk

// ErrSpec is wrapped by every error Spec.Validate returns.
var ErrSpec = rope.ErrSpec
