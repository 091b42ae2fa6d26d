package hf

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/rotary-go/rotary"
)

// layer is what one layer's spec should be: no RoPE, or this base, scaling, rotary dim and style.
type layer struct {
	noRoPE  bool
	base    float64
	scaling rotary.ScalingType
	rot     int
}

var nope = layer{noRoPE: true}

func rotates(base float64, sc rotary.ScalingType, rot int) layer {
	return layer{base: base, scaling: sc, rot: rot}
}

// checkLayers checks ForLayer of every layer of m against want (one entry per layer) and that
// every layer's spec builds an embedding.
func checkLayers(t *testing.T, m *Model, style rotary.Style, want []layer) {
	t.Helper()
	if m.NumLayers != len(want) {
		t.Fatalf("%d layers, want %d", m.NumLayers, len(want))
	}
	for l, w := range want {
		s, err := m.Spec.ForLayer(l)
		if err != nil {
			t.Fatalf("ForLayer(%d): %v", l, err)
		}
		got := layer{noRoPE: s.NoRoPE, base: s.Base, scaling: s.Scaling.Type, rot: s.RotaryDim}
		if got != w {
			t.Errorf("layer %d: %+v, want %+v", l, got, w)
		}
		if s.HeadSize != m.HeadSize || s.Style != style {
			t.Errorf("layer %d: head %d style %v, want %d %v", l, s.HeadSize, s.Style, m.HeadSize, style)
		}
		if _, err := rotary.New(s, rotary.WithCacheLen(4)); err != nil {
			t.Errorf("layer %d: New: %v", l, err)
		}
	}
}

func repeat[T any](n int, v ...T) []T {
	var out []T
	for range n {
		out = append(out, v...)
	}
	return out
}

func hasNote(m *Model, s string) bool {
	return slices.ContainsFunc(m.Notes, func(n string) bool { return strings.Contains(n, s) })
}

// TestOlmo3Layers: Olmo3Config.convert_rope_params_to_dict gives a legacy rope_scaling to the
// full_attention layers only; sliding_attention layers rotate with default RoPE at
// default_theta 500000 (the config's rope_theta goes to full_attention alone); layer_types
// default to full every fourth layer.
func TestOlmo3Layers(t *testing.T) {
	// Shaped like allenai/Olmo-3-1025-7B's config.json, cut to 8 layers.
	const head = `"model_type": "olmo3", "architectures": ["Olmo3ForCausalLM"], "hidden_size": 4096,
		"num_attention_heads": 32, "num_key_value_heads": 32, "num_hidden_layers": 8,
		"max_position_embeddings": 65536, "sliding_window": 4096`
	const yarn = `{"rope_type": "yarn", "factor": 8.0, "original_max_position_embeddings": 8192,
		"attention_factor": 1.2079441541679836, "beta_fast": 32.0, "beta_slow": 1.0}`
	types := `"layer_types": [` + strings.Repeat(`"sliding_attention", "sliding_attention", "sliding_attention", "full_attention", `, 2)
	types = strings.TrimSuffix(types, ", ") + `]`
	sliding, full := rotates(500000, rotary.ScalingDefault, 128), rotates(500000, rotary.ScalingYaRN, 128)
	want := repeat(2, sliding, sliding, sliding, full)

	t.Run("legacy rope_scaling", func(t *testing.T) {
		m := mustParse(t, `{`+head+`, "rope_theta": 500000, "rope_scaling": `+yarn+`, `+types+`}`)
		checkLayers(t, m, rotary.NeoX, want)
		if sc := m.Spec.Scaling; sc.Factor != 8 || sc.OriginalMaxPositions != 8192 || sc.AttentionFactor != 1.2079441541679836 {
			t.Errorf("full layers' yarn: %+v", sc)
		}
	})
	t.Run("layer_types absent", func(t *testing.T) {
		checkLayers(t, mustParse(t, `{`+head+`, "rope_theta": 500000, "rope_scaling": `+yarn+`}`), rotary.NeoX, want)
	})
	t.Run("v5 rope_parameters per layer type", func(t *testing.T) {
		m := mustParse(t, `{`+head+`, `+types+`, "rope_parameters": {"full_attention": `+strings.Replace(yarn, "{", `{"rope_theta": 500000, `, 1)+`,
			"sliding_attention": {"rope_type": "default", "rope_theta": 500000}}}`)
		checkLayers(t, m, rotary.NeoX, want)
	})
	t.Run("another rope_theta stays with the full layers", func(t *testing.T) {
		m := mustParse(t, `{`+head+`, "rope_theta": 1000000, "rope_scaling": `+yarn+`}`)
		checkLayers(t, m, rotary.NeoX, repeat(2, sliding, sliding, sliding, rotates(1e6, rotary.ScalingYaRN, 128)))
		if !hasNote(m, "default rope_theta 500000") {
			t.Errorf("notes %q lack the sliding layers' default theta", m.Notes)
		}
	})
	t.Run("no scaling: one RoPE", func(t *testing.T) {
		m := mustParse(t, `{`+head+`, "rope_theta": 500000, `+types+`}`)
		if m.Spec.Local != nil {
			t.Errorf("same RoPE on every layer, got Local %+v", m.Spec.Local)
		}
	})
}

// TestGemma3nLayers: Gemma3nTextConfig: full_attention layers take rope_theta (default 1e6) and
// rope_scaling, sliding_attention layers rope_local_base_freq (default 10000) and no scaling;
// layer_types default to full every fifth layer.
func TestGemma3nLayers(t *testing.T) {
	// Shaped like google/gemma-3n-E4B's config.json (text_config), cut to 10 layers.
	const text = `"model_type": "gemma3n_text", "hidden_size": 2048, "num_attention_heads": 8,
		"num_key_value_heads": 2, "head_dim": 256, "num_hidden_layers": 10, "max_position_embeddings": 32768,
		"rope_theta": 1000000.0, "rope_local_base_freq": 10000.0, "sliding_window": 512`
	types := `, "layer_types": [` + strings.TrimSuffix(strings.Repeat(`"sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention", `, 2), ", ") + `]`
	sliding, full := rotates(10000, rotary.ScalingDefault, 256), rotates(1e6, rotary.ScalingDefault, 256)
	for _, c := range []struct {
		name, text string
		full       layer
	}{
		{"layer_types", text + types, full},
		{"layer_types absent", text, full},
		{"rope_scaling on full layers", text + types + `, "rope_scaling": {"rope_type": "linear", "factor": 4.0}`, rotates(1e6, rotary.ScalingLinear, 256)},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := mustParse(t, `{"model_type": "gemma3n", "architectures": ["Gemma3nForConditionalGeneration"], "text_config": {`+c.text+`}}`)
			if m.TopModelType != "gemma3n" || m.ModelType != "gemma3n_text" {
				t.Errorf("model types %q/%q", m.TopModelType, m.ModelType)
			}
			checkLayers(t, m, rotary.NeoX, repeat(2, sliding, sliding, sliding, sliding, c.full))
		})
	}
	// Defaults: Gemma3nTextConfig's 35 layers, full every fifth.
	m := mustParse(t, `{"model_type": "gemma3n_text"}`)
	want := repeat(7, sliding, sliding, sliding, sliding, full)
	checkLayers(t, m, rotary.NeoX, want)
}

// TestNoRoPELists: Llama 4 and SmolLM3 mark layers without RoPE in no_rope_layers (0 = none),
// else every no_rope_layer_interval-th layer (default 4) has none.
func TestNoRoPELists(t *testing.T) {
	llama3 := `"rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}`
	// Shaped like meta-llama/Llama-4-Scout-17B-16E's config.json, cut to 8 layers.
	llama4 := func(extra string) string {
		return `{"model_type": "llama4", "architectures": ["Llama4ForConditionalGeneration"], "text_config": {"model_type": "llama4_text",
			"hidden_size": 5120, "head_dim": 128, "num_attention_heads": 40, "num_key_value_heads": 8, "num_hidden_layers": 8,
			"max_position_embeddings": 10485760, "rope_theta": 500000.0, ` + llama3 + extra + `}}`
	}
	r := rotates(500000, rotary.ScalingLlama3, 128)
	every4 := repeat(2, r, r, r, nope)
	for _, c := range []struct {
		name, cfg string
		want      []layer
	}{
		{"llama4 list", llama4(`, "no_rope_layers": [1, 1, 1, 0, 1, 1, 1, 0]`), every4},
		{"llama4 irregular list", llama4(`, "no_rope_layers": [0, 1, 1, 1, 1, 1, 0, 0, 1]`), []layer{nope, r, r, r, r, r, nope, nope}},
		{"llama4 empty list is absent", llama4(`, "no_rope_layers": []`), every4},
		{"llama4 interval", llama4(`, "no_rope_layer_interval": 2`), repeat(4, r, nope)},
		{"llama4 no NoPE", llama4(`, "no_rope_layers": [1, 1, 1, 1, 1, 1, 1, 1]`), repeat(8, r)},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkLayers(t, mustParse(t, c.cfg), rotary.GPTJ, c.want)
		})
	}
	if m := mustParse(t, llama4(`, "no_rope_layers": [1, 1, 1, 1, 1, 1, 1, 1]`)); m.Spec.Local != nil {
		t.Errorf("every layer rotates: Local %+v", m.Spec.Local)
	}

	// Shaped like HuggingFaceTB/SmolLM3-3B's config.json, cut to 8 layers.
	smol := func(extra string) string {
		return `{"model_type": "smollm3", "architectures": ["SmolLM3ForCausalLM"], "hidden_size": 2048,
			"num_attention_heads": 16, "num_key_value_heads": 4, "num_hidden_layers": 8,
			"max_position_embeddings": 65536, "rope_theta": 5000000.0` + extra + `}`
	}
	s := rotates(5e6, rotary.ScalingDefault, 128)
	for _, c := range []struct {
		name, cfg string
		want      []layer
	}{
		{"smollm3 list", smol(`, "no_rope_layer_interval": 4, "no_rope_layers": [1, 1, 1, 0, 1, 1, 1, 0]`), repeat(2, s, s, s, nope)},
		{"smollm3 interval", smol(`, "no_rope_layer_interval": 3`), []layer{s, s, nope, s, s, nope, s, s}},
		{"smollm3 defaults", smol(``), repeat(2, s, s, s, nope)},
		{"smollm3 default theta", strings.Replace(smol(``), `, "rope_theta": 5000000.0`, ``, 1), repeat(2, s2e6, s2e6, s2e6, nope)},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkLayers(t, mustParse(t, c.cfg), rotary.NeoX, c.want)
		})
	}

	for _, c := range []struct{ name, cfg, mention string }{
		{"llama4 short list", llama4(`, "no_rope_layers": [1, 1, 0]`), "3 entries"},
		{"llama4 bad flag", llama4(`, "no_rope_layers": [1, 1, 2, 1, 1, 1, 1, 1]`), "no_rope_layers[2]"},
		{"llama4 bad interval", llama4(`, "no_rope_layer_interval": 0`), "no_rope_layer_interval"},
		// SmolLM3Config keeps an empty list (its default applies only to None), which no layer
		// can be looked up in.
		{"smollm3 empty list", smol(`, "no_rope_layers": []`), "0 entries"},
		{"smollm3 not a list", smol(`, "no_rope_layers": 4`), "no_rope_layers"},
	} {
		_, err := Parse([]byte(c.cfg))
		if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), c.mention) {
			t.Errorf("%s: %v, want an error naming %q", c.name, err, c.mention)
		}
	}
}

var s2e6 = rotates(2e6, rotary.ScalingDefault, 128)

// TestSlidingOnlyRoPE: Cohere2 rotates only sliding-window layers (GPT-J pairs, head_dim always
// hidden_size / heads); EXAONE 4 rotates only sliding layers when it has a sliding window, and
// every layer when sliding_window is null.
func TestSlidingOnlyRoPE(t *testing.T) {
	// Shaped like CohereForAI/c4ai-command-r7b-12-2024's config.json, cut to 8 layers; head_dim
	// 999 is ignored as Cohere2Config ignores it.
	cohere := func(extra string) string {
		return `{"model_type": "cohere2", "architectures": ["Cohere2ForCausalLM"], "hidden_size": 4096, "head_dim": 999,
			"num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 8,
			"max_position_embeddings": 8192, "rope_theta": 50000, "sliding_window": 4096` + extra + `}`
	}
	c := rotates(50000, rotary.ScalingDefault, 128)
	cases := []struct {
		name, cfg string
		style     rotary.Style
		want      []layer
	}{
		{"cohere2 pattern", cohere(`, "sliding_window_pattern": 4`), rotary.GPTJ, repeat(2, c, c, c, nope)},
		{"cohere2 default pattern", cohere(``), rotary.GPTJ, repeat(2, c, c, c, nope)},
		{"cohere2 layer_types", cohere(`, "layer_types": ["full_attention", "sliding_attention", "sliding_attention", "full_attention",
			"sliding_attention", "sliding_attention", "sliding_attention", "full_attention"]`), rotary.GPTJ, []layer{nope, c, c, nope, c, c, c, nope}},
		{"cohere2 null sliding_window", strings.Replace(cohere(``), `"sliding_window": 4096`, `"sliding_window": null`, 1), rotary.GPTJ, repeat(8, nope)},
	}
	// Shaped like LGAI-EXAONE/EXAONE-4.0-32B's config.json, cut to 8 layers.
	exaone := func(window, extra string) string {
		return `{"model_type": "exaone4", "architectures": ["Exaone4ForCausalLM"], "hidden_size": 5120, "head_dim": 128,
			"num_attention_heads": 40, "num_key_value_heads": 8, "num_hidden_layers": 8, "max_position_embeddings": 131072,
			"rope_theta": 1000000.0, "rope_scaling": {"rope_type": "llama3", "factor": 16.0, "low_freq_factor": 1.0,
			"high_freq_factor": 4.0, "original_max_position_embeddings": 8192}, "sliding_window": ` + window + extra + `}`
	}
	e := rotates(1e6, rotary.ScalingLlama3, 128)
	exTypes := `, "sliding_window_pattern": "LLLG", "layer_types": [` + strings.TrimSuffix(strings.Repeat(`"sliding_attention", "sliding_attention", "sliding_attention", "full_attention", `, 2), ", ") + `]`
	cases = append(cases, []struct {
		name, cfg string
		style     rotary.Style
		want      []layer
	}{
		{"exaone4 layer_types", exaone("4096", exTypes), rotary.NeoX, repeat(2, e, e, e, nope)},
		{"exaone4 integer pattern", exaone("4096", `, "sliding_window_pattern": 2`), rotary.NeoX, repeat(4, e, nope)},
		{"exaone4 default window", strings.Replace(exaone("4096", exTypes), `"sliding_window": 4096`, `"use_cache": true`, 1), rotary.NeoX, repeat(2, e, e, e, nope)},
		{"exaone4 null sliding_window", exaone("null", `, "layer_types": ["full_attention", "full_attention", "full_attention", "full_attention",
			"full_attention", "full_attention", "full_attention", "full_attention"]`), rotary.NeoX, repeat(8, e)},
	}...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := mustParse(t, c.cfg)
			if m.HeadSize != 128 {
				t.Errorf("head size %d, want 128", m.HeadSize)
			}
			checkLayers(t, m, c.style, c.want)
		})
	}
	if m := mustParse(t, exaone("null", ``)); m.Spec.Local != nil {
		t.Errorf("exaone4 without a sliding window rotates every layer: Local %+v", m.Spec.Local)
	}
	_, err := Parse([]byte(exaone("4096", `, "sliding_window_pattern": "LLLG"`)))
	if err == nil || !strings.Contains(err.Error(), "sliding_window_pattern") || !strings.Contains(err.Error(), "layer_types") {
		t.Errorf("exaone4 string pattern without layer_types: %v", err)
	}
}

// TestPerLayerTypeEntries: transformers v5's rope_parameters keyed by layer type gives each
// type its own base, scaling and rotary fraction, for any family and any type names.
func TestPerLayerTypeEntries(t *testing.T) {
	m := mustParse(t, `{"model_type": "gpt_oss", "hidden_size": 64, "head_dim": 64, "num_attention_heads": 8, "num_hidden_layers": 3,
		"layer_types": ["sliding_attention", "full_attention", "chunked_attention"],
		"rope_parameters": {"full_attention": {"rope_type": "yarn", "factor": 4, "rope_theta": 150000, "original_max_position_embeddings": 4096},
		                    "sliding_attention": {"rope_type": "linear", "factor": 2, "rope_theta": 10000, "partial_rotary_factor": 0.5},
		                    "chunked_attention": {"rope_type": "default", "rope_theta": 20000}}}`)
	checkLayers(t, m, rotary.NeoX, []layer{rotates(10000, rotary.ScalingLinear, 32), rotates(150000, rotary.ScalingYaRN, 64), rotates(20000, rotary.ScalingDefault, 64)})
	if l0, _ := m.Spec.ForLayer(0); l0.Scaling.Factor != 2 {
		t.Errorf("sliding scaling %+v", l0.Scaling)
	}
	// Keys that are layer_types values mark the per-type form even without full/sliding keys
	// beside full_attention.
	m = mustParse(t, `{"model_type": "llama", "hidden_size": 64, "num_attention_heads": 1, "num_hidden_layers": 2,
		"layer_types": ["full_attention", "chunked_attention"],
		"rope_parameters": {"full_attention": {"rope_theta": 500000}, "chunked_attention": {"rope_theta": 500000}}}`)
	checkLayers(t, m, rotary.NeoX, []layer{rotates(500000, rotary.ScalingDefault, 64), rotates(500000, rotary.ScalingDefault, 64)})
	// A layer type with no entry is refused, as HF's lookup of rope_parameters[layer_type] fails.
	_, err := Parse([]byte(`{"model_type": "llama", "hidden_size": 64, "num_attention_heads": 1, "num_hidden_layers": 2,
		"layer_types": ["sliding_attention", "chunked_attention"],
		"rope_parameters": {"full_attention": {"rope_theta": 500000}, "sliding_attention": {"rope_theta": 10000}}}`))
	if err == nil || !strings.Contains(err.Error(), "layer_types[1]") {
		t.Errorf("type without an entry: %v", err)
	}
	// sliding_attention too (standardize_rope_params, modeling_rope_utils.py, indexes
	// rope_parameters by every layer_types value): its layers do not fall back to full's RoPE.
	_, err = Parse([]byte(`{"model_type": "llama", "hidden_size": 64, "num_attention_heads": 1, "num_hidden_layers": 2,
		"layer_types": ["full_attention", "sliding_attention"],
		"rope_parameters": {"full_attention": {"rope_theta": 500000}}}`))
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), `layer_types[1] "sliding_attention": no entry in rope_parameters`) {
		t.Errorf("sliding type without an entry: %v", err)
	}
}
