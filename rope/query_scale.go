package rope

import (
	"fmt"
	"math"
)

// Some models scale their queries by a factor that grows with the token's position, next to
// RoPE or instead of it. The factor is a step function of the position (it changes once every
// FloorScale or OriginalMax tokens), computed by the upstream code in float32; the kernels that
// apply it live with the ops (op query_scale). What a model uses is a QueryScaleRule.

// QueryScaleKind names a position-dependent query scale.
type QueryScaleKind uint8

const (
	// QueryScaleNone scales nothing: the queries keep their bits.
	QueryScaleNone QueryScaleKind = iota
	// QueryScaleLlama4 is Llama 4's attention temperature tuning (Hugging Face
	// Llama4TextAttention.forward, attn_temperature_tuning), on the layers without RoPE:
	//
	//	scale = log1p(⌊(p + 1) / FloorScale⌋) · AttnScale + 1
	QueryScaleLlama4
	// QueryScaleBeta is llama_4_scaling_beta (Hugging Face get_llama_4_attn_scale in
	// modeling_ministral3.py and modeling_mistral4.py), on every layer after RoPE:
	//
	//	scale = 1 + Beta · log(1 + ⌊p / OriginalMax⌋)
	QueryScaleBeta
)

func (k QueryScaleKind) String() string {
	switch k {
	case QueryScaleNone:
		return "none"
	case QueryScaleLlama4:
		return "llama4"
	case QueryScaleBeta:
		return "beta"
	}
	return fmt.Sprintf("QueryScaleKind(%d)", uint8(k))
}

// ParseQueryScaleKind reads a kind by its String name.
func ParseQueryScaleKind(s string) (QueryScaleKind, error) {
	for _, k := range []QueryScaleKind{QueryScaleNone, QueryScaleLlama4, QueryScaleBeta} {
		if s == k.String() {
			return k, nil
		}
	}
	return QueryScaleNone, fmt.Errorf("query scale %q: want llama4, beta or none", s)
}

// QueryScaleCast says where the float32 scale meets the query's dtype, which frameworks do
// differently for the same formula; for F32 queries the two agree.
type QueryScaleCast uint8

const (
	// QueryScaleCastDefault is Hugging Face's order for the kind: CastProduct for Llama4,
	// CastScale for Beta.
	QueryScaleCastDefault QueryScaleCast = iota
	// QueryScaleCastProduct multiplies the query, widened to float32, by the float32 scale and
	// rounds the product once to the query's dtype: (q * scale).to(q.dtype) with a float32
	// scale, as Hugging Face's Llama4TextAttention and vLLM's Llama4Attention,
	// MistralAttention (Ministral 3) and DeepseekV2 MLA attention (Mistral Large 3) do.
	QueryScaleCastProduct
	// QueryScaleCastScale rounds the scale to the query's dtype first and then the product,
	// q * scale.to(q.dtype), as Hugging Face's Ministral3Attention and Mistral4Attention do.
	QueryScaleCastScale
)

func (c QueryScaleCast) String() string {
	switch c {
	case QueryScaleCastDefault:
		return "default"
	case QueryScaleCastProduct:
		return "product"
	case QueryScaleCastScale:
		return "scale"
	}
	return fmt.Sprintf("QueryScaleCast(%d)", uint8(c))
}

// ParseQueryScaleCast reads a cast by its String name.
func ParseQueryScaleCast(s string) (QueryScaleCast, error) {
	for _, c := range []QueryScaleCast{QueryScaleCastDefault, QueryScaleCastProduct, QueryScaleCastScale} {
		if s == c.String() {
			return c, nil
		}
	}
	return QueryScaleCastDefault, fmt.Errorf("query scale cast %q: want default, product or scale", s)
}

// QueryScaleRule is a position-dependent query scale: its kind and that kind's parameters
// (the other kind's stay zero). The zero value is QueryScaleNone.
type QueryScaleRule struct {
	Kind QueryScaleKind `json:"kind"`
	// FloorScale and AttnScale are Llama 4's floor_scale (tokens per step, Llama4TextConfig's
	// default 8192) and attn_scale (default 0.1).
	FloorScale float64 `json:"floor_scale"`
	AttnScale  float64 `json:"attn_scale"`
	// Beta and OriginalMax are rope_parameters' llama_4_scaling_beta and
	// original_max_position_embeddings.
	Beta        float64 `json:"beta"`
	OriginalMax int     `json:"original_max"`
	// Cast is where the scale meets the query's dtype.
	Cast QueryScaleCast `json:"cast"`
}

// MaxQueryScaleCoefficient bounds |AttnScale| and |Beta|. The logarithm is at most
// ln(2^64) ≈ 44.4 for any int64 position, so the float32 scale stays finite.
const MaxQueryScaleCoefficient = 1e30

// Validate checks the rule: a known kind and cast, finite parameters in range, and no
// parameter of the other kind. Errors name the parameter by its config key.
func (r QueryScaleRule) Validate() error {
	if r.Cast > QueryScaleCastScale {
		return fmt.Errorf("cast %v: want default, product or scale", r.Cast)
	}
	coefficient := func(name string, v float64) error {
		if math.IsNaN(v) || math.Abs(v) > MaxQueryScaleCoefficient {
			return fmt.Errorf("%s %v: want a finite number of magnitude ≤ %g", name, v, MaxQueryScaleCoefficient)
		}
		return nil
	}
	unused := func(kind QueryScaleKind, names []string, values ...float64) error {
		for i, v := range values {
			if v != 0 {
				return fmt.Errorf("%s %v: not a parameter of query scale %v", names[i], v, kind)
			}
		}
		return nil
	}
	switch r.Kind {
	case QueryScaleNone:
		return unused(r.Kind, []string{"floor_scale", "attn_scale", "llama_4_scaling_beta", "original_max_position_embeddings"},
			r.FloorScale, r.AttnScale, r.Beta, float64(r.OriginalMax))
	case QueryScaleLlama4:
		// The step is in tokens; below 1 the quotient, and with it the scale, could overflow.
		if !(r.FloorScale >= 1 && r.FloorScale <= math.MaxFloat32) {
			return fmt.Errorf("floor_scale %v: want a finite number ≥ 1 (tokens per step)", r.FloorScale)
		}
		if err := coefficient("attn_scale", r.AttnScale); err != nil {
			return err
		}
		return unused(r.Kind, []string{"llama_4_scaling_beta", "original_max_position_embeddings"}, r.Beta, float64(r.OriginalMax))
	case QueryScaleBeta:
		if r.OriginalMax < 1 {
			return fmt.Errorf("original_max_position_embeddings %d: want a positive integer", r.OriginalMax)
		}
		if err := coefficient("llama_4_scaling_beta", r.Beta); err != nil {
			return err
		}
		return unused(r.Kind, []string{"floor_scale", "attn_scale"}, r.FloorScale, r.AttnScale)
	}
	return fmt.Errorf("kind %v: want llama4, beta or none", r.Kind)
}

// OnLayer is the rule on a layer that is rotated or not (noRoPE): Llama 4's temperature tuning
// scales only the layers without RoPE (Hugging Face Llama4TextAttention.forward: `not
// self.use_rope`), the beta rule every layer; elsewhere the rule of kind none.
func (r QueryScaleRule) OnLayer(noRoPE bool) QueryScaleRule {
	if r.Kind == QueryScaleLlama4 && !noRoPE {
		return QueryScaleRule{}
	}
	return r
}

// ScaleFirst reports whether the scale is rounded to the query's dtype before the product
// (QueryScaleCastScale, explicit or as the kind's default).
func (r QueryScaleRule) ScaleFirst() bool {
	return r.Cast == QueryScaleCastScale || (r.Cast == QueryScaleCastDefault && r.Kind == QueryScaleBeta)
}

// String gives the formula with the rule's numbers, p the position.
func (r QueryScaleRule) String() string {
	cast := "float32 product rounded to the query's dtype"
	if r.ScaleFirst() {
		cast = "scale rounded to the query's dtype, then the product"
	}
	switch r.Kind {
	case QueryScaleNone:
		return "none"
	case QueryScaleLlama4:
		return fmt.Sprintf("llama4: q · (log1p(⌊(p + 1) / %v⌋) · %v + 1) (%s)", r.FloorScale, r.AttnScale, cast)
	case QueryScaleBeta:
		return fmt.Sprintf("beta: q · (1 + %v · log(1 + ⌊p / %d⌋)) (%s)", r.Beta, r.OriginalMax, cast)
	}
	return r.Kind.String()
}
