package bench

import (
	"errors"
	"fmt"
	"math"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// SetupFunc is a Case's Setup.
type SetupFunc = func(d tensor.DType, tokens int, disp *ops.Dispatcher) (call func() error, touched []Operand, err error)

// Shape is a model's attention for the cases that can time it instead of their built-in shape
// (Config.Shape): the q/k head counts and one layer's RoPE, which gives the head size, the
// rotary dim, the pairing and, for MRoPE, the sections.
type Shape struct {
	// Name is the figures' model column.
	Name string
	// Spec is one layer's RoPE, without per-layer rules.
	Spec           rotary.Spec
	Heads, KVHeads int
	// QueryScale is the model's position-dependent query scale (Kind none: it has none, and
	// query_scale does not apply).
	QueryScale rotary.QueryScaleRule
	// KVLoRARank is an MLA model's kv_lora_rank, Dv of kv_rmsnorm_rope_cache (whose Dk is the
	// rotary dim); 0 for other models, to which the op does not apply.
	KVLoRARank int
}

// ModelShape is the Shape of model, as hf read it from config (that config.json's bytes, from
// which it also takes kv_lora_rank; nil: the model has none): its query and key/value head
// counts, query scale, MLA latent width and the RoPE of its first rotated layer. A per-layer
// model's layers differ in base or scaling, which costs the same to time, and in unrotated
// layers, which have nothing to time. name is the figures' model column ("": the model_type).
// A shape no case can time (no heads, an invalid spec) is refused here.
func ModelShape(name string, model *hf.Model, config []byte) (*Shape, error) {
	if model == nil {
		return nil, errors.New("model: nil: want a model hf read from a config.json")
	}
	if name == "" {
		name = model.ModelType
	}
	spec, err := model.Spec.ForLayer(0)
	for l := 1; err == nil && spec.NoRoPE; l++ {
		if model.NumLayers > 0 && l >= model.NumLayers || l > rotary.MaxLayers {
			break
		}
		spec, err = model.Spec.ForLayer(l)
	}
	if err != nil || spec.NoRoPE {
		return nil, fmt.Errorf("model %s: no layer has RoPE: nothing to time", name)
	}
	s := &Shape{Name: name, Spec: spec, Heads: model.NumHeads, KVHeads: model.NumKVHeads,
		QueryScale: model.Spec.QueryScale, KVLoRARank: kvLoRARank(config)}
	if err := s.check(); err != nil {
		return nil, err
	}
	return s, nil
}

// kvLoRARank is an MLA config's kv_lora_rank (DeepSeek-V2/V3's latent width), from the text
// model's keys or the top level; 0 when it has none.
func kvLoRARank(config []byte) int {
	raw, err := hf.ReadRaw(config)
	if err != nil {
		return 0
	}
	if r, ok := raw.KVLoRARank(); ok && r >= 1 && r <= 1<<20 && r == math.Trunc(r) {
		return int(r)
	}
	return 0
}

func (s Shape) check() error {
	if s.Heads <= 0 || s.KVHeads <= 0 {
		return fmt.Errorf("model %s: %d query and %d key/value heads: want both > 0", s.Name, s.Heads, s.KVHeads)
	}
	if s.Spec.NoRoPE || s.Spec.Local != nil {
		return fmt.Errorf("model %s: want one rotated layer's spec", s.Name)
	}
	return s.Spec.Validate()
}

// plainRoPE is a Derive for the ops that rotate with one position per token.
func plainRoPE(f func(Shape) SetupFunc) func(Shape) (SetupFunc, error) {
	return func(s Shape) (SetupFunc, error) {
		if s.Spec.MRoPE != nil {
			return nil, fmt.Errorf("%s is an MRoPE model: bench --op mrope", s.Name)
		}
		return f(s), nil
	}
}

// anyRoPE is a Derive for the ops that take a model's shape whatever its positions: the
// gathered cos/sin ops, and the hoisted gather, which gathers MRoPE positions too.
func anyRoPE(f func(Shape) SetupFunc) func(Shape) (SetupFunc, error) {
	return func(s Shape) (SetupFunc, error) { return f(s), nil }
}

// derivedCases are the cases of ops made for shape s: one per op, from the first case of the op
// that can take a shape. skip: an op that cannot (no Derive, or not for this model) is left out
// rather than refused, for the default and "all" lists.
func derivedCases(opsWanted []string, s Shape, skip bool) ([]Case, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	var out []Case
	for _, op := range opsWanted {
		var found bool
		for _, c := range cases {
			if c.Op != op || c.Derive == nil {
				continue
			}
			found = true
			setup, err := c.Derive(s)
			if err != nil {
				if skip {
					break
				}
				return nil, fmt.Errorf("op %s: %w", op, err)
			}
			out = append(out, Case{Op: op, Model: s.Name, MaxTokens: c.MaxTokens, Setup: setup})
			break
		}
		if !found && !skip {
			return nil, fmt.Errorf("op %s: its bench case has a fixed shape that a model's config does not give (time it without a model)", op)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("model %s: none of the ops %v can be timed on its shape", s.Name, opsWanted)
	}
	return out, nil
}
