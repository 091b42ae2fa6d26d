package rotary

import (
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rope"
)

// QueryScaleParams are QueryScale's arguments (see ops.QueryScaleParams).
type QueryScaleParams = ops.QueryScaleParams

// QueryScaleRule is a position-dependent query scale (see rope.QueryScaleRule); hf.Model's
// QueryScaleAt gives a model's for a layer.
type QueryScaleRule = rope.QueryScaleRule

// QueryScaleKind names a query scale (see rope.QueryScaleKind).
type QueryScaleKind = rope.QueryScaleKind

// The query scales.
const (
	QueryScaleNone   = rope.QueryScaleNone
	QueryScaleLlama4 = rope.QueryScaleLlama4
	QueryScaleBeta   = rope.QueryScaleBeta
)

// QueryScaleCast says where the scale meets the query's dtype (see rope.QueryScaleCast).
type QueryScaleCast = rope.QueryScaleCast

// The casts.
const (
	QueryScaleCastDefault = rope.QueryScaleCastDefault
	QueryScaleCastProduct = rope.QueryScaleCastProduct
	QueryScaleCastScale   = rope.QueryScaleCastScale
)

// QueryScale is op query_scale: the position-dependent query scaling that ships beside RoPE,
// in place. Token t's query (every head, every element) is multiplied by
//
//	Llama 4 (attn_temperature_tuning, layers without RoPE):  log1p(⌊(p + 1) / floor_scale⌋) · attn_scale + 1
//	Ministral 3, Mistral 4 (llama_4_scaling_beta, every layer, after RoPE):  1 + β · log(1 + ⌊p / original_max_position_embeddings⌋)
//
// with p its position, computed in float32 in the order of Hugging Face's code and rounded to
// the query's dtype as the rule's Cast says (Llama 4: the product; Ministral 3 and Mistral 4:
// the scale first, then the product). The scale is exactly 1 below the first step (position
// floor_scale − 1, or original_max_position_embeddings), so short prompts keep their queries.
// A rule of kind none leaves the query untouched. d chooses the backend (nil: ops.Default). On
// error nothing is written.
func QueryScale(d *ops.Dispatcher, p QueryScaleParams) error {
	a, err := ops.NewQueryScale(p)
	if err != nil {
		return err
	}
	_, err = ops.Run(dispatcher(d), ops.QueryScale, a)
	return err
}
