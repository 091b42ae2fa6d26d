package hf

import (
	"errors"
	"strings"
	"testing"

	"github.com/rotary-go/rotary"
)

// gemma4Layer is one Gemma 4 layer's spec as HF main builds it: the head size from
// per_layer_config (global_head_dim on full layers), and for proportional RoPE the pairs
// with a frequency.
type gemma4Layer struct {
	head, rot, pairs int
	base             float64
	scaling          rotary.ScalingType
	factor           float64
}

// checkGemma4 checks every layer's spec, and that each builds an embedding.
func checkGemma4(t *testing.T, m *Model, want []gemma4Layer) {
	t.Helper()
	if m.NumLayers != len(want) {
		t.Fatalf("%d layers, want %d", m.NumLayers, len(want))
	}
	for l, w := range want {
		s, err := m.Spec.ForLayer(l)
		if err != nil {
			t.Fatalf("ForLayer(%d): %v", l, err)
		}
		got := gemma4Layer{head: s.HeadSize, rot: s.RotaryDim, pairs: s.Scaling.RotatedPairs, base: s.Base, scaling: s.Scaling.Type, factor: s.Scaling.Factor}
		if got != w || s.Style != rotary.NeoX || s.NoRoPE {
			t.Errorf("layer %d: %+v (style %v, no rope %t), want %+v, neox", l, got, s.Style, s.NoRoPE, w)
		}
		if _, err := rotary.New(s, rotary.WithCacheLen(4)); err != nil {
			t.Errorf("layer %d: New: %v", l, err)
		}
	}
}

// TestGemma4Layers: Gemma4TextConfig (configuration_gemma4.py) and Gemma4TextRotaryEmbedding
// (modeling_gemma4.py) at transformers decba1d: sliding layers rotate their whole head_dim
// head with default RoPE; full layers take head_dim from global_head_dim (default 512) and
// proportional RoPE (_compute_proportional_rope_parameters): rope_angles =
// int(partial_rotary_factor · 512 // 2) pairs with a frequency over NeoX pairs of the whole
// head. Without layer_types every sixth layer is full, and the last layer is always full.
func TestGemma4Layers(t *testing.T) {
	// Shaped like google/gemma-4's config.json (text_config, per-layer-type rope_parameters),
	// cut to 7 layers.
	const text = `"model_type": "gemma4_text", "hidden_size": 5376, "num_attention_heads": 32,
		"num_key_value_heads": 16, "num_global_key_value_heads": 4, "head_dim": 256,
		"num_hidden_layers": 7, "max_position_embeddings": 262144, "sliding_window": 1024`
	const params = `"rope_parameters": {
		"full_attention": {"partial_rotary_factor": 0.25, "rope_theta": 1000000.0, "rope_type": "proportional"},
		"sliding_attention": {"rope_theta": 10000.0, "rope_type": "default"}}`
	const global = `"global_head_dim": 512`
	types := func(ts ...string) string { return `"layer_types": ["` + strings.Join(ts, `", "`) + `"]` }
	S, F := "sliding_attention", "full_attention"
	sliding := gemma4Layer{head: 256, rot: 256, base: 10000, scaling: rotary.ScalingDefault}
	full := gemma4Layer{head: 512, rot: 512, pairs: 64, base: 1e6, scaling: rotary.ScalingProportional, factor: 1}
	wrap := func(inner string) string {
		return `{"model_type": "gemma4", "architectures": ["Gemma4ForConditionalGeneration"], "text_config": {` + inner + `}}`
	}

	t.Run("published form", func(t *testing.T) {
		m := mustParse(t, wrap(text+", "+global+", "+params+", "+types(S, S, S, S, S, F, F)))
		if m.ModelType != "gemma4_text" || m.TopModelType != "gemma4" || m.HeadSize != 512 {
			t.Errorf("model %q/%q head %d, want gemma4_text/gemma4 and the full layers' 512", m.ModelType, m.TopModelType, m.HeadSize)
		}
		checkGemma4(t, m, []gemma4Layer{sliding, sliding, sliding, sliding, sliding, full, full})
	})
	t.Run("layer types from the pattern, the last forced full", func(t *testing.T) {
		m := mustParse(t, wrap(text+", "+global+", "+params))
		checkGemma4(t, m, []gemma4Layer{sliding, sliding, sliding, sliding, sliding, full, full})
	})
	t.Run("a sliding last layer is taken as full", func(t *testing.T) {
		m := mustParse(t, wrap(text+", "+global+", "+params+", "+types(S, S, S, S, S, F, S)))
		checkGemma4(t, m, []gemma4Layer{sliding, sliding, sliding, sliding, sliding, full, full})
		if !hasNote(m, `layer_types[6] "sliding_attention" taken as full_attention`) {
			t.Errorf("notes %q lack the forced last layer", m.Notes)
		}
	})
	t.Run("defaults: global_head_dim and rope_parameters", func(t *testing.T) {
		m := mustParse(t, `{"model_type": "gemma4_text", "num_hidden_layers": 6}`)
		checkGemma4(t, m, []gemma4Layer{sliding, sliding, sliding, sliding, sliding, full})
		if !hasNote(m, "global_head_dim absent") || !hasNote(m, "rope_parameters absent") {
			t.Errorf("notes %q lack the defaults", m.Notes)
		}
		if m.Spec.MaxPositions != 131072 {
			t.Errorf("max positions %d, want Gemma4TextConfig's 131072", m.Spec.MaxPositions)
		}
	})
	t.Run("gemma4_unified", func(t *testing.T) {
		m := mustParse(t, `{"model_type": "gemma4_unified", "text_config": {"model_type": "gemma4_unified_text", "num_hidden_layers": 2}}`)
		checkGemma4(t, m, []gemma4Layer{sliding, full})
		if m.Spec.MaxPositions != 262144 {
			t.Errorf("max positions %d, want Gemma4UnifiedTextConfig's 262144", m.Spec.MaxPositions)
		}
	})
	t.Run("factor, and the config's partial_rotary_factor over the entry's", func(t *testing.T) {
		m := mustParse(t, wrap(text+`, "partial_rotary_factor": 0.5, "global_head_dim": 256, "rope_parameters": {
			"full_attention": {"partial_rotary_factor": 0.25, "rope_theta": 1000000.0, "rope_type": "proportional", "factor": 8},
			"sliding_attention": {"rope_theta": 10000.0, "rope_type": "default"}}`))
		f := gemma4Layer{head: 256, rot: 256, pairs: 64, base: 1e6, scaling: rotary.ScalingProportional, factor: 8}
		checkGemma4(t, m, []gemma4Layer{sliding, sliding, sliding, sliding, sliding, f, f})
	})
	t.Run("no partial_rotary_factor: every pair", func(t *testing.T) {
		m := mustParse(t, wrap(text+", "+global+`, "rope_parameters": {
			"full_attention": {"rope_theta": 1000000.0, "rope_type": "proportional"},
			"sliding_attention": {"rope_theta": 10000.0, "rope_type": "default"}}`))
		f := full
		f.pairs = 256
		checkGemma4(t, m, []gemma4Layer{sliding, sliding, sliding, sliding, sliding, f, f})
	})
	t.Run("per_layer_config in place of global_head_dim", func(t *testing.T) {
		// As transformers main saves it (HeterogeneousConfigMixin, keys zero-padded).
		m := mustParse(t, wrap(text+", "+params+", "+types(S, S, S, S, S, F, F)+`,
			"per_layer_config": {"5": {"head_dim": 512, "num_key_value_heads": 4}, "6": {"head_dim": 512, "num_key_value_heads": 4}}`))
		checkGemma4(t, m, []gemma4Layer{sliding, sliding, sliding, sliding, sliding, full, full})
		if hasNote(m, "global_head_dim absent") {
			t.Errorf("notes %q: per_layer_config gives the full layers' head", m.Notes)
		}
	})
	for _, c := range []struct{ name, cfg, want string }{
		{"per_layer_config heads differ within a type", wrap(text + ", " + params + `, "per_layer_config": {"05": {"head_dim": 512}, "06": {"head_dim": 256}}`),
			"per_layer_config: layer 6's head_dim 256 differs from 512"},
		{"per_layer_config index past the layers", wrap(text + ", " + params + `, "per_layer_config": {"7": {"head_dim": 512}}`),
			"per_layer_config.7: want a layer index 0..6"},
		{"partial above 1", wrap(text + `, "rope_parameters": {"full_attention": {"partial_rotary_factor": 1.5, "rope_theta": 1e6, "rope_type": "proportional"}}`),
			"rope_parameters.full_attention.partial_rotary_factor: 1.5"},
		{"factor 0", wrap(text + `, "rope_parameters": {"full_attention": {"factor": 0, "rope_theta": 1e6, "rope_type": "proportional"}}`),
			"rope_parameters.full_attention.factor: 0"},
		{"global_head_dim 0", wrap(text + `, "global_head_dim": 0`), "global_head_dim: 0"},
		// Gemma4TextRotaryEmbedding.__init__ looks rope_parameters[layer_type] up for every
		// type: without a sliding_attention entry the model does not build.
		{"no sliding_attention entry", wrap(text + `, "rope_parameters": {"full_attention": {"partial_rotary_factor": 0.25, "rope_theta": 1e6, "rope_type": "proportional"}}`),
			`layer_types[0] "sliding_attention": no entry in text_config.rope_parameters`},
	} {
		_, err := Parse([]byte(c.cfg))
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrConfig naming %q", c.name, err, c.want)
		}
	}
}
