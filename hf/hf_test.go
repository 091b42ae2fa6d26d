package hf

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rotary-go/rotary"
)

type want struct {
	modelType, top       string
	layers, heads, kv    int
	head, rot            int
	base                 float64
	style                rotary.Style
	scaling              rotary.ScalingType
	maxPos               int
	factor               float64 // Scaling.Factor
	orig                 int     // Scaling.OriginalMaxPositions
	check                func(t *testing.T, m *Model)
	notesContain         string
	mropeSections        []int
	mropeInterleaved     bool
	localBase            float64
	localPattern         int
	dualChunk, dualLocal int
	// localTypes: Local holds per-type rules or layers without RoPE, which check verifies.
	localTypes bool
}

var presetWants = map[string]want{
	"llama-3.1-8b": {modelType: "llama", layers: 32, heads: 32, kv: 8, head: 128, rot: 128, base: 500000,
		style: rotary.NeoX, scaling: rotary.ScalingLlama3, maxPos: 131072, factor: 8, orig: 8192,
		check: func(t *testing.T, m *Model) {
			if sc := m.Spec.Scaling; sc.LowFreqFactor != 1 || sc.HighFreqFactor != 4 {
				t.Errorf("low/high freq factor = %v/%v, want 1/4", sc.LowFreqFactor, sc.HighFreqFactor)
			}
		}},
	"llama-3.2-1b": {modelType: "llama", layers: 16, heads: 32, kv: 8, head: 64, rot: 64, base: 500000,
		style: rotary.NeoX, scaling: rotary.ScalingLlama3, maxPos: 131072, factor: 32, orig: 8192},
	"mistral-7b-v0.3": {modelType: "mistral", layers: 32, heads: 32, kv: 8, head: 128, rot: 128, base: 1e6,
		style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 32768},
	"mixtral-8x7b": {modelType: "mixtral", layers: 32, heads: 32, kv: 8, head: 128, rot: 128, base: 1e6,
		style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 32768},
	"qwen2.5-7b": {modelType: "qwen2", layers: 28, heads: 28, kv: 4, head: 128, rot: 128, base: 1e6,
		style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 131072},
	"qwen2.5-7b-instruct-1m": {modelType: "qwen2", layers: 28, heads: 28, kv: 4, head: 128, rot: 128, base: 1e7,
		style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 1010000, dualChunk: 262144, dualLocal: 8192},
	"qwen3-8b": {modelType: "qwen3", layers: 36, heads: 32, kv: 8, head: 128, rot: 128, base: 1e6,
		style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 40960},
	"qwen3-30b-a3b": {modelType: "qwen3_moe", layers: 48, heads: 32, kv: 4, head: 128, rot: 128, base: 1e6,
		style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 40960},
	"qwen2-vl-7b": {modelType: "qwen2_vl", layers: 28, heads: 28, kv: 4, head: 128, rot: 128, base: 1e6,
		style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 32768, mropeSections: []int{16, 24, 24}},
	"qwen2.5-vl-7b": {modelType: "qwen2_5_vl", layers: 28, heads: 28, kv: 4, head: 128, rot: 128, base: 1e6,
		style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 128000, mropeSections: []int{16, 24, 24}},
	"qwen3-vl-8b": {modelType: "qwen3_vl_text", top: "qwen3_vl", layers: 36, heads: 32, kv: 8, head: 128, rot: 128,
		base: 5e6, style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 262144,
		mropeSections: []int{24, 20, 20}, mropeInterleaved: true},
	"deepseek-v3": {modelType: "deepseek_v3", layers: 61, heads: 128, kv: 128, head: 64, rot: 64, base: 10000,
		style: rotary.GPTJ, scaling: rotary.ScalingYaRN, maxPos: 163840, factor: 40, orig: 4096, notesContain: "MLA",
		check: func(t *testing.T, m *Model) {
			sc := m.Spec.Scaling
			if sc.Mscale != 1 || sc.MscaleAllDim != 1 || sc.BetaFast != 32 || sc.BetaSlow != 1 || sc.NoTruncate {
				t.Errorf("yarn params = %+v", sc)
			}
		}},
	"deepseek-v2-lite": {modelType: "deepseek_v2", layers: 27, heads: 16, kv: 16, head: 64, rot: 64, base: 10000,
		style: rotary.GPTJ, scaling: rotary.ScalingYaRN, maxPos: 163840, factor: 40, orig: 4096,
		check: func(t *testing.T, m *Model) {
			if sc := m.Spec.Scaling; sc.Mscale != 0.707 || sc.MscaleAllDim != 0.707 {
				t.Errorf("mscale/mscale_all_dim = %v/%v, want 0.707/0.707", sc.Mscale, sc.MscaleAllDim)
			}
		}},
	"phi-3-mini-128k": {modelType: "phi3", layers: 32, heads: 32, kv: 32, head: 96, rot: 96, base: 10000,
		style: rotary.NeoX, scaling: rotary.ScalingLongRoPE, maxPos: 131072, factor: 32, orig: 4096,
		check: func(t *testing.T, m *Model) {
			sc := m.Spec.Scaling
			if len(sc.ShortFactor) != 48 || len(sc.LongFactor) != 48 {
				t.Fatalf("factor lengths %d/%d, want 48/48", len(sc.ShortFactor), len(sc.LongFactor))
			}
			if sc.ShortFactor[0] != 1.05 || sc.LongFactor[47] != 64.81001281738281 {
				t.Errorf("factors = %v...%v", sc.ShortFactor[0], sc.LongFactor[47])
			}
			_, att := m.Spec.Frequencies(-1)
			if wantAtt := math.Sqrt(1 + math.Log(32)/math.Log(4096)); math.Abs(att-wantAtt) > 1e-15 {
				t.Errorf("attention factor %v, want %v", att, wantAtt)
			}
		}},
	"phi-4-mini": {modelType: "phi3", layers: 32, heads: 24, kv: 8, head: 128, rot: 96, base: 10000,
		style: rotary.NeoX, scaling: rotary.ScalingLongRoPE, maxPos: 131072, factor: 32, orig: 4096,
		check: func(t *testing.T, m *Model) {
			sc := m.Spec.Scaling
			if len(sc.ShortFactor) != 48 || len(sc.LongFactor) != 48 {
				t.Fatalf("factor lengths %d/%d, want 48/48 (partial_rotary_factor 0.75 of 128)", len(sc.ShortFactor), len(sc.LongFactor))
			}
			if sc.LongFactor[0] != 1 || sc.LongFactor[47] != 47.77 {
				t.Errorf("long factors %v...%v, want 1...47.77", sc.LongFactor[0], sc.LongFactor[47])
			}
		}},
	"phi-2": {modelType: "phi", layers: 32, heads: 32, kv: 32, head: 80, rot: 32, base: 10000,
		style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 2048},
	"gemma-2b": {modelType: "gemma", layers: 18, heads: 8, kv: 1, head: 256, rot: 256, base: 10000,
		style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 8192},
	"gemma-2-9b": {modelType: "gemma2", layers: 42, heads: 16, kv: 8, head: 256, rot: 256, base: 10000,
		style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 8192},
	"gemma-3-4b": {modelType: "gemma3_text", top: "gemma3", layers: 34, heads: 8, kv: 4, head: 256, rot: 256,
		base: 1e6, style: rotary.NeoX, scaling: rotary.ScalingLinear, maxPos: 131072, factor: 8,
		localBase: 10000, localPattern: 6,
		check: func(t *testing.T, m *Model) {
			l5, _ := m.Spec.ForLayer(5)
			l4, _ := m.Spec.ForLayer(4)
			if l5.Base != 1e6 || l5.Scaling.Type != rotary.ScalingLinear || l4.Base != 10000 || l4.Scaling.Type != rotary.ScalingDefault {
				t.Errorf("layer 5: %v %v, layer 4: %v %v", l5.Base, l5.Scaling.Type, l4.Base, l4.Scaling.Type)
			}
		}},
	"glm-4-9b": {modelType: "chatglm", layers: 40, heads: 32, kv: 2, head: 128, rot: 64, base: 10000,
		style: rotary.GPTJ, scaling: rotary.ScalingDefault, maxPos: 8192},
	"glm-4-9b-chat": {modelType: "chatglm", layers: 40, heads: 32, kv: 2, head: 128, rot: 64, base: 5e6,
		style: rotary.GPTJ, scaling: rotary.ScalingDefault, maxPos: 131072},
	"gpt-j-6b": {modelType: "gptj", layers: 28, heads: 16, kv: 16, head: 256, rot: 64, base: 10000,
		style: rotary.GPTJ, scaling: rotary.ScalingDefault, maxPos: 2048, notesContain: "rope_theta absent"},
	"gpt-neox-20b": {modelType: "gpt_neox", layers: 44, heads: 64, kv: 64, head: 96, rot: 24, base: 10000,
		style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 2048},
	"gpt-oss-20b": {modelType: "gpt_oss", layers: 24, heads: 64, kv: 8, head: 64, rot: 64, base: 150000,
		style: rotary.NeoX, scaling: rotary.ScalingYaRN, maxPos: 131072, factor: 32, orig: 4096,
		check: func(t *testing.T, m *Model) {
			sc := m.Spec.Scaling
			if !sc.NoTruncate || sc.BetaFast != 32 || sc.BetaSlow != 1 {
				t.Errorf("yarn params = %+v, want truncate false, beta 32/1", sc)
			}
			if m.Spec.Local != nil {
				t.Errorf("gpt-oss has the same RoPE in every layer, got Local %+v", m.Spec.Local)
			}
		}},
	"olmo2-7b": {modelType: "olmo2", layers: 32, heads: 32, kv: 32, head: 128, rot: 128, base: 500000,
		style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 4096},
	"stablelm-2-1.6b": {modelType: "stablelm", layers: 24, heads: 32, kv: 32, head: 64, rot: 16, base: 10000,
		style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 4096},
	"falcon-7b": {modelType: "falcon", layers: 32, heads: 71, kv: 1, head: 64, rot: 64, base: 10000,
		style: rotary.NeoX, scaling: rotary.ScalingDefault, maxPos: 2048, notesContain: "max_position_embeddings absent"},
}

func TestPresets(t *testing.T) {
	names := PresetNames()
	if !slices.IsSorted(names) {
		t.Errorf("PresetNames not sorted: %v", names)
	}
	for name := range presetWants {
		if !slices.Contains(names, name) {
			t.Errorf("preset %s missing", name)
		}
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			m, err := Preset(name)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Spec.Validate(); err != nil {
				t.Fatal(err)
			}
			w, ok := presetWants[name]
			if !ok {
				t.Fatalf("no expectations for preset %s", name)
			}
			checkModel(t, m, w)
		})
	}
}

func checkModel(t *testing.T, m *Model, w want) {
	t.Helper()
	top := w.top
	if top == "" {
		top = w.modelType
	}
	s := m.Spec
	if m.ModelType != w.modelType || m.TopModelType != top {
		t.Errorf("model type %q/%q, want %q/%q", m.ModelType, m.TopModelType, w.modelType, top)
	}
	if m.NumLayers != w.layers || m.NumHeads != w.heads || m.NumKVHeads != w.kv {
		t.Errorf("layers/heads/kv = %d/%d/%d, want %d/%d/%d", m.NumLayers, m.NumHeads, m.NumKVHeads, w.layers, w.heads, w.kv)
	}
	if m.HeadSize != s.HeadSize || s.HeadSize != w.head || s.RotaryDim != w.rot {
		t.Errorf("head %d (spec %d) rotary %d, want %d, %d", m.HeadSize, s.HeadSize, s.RotaryDim, w.head, w.rot)
	}
	if s.Base != w.base || s.Style != w.style || s.MaxPositions != w.maxPos {
		t.Errorf("base %v style %v max %d, want %v %v %d", s.Base, s.Style, s.MaxPositions, w.base, w.style, w.maxPos)
	}
	if s.Scaling.Type != w.scaling || s.Scaling.Factor != w.factor || s.Scaling.OriginalMaxPositions != w.orig {
		t.Errorf("scaling %s factor %v orig %d, want %s %v %d", s.Scaling.Type, s.Scaling.Factor, s.Scaling.OriginalMaxPositions, w.scaling, w.factor, w.orig)
	}
	switch {
	case w.mropeSections == nil && s.MRoPE != nil:
		t.Errorf("unexpected MRoPE %+v", s.MRoPE)
	case w.mropeSections != nil && (s.MRoPE == nil || !slices.Equal(s.MRoPE.Sections, w.mropeSections) || s.MRoPE.Interleaved != w.mropeInterleaved):
		t.Errorf("MRoPE %+v, want %v interleaved=%v", s.MRoPE, w.mropeSections, w.mropeInterleaved)
	}
	switch {
	case w.localBase == 0 && !w.localTypes && s.Local != nil:
		t.Errorf("unexpected Local %+v", s.Local)
	case w.localBase != 0 && (s.Local == nil || s.Local.Base != w.localBase || s.Local.Pattern != w.localPattern):
		t.Errorf("Local %+v, want base %v pattern %d", s.Local, w.localBase, w.localPattern)
	}
	switch {
	case w.dualChunk == 0 && s.DualChunk != nil:
		t.Errorf("unexpected DualChunk %+v", s.DualChunk)
	case w.dualChunk != 0 && (s.DualChunk == nil || *s.DualChunk != rotary.DualChunk{ChunkSize: w.dualChunk, LocalSize: w.dualLocal}):
		t.Errorf("DualChunk %+v, want %d/%d", s.DualChunk, w.dualChunk, w.dualLocal)
	}
	if w.notesContain != "" && !slices.ContainsFunc(m.Notes, func(n string) bool { return strings.Contains(n, w.notesContain) }) {
		t.Errorf("notes %q lack %q", m.Notes, w.notesContain)
	}
	if w.check != nil {
		w.check(t, m)
	}
}

func TestPresetLookup(t *testing.T) {
	a, err := PresetJSON("llama-3.1-8b")
	if err != nil {
		t.Fatal(err)
	}
	a[0] = 'X' // a copy: the next read is unaffected
	b, err := PresetJSON("LLaMA-3.1-8B.json")
	if err != nil || b[0] != '{' {
		t.Fatalf("PresetJSON after mutation: %q, %v", b[:1], err)
	}
	for _, bad := range []string{"nope", "", "../hf", "presets/llama-3.1-8b"} {
		_, err := Preset(bad)
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "llama-3.1-8b") {
			t.Errorf("Preset(%q) = %v, want ErrConfig listing the presets", bad, err)
		}
	}
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	data, _ := PresetJSON("qwen3-8b")
	path := filepath.Join(dir, "config.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := LoadFile(path)
	if err != nil || m.Spec.HeadSize != 128 {
		t.Fatalf("LoadFile = %+v, %v", m, err)
	}
	if _, err := LoadFile(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("LoadFile of a missing file succeeded")
	}
	if err := os.WriteFile(path, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadFile(path); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), path) {
		t.Errorf("LoadFile of bad JSON = %v, want ErrConfig naming the path", err)
	}
}

func mustParse(t *testing.T, cfg string) *Model {
	t.Helper()
	m, err := Parse([]byte(cfg))
	if err != nil {
		t.Fatalf("Parse(%s): %v", cfg, err)
	}
	return m
}

// TestKeyForms checks that the legacy and the new spellings of a config give the same spec.
func TestKeyForms(t *testing.T) {
	same := func(t *testing.T, a, b string) {
		t.Helper()
		ma, mb := mustParse(t, a), mustParse(t, b)
		if !specEqual(ma.Spec, mb.Spec) || ma.NumHeads != mb.NumHeads || ma.NumKVHeads != mb.NumKVHeads {
			t.Errorf("specs differ:\n%s\n  -> %+v\n%s\n  -> %+v", a, ma.Spec, b, mb.Spec)
		}
	}
	const llama = `"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8, "max_position_embeddings": 131072`
	const l3 = `"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192`

	t.Run("type vs rope_type", func(t *testing.T) {
		same(t, `{`+llama+`, "rope_theta": 500000, "rope_scaling": {`+l3+`, "rope_type": "llama3"}}`,
			`{`+llama+`, "rope_theta": 500000, "rope_scaling": {`+l3+`, "type": "llama3"}}`)
	})
	t.Run("rope_parameters", func(t *testing.T) {
		same(t, `{`+llama+`, "rope_theta": 500000, "rope_scaling": {`+l3+`, "rope_type": "llama3"}}`,
			`{`+llama+`, "rope_parameters": {`+l3+`, "rope_type": "llama3", "rope_theta": 500000.0}}`)
	})
	t.Run("rope_parameters' rope_theta over the config's", func(t *testing.T) {
		// convert_rope_params_to_dict and standardize_rope_params (modeling_rope_utils.py)
		// setdefault the config's rope_theta into rope_parameters: the object's own wins, for
		// the per-layer-type entries and the family's default object (Gemma4TextConfig's) too.
		same(t, `{`+llama+`, "rope_theta": 10000, "rope_parameters": {`+l3+`, "rope_type": "llama3", "rope_theta": 500000.0}}`,
			`{`+llama+`, "rope_parameters": {`+l3+`, "rope_type": "llama3", "rope_theta": 500000.0}}`)
		m := mustParse(t, `{"model_type": "gemma4_text", "num_hidden_layers": 6, "rope_theta": 5000}`)
		if l0, _ := m.Spec.ForLayer(0); m.Spec.Base != 1e6 || l0.Base != 10000 {
			t.Errorf("gemma4 with the default rope_parameters: bases %v / %v, want 1e6 / 10000", m.Spec.Base, l0.Base)
		}
		// The legacy rope_scaling becomes rope_parameters in transformers main, its rope_theta
		// included (TestRopeThetaInRopeScaling has each reading's).
		m = mustParse(t, `{`+llama+`, "rope_theta": 10000, "rope_scaling": {`+l3+`, "rope_type": "llama3", "rope_theta": 500000.0}}`)
		if m.Spec.Base != 500000 {
			t.Errorf("rope_scaling's rope_theta: base %v, want rope_scaling's 500000", m.Spec.Base)
		}
	})
	t.Run("ints and floats", func(t *testing.T) {
		same(t, `{`+llama+`, "rope_theta": 500000, "rope_scaling": {`+l3+`, "rope_type": "llama3"}}`,
			`{"model_type": "llama", "hidden_size": 4096.0, "num_attention_heads": 32.0, "num_key_value_heads": 8,
			  "max_position_embeddings": 1.31072e5, "rope_theta": 5e5,
			  "rope_scaling": {"factor": 8, "low_freq_factor": 1, "high_freq_factor": 4, "original_max_position_embeddings": 8192.0, "rope_type": "llama3"}}`)
	})
	t.Run("llama3 original from top level", func(t *testing.T) {
		same(t, `{`+llama+`, "rope_scaling": {`+l3+`, "rope_type": "llama3"}}`,
			`{`+llama+`, "original_max_position_embeddings": 8192, "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "rope_type": "llama3"}}`)
	})
	t.Run("text_config nesting", func(t *testing.T) {
		qwen2vl, _ := PresetJSON("qwen2-vl-7b")
		// The transformers ≥ 4.52 layout nests the text model (Qwen2VLConfig builds it from
		// text_config alone: TestTopLevelNotRead); older files keep every key at the top level.
		same(t, string(qwen2vl), `{"model_type": "qwen2_vl", "text_config": {"model_type": "qwen2_vl_text", "hidden_size": 3584,
			  "num_attention_heads": 28, "num_key_value_heads": 4, "num_hidden_layers": 28, "max_position_embeddings": 32768,
			  "rope_theta": 1000000.0, "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}}}`)
		m := mustParse(t, `{"model_type": "qwen2_vl", "text_config": {"hidden_size": 3584, "num_attention_heads": 28,
			"num_key_value_heads": 4, "head_dim": null, "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}}}`)
		if m.ModelType != "qwen2_vl" || m.Spec.MRoPE == nil || m.Spec.Base != 1e6 || m.Spec.HeadSize != 128 {
			t.Errorf("text_config without model_type: %+v", m)
		}
	})
	t.Run("gpt-j keys", func(t *testing.T) {
		same(t, `{"model_type": "gptj", "n_embd": 4096, "n_head": 16, "n_positions": 2048, "rotary_dim": 64}`,
			`{"model_type": "gptj", "hidden_size": 4096, "num_attention_heads": 16, "max_position_embeddings": 2048, "rotary_dim": 64, "rope_theta": 10000}`)
		m := mustParse(t, `{"model_type": "codegen", "n_embd": 4096, "n_head": 16, "n_layer": 33, "n_positions": 2048, "rotary_dim": 64}`)
		if m.Spec.Style != rotary.GPTJ || m.Spec.RotaryDim != 64 || m.NumLayers != 33 {
			t.Errorf("codegen: %+v", m)
		}
	})
	t.Run("gpt-neox keys", func(t *testing.T) {
		neox, _ := PresetJSON("gpt-neox-20b")
		same(t, string(neox), `{"model_type": "gpt_neox", "hidden_size": 6144, "num_attention_heads": 64, "max_position_embeddings": 2048,
			"partial_rotary_factor": 0.25, "rope_theta": 10000}`)
		same(t, string(neox), `{"model_type": "gpt_neox", "hidden_size": 6144, "num_attention_heads": 64, "max_position_embeddings": 2048,
			"rope_parameters": {"rope_type": "default", "rope_theta": 10000, "partial_rotary_factor": 0.25}}`)
	})
	t.Run("phi3 original at top level", func(t *testing.T) {
		// HF main keeps an explicit rope_scaling.factor beside a top-level original (v4.57 took
		// max / original instead; LongRoPEFactorFromLengths restores that).
		const f = `"short_factor": [1, 1, 1, 1], "long_factor": [2, 2, 2, 2]`
		m := mustParse(t, `{"model_type": "phi3", "hidden_size": 64, "num_attention_heads": 8, "max_position_embeddings": 16384,
			"original_max_position_embeddings": 4096, "rope_scaling": {`+f+`, "type": "longrope", "factor": 99}}`)
		if sc := m.Spec.Scaling; m.Spec.LongRoPEFactor() != 99 || sc.OriginalMaxPositions != 4096 {
			t.Errorf("factor %v orig %d, want 99 and 4096", m.Spec.LongRoPEFactor(), sc.OriginalMaxPositions)
		}
		m.Spec.Scaling.LongRoPEFactorFromLengths = true
		if m.Spec.LongRoPEFactor() != 4 {
			t.Errorf("factor from the lengths %v, want 4", m.Spec.LongRoPEFactor())
		}
		// Without the config-level key the rope_scaling values count.
		m = mustParse(t, `{"model_type": "llama", "hidden_size": 64, "num_attention_heads": 8, "max_position_embeddings": 16384,
			"rope_scaling": {`+f+`, "rope_type": "longrope", "factor": 8, "original_max_position_embeddings": 2048}}`)
		if sc := m.Spec.Scaling; sc.Factor != 8 || sc.OriginalMaxPositions != 2048 {
			t.Errorf("factor %v orig %d, want 8 and 2048", sc.Factor, sc.OriginalMaxPositions)
		}
		// Phi3Config's own default original (4096) applies when the key is absent.
		m = mustParse(t, `{"model_type": "phi3", "hidden_size": 64, "num_attention_heads": 8, "max_position_embeddings": 16384,
			"rope_scaling": {`+f+`, "type": "su"}}`)
		if sc := m.Spec.Scaling; m.Spec.LongRoPEFactor() != 4 || sc.OriginalMaxPositions != 4096 {
			t.Errorf("phi3 default original: factor %v orig %d", m.Spec.LongRoPEFactor(), sc.OriginalMaxPositions)
		}
	})
	t.Run("gemma3 hub form", func(t *testing.T) {
		// google/gemma-3-4b-it's published config.json: the text keys it omits are
		// Gemma3TextConfig defaults.
		m := mustParse(t, `{"architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3",
			"text_config": {"hidden_size": 2560, "intermediate_size": 10240, "model_type": "gemma3_text",
			  "num_hidden_layers": 34, "rope_scaling": {"factor": 8.0, "rope_type": "linear"}, "sliding_window": 1024}}`)
		p, _ := Preset("gemma-3-4b")
		if !specEqual(m.Spec, p.Spec) || m.NumHeads != 8 || m.NumKVHeads != 4 {
			t.Errorf("hub form %+v, preset %+v", m.Spec, p.Spec)
		}
		if !hasNote(m, "rope_theta absent: using the Gemma3TextConfig default") {
			t.Errorf("notes %q lack the defaulted rope_theta", m.Notes)
		}
	})
	t.Run("gemma3 per-layer rope_parameters", func(t *testing.T) {
		types := strings.Repeat(`"sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention", `, 5)
		types += `"sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention"`
		m := mustParse(t, `{"model_type": "gemma3_text", "hidden_size": 2560, "head_dim": 256, "num_attention_heads": 8,
			"num_key_value_heads": 4, "num_hidden_layers": 34, "max_position_embeddings": 131072, "layer_types": [`+types+`],
			"rope_parameters": {"full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1000000.0},
			                    "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}}}`)
		s := m.Spec
		if s.Base != 1e6 || s.Scaling.Type != rotary.ScalingLinear || s.Scaling.Factor != 8 || s.Local == nil || s.Local.Base != 10000 || len(s.Local.LayerTypes) != 34 {
			t.Fatalf("spec %+v local %+v", s, s.Local)
		}
		if !s.IsGlobalLayer(5) || s.IsGlobalLayer(6) {
			t.Error("layer_types not honoured")
		}
	})
	t.Run("glm families", func(t *testing.T) {
		m := mustParse(t, `{"model_type": "glm", "hidden_size": 4096, "head_dim": 128, "num_attention_heads": 32, "num_key_value_heads": 2,
			"partial_rotary_factor": 0.5, "rope_theta": 10000, "max_position_embeddings": 131072}`)
		if m.Spec.Style != rotary.GPTJ || m.Spec.RotaryDim != 64 {
			t.Errorf("glm: %+v", m.Spec)
		}
		m = mustParse(t, `{"model_type": "glm4", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 2}`)
		if m.Spec.Style != rotary.GPTJ || m.Spec.RotaryDim != 64 {
			t.Errorf("glm4 default half rotary: %+v", m.Spec)
		}
		m = mustParse(t, `{"model_type": "glm4_moe", "hidden_size": 4096, "head_dim": 128, "num_attention_heads": 96, "num_key_value_heads": 8,
			"partial_rotary_factor": 0.5, "rope_theta": 1000000}`)
		if m.Spec.Style != rotary.NeoX || m.Spec.RotaryDim != 64 {
			t.Errorf("glm4_moe: %+v", m.Spec)
		}
		m = mustParse(t, `{"model_type": "chatglm", "hidden_size": 4096, "kv_channels": 128, "num_attention_heads": 32,
			"multi_query_attention": false, "multi_query_group_num": 2, "original_rope": false, "rope_ratio": 2}`)
		if m.Spec.Style != rotary.NeoX || m.NumKVHeads != 32 || m.Spec.Base != 20000 || m.Spec.RotaryDim != 64 {
			t.Errorf("chatglm variants: kv %d %+v", m.NumKVHeads, m.Spec)
		}
	})
	t.Run("scaling variants", func(t *testing.T) {
		const base = `"model_type": "qwen2", "hidden_size": 1024, "num_attention_heads": 8, "max_position_embeddings": 4096`
		m := mustParse(t, `{`+base+`, "rope_scaling": {"type": "dynamic", "alpha": 1000.0}}`)
		if m.Spec.Scaling.Type != rotary.ScalingNTKAlpha || m.Spec.Scaling.Alpha != 1000 {
			t.Errorf("ntk alpha: %+v", m.Spec.Scaling)
		}
		m = mustParse(t, `{`+base+`, "rope_scaling": {"type": "dynamic", "factor": 2}}`)
		if m.Spec.Scaling.Type != rotary.ScalingDynamic || m.Spec.Scaling.Factor != 2 {
			t.Errorf("dynamic: %+v", m.Spec.Scaling)
		}
		m = mustParse(t, `{`+base+`, "rope_scaling": {"type": "linear", "factor": 4}}`)
		if m.Spec.Scaling.Type != rotary.ScalingLinear || m.Spec.Scaling.Factor != 4 {
			t.Errorf("linear: %+v", m.Spec.Scaling)
		}
		m = mustParse(t, `{`+base+`, "rope_scaling": {"rope_type": "deepseek_yarn", "factor": 4, "attention_factor": 1.5, "truncate": true}}`)
		if sc := m.Spec.Scaling; sc.Type != rotary.ScalingYaRN || sc.AttentionFactor != 1.5 || sc.NoTruncate || sc.OriginalMaxPositions != 0 {
			t.Errorf("yarn: %+v", sc)
		}
		m = mustParse(t, `{`+base+`, "rope_scaling": null, "rope_parameters": {"rope_type": "default", "rope_theta": 12345}}`)
		if m.Spec.Scaling.Type != rotary.ScalingDefault || m.Spec.Base != 12345 {
			t.Errorf("default: %+v", m.Spec)
		}
		m = mustParse(t, `{`+base+`, "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24], "mrope_interleaved": true}, "head_dim": 128}`)
		if m.Spec.MRoPE == nil || !m.Spec.MRoPE.Interleaved {
			t.Errorf("explicit interleaved: %+v", m.Spec.MRoPE)
		}
	})
	t.Run("qwen3_vl defaults to interleaved", func(t *testing.T) {
		m := mustParse(t, `{"model_type": "qwen3_vl_moe", "text_config": {"model_type": "qwen3_vl_moe_text", "hidden_size": 2048,
			"head_dim": 128, "num_attention_heads": 32, "num_key_value_heads": 4, "rope_theta": 5000000,
			"rope_scaling": {"mrope_section": [24, 20, 20], "rope_type": "default"}}}`)
		if m.Spec.MRoPE == nil || !m.Spec.MRoPE.Interleaved || m.TopModelType != "qwen3_vl_moe" {
			t.Errorf("qwen3_vl_moe: %+v %+v", m, m.Spec.MRoPE)
		}
	})
	t.Run("head counts", func(t *testing.T) {
		m := mustParse(t, `{"model_type": "falcon", "hidden_size": 8192, "num_attention_heads": 128, "num_kv_heads": 8,
			"new_decoder_architecture": true, "max_position_embeddings": 2048}`)
		if m.NumKVHeads != 8 {
			t.Errorf("falcon new arch kv = %d", m.NumKVHeads)
		}
		m = mustParse(t, `{"model_type": "RefinedWebModel", "hidden_size": 4544, "n_head": 71, "n_layer": 32}`)
		if m.NumKVHeads != 1 || m.NumHeads != 71 || m.ModelType != "RefinedWebModel" {
			t.Errorf("RefinedWebModel: %+v", m)
		}
		m = mustParse(t, `{"model_type": "falcon", "hidden_size": 4544, "num_attention_heads": 71, "multi_query": false}`)
		if m.NumKVHeads != 71 {
			t.Errorf("falcon without MQA kv = %d", m.NumKVHeads)
		}
	})
	t.Run("deepseek style", func(t *testing.T) {
		m := mustParse(t, `{"model_type": "kimi_k2", "hidden_size": 7168, "num_attention_heads": 64, "qk_rope_head_dim": 64,
			"head_dim": 192, "rope_interleave": false}`)
		if m.Spec.Style != rotary.NeoX || m.Spec.HeadSize != 64 || m.HeadSize != 64 {
			t.Errorf("rope_interleave false: %+v", m.Spec)
		}
	})
	t.Run("sliding per-layer", func(t *testing.T) {
		m := mustParse(t, `{"model_type": "gpt_oss", "hidden_size": 64, "head_dim": 8, "num_attention_heads": 8, "num_hidden_layers": 2,
			"layer_types": ["sliding_attention", "full_attention"],
			"rope_parameters": {"full_attention": {"rope_type": "yarn", "factor": 4, "rope_theta": 150000},
			                    "sliding_attention": {"rope_type": "default", "rope_theta": 10000}}}`)
		if m.Spec.Local == nil || m.Spec.Local.Base != 10000 || m.Spec.IsGlobalLayer(0) || !m.Spec.IsGlobalLayer(1) {
			t.Errorf("sliding per-layer: %+v", m.Spec.Local)
		}
		// Identical entries: one RoPE for every layer.
		m = mustParse(t, `{"model_type": "gpt_oss", "hidden_size": 64, "head_dim": 8, "num_attention_heads": 8, "num_hidden_layers": 2,
			"layer_types": ["sliding_attention", "full_attention"],
			"rope_parameters": {"full_attention": {"rope_type": "yarn", "factor": 4, "rope_theta": 150000},
			                    "sliding_attention": {"rope_type": "yarn", "factor": 4, "rope_theta": 150000}}}`)
		if m.Spec.Local != nil || m.Spec.Scaling.Type != rotary.ScalingYaRN {
			t.Errorf("identical per-layer entries: %+v", m.Spec)
		}
		// No layer_types: nothing says which layers slide.
		m = mustParse(t, `{"model_type": "llama", "hidden_size": 64, "num_attention_heads": 8,
			"rope_parameters": {"full_attention": {"rope_theta": 500000}, "sliding_attention": {"rope_theta": 10000}}}`)
		if m.Spec.Local != nil || m.Spec.Base != 500000 || !slices.ContainsFunc(m.Notes, func(n string) bool { return strings.Contains(n, "sliding_attention ignored") }) {
			t.Errorf("per-layer without layer_types: %+v %q", m.Spec, m.Notes)
		}
	})
}

// specEqual compares specs by value, through the pointers.
func specEqual(a, b rotary.Spec) bool { return reflect.DeepEqual(a, b) }

func TestErrors(t *testing.T) {
	const llama = `"model_type": "llama", "hidden_size": 1024, "num_attention_heads": 8`
	cases := []struct {
		name, cfg string
		mention   []string
	}{
		{"not JSON", `{"model_type": "llama",`, []string{"JSON"}},
		{"empty", ``, []string{"JSON"}},
		{"not an object", `[1, 2]`, []string{"object", "array"}},
		{"trailing data", `{"model_type": "llama"} {}`, []string{"JSON"}},
		{"missing model_type", `{"hidden_size": 1024, "num_attention_heads": 8}`, []string{"model_type", "missing"}},
		{"model_type not a string", `{"model_type": 7}`, []string{"model_type", "string"}},
		{"unknown model_type", `{"model_type": "gpt3000", "n_embd": 768, "n_head": 12}`, []string{`"gpt3000"`, "hidden_size", "rope_theta", "llama", "qwen3_vl"}},
		{"model without rope", `{"model_type": "gpt2", "n_embd": 768, "n_head": 12}`, []string{`"gpt2"`, "no rotary position embedding", "learned absolute"}},
		{"unknown nested model_type", `{"model_type": "llava", "text_config": {"model_type": "vicuna"}}`, []string{"vicuna", "llava"}},
		{"text_config not an object", `{"model_type": "qwen2_vl", "text_config": [1]}`, []string{"text_config", "object"}},
		{"string number", `{"model_type": "llama", "hidden_size": "4096", "num_attention_heads": 32}`, []string{"hidden_size", "integer", `string "4096"`}},
		{"bool number", `{` + llama + `, "rope_theta": true}`, []string{"rope_theta", "number"}},
		{"fractional int", `{"model_type": "llama", "hidden_size": 1024.5, "num_attention_heads": 8}`, []string{"hidden_size", "integer"}},
		{"overflow", `{` + llama + `, "rope_theta": 1e999}`, []string{"rope_theta", "finite"}},
		{"huge int", `{` + llama + `, "max_position_embeddings": 1e300}`, []string{"max_position_embeddings", "integer"}},
		{"zero heads", `{"model_type": "llama", "hidden_size": 1024, "num_attention_heads": 0}`, []string{"num_attention_heads", "positive"}},
		{"negative heads", `{"model_type": "gptj", "n_embd": 1024, "n_head": -8}`, []string{"n_head", "positive"}},
		{"missing heads", `{"model_type": "internlm2", "hidden_size": 1024}`, []string{"num_attention_heads", "missing"}},
		{"zero kv heads", `{` + llama + `, "num_key_value_heads": 0}`, []string{"num_key_value_heads", "positive"}},
		{"negative kv heads", `{` + llama + `, "num_key_value_heads": -1}`, []string{"num_key_value_heads"}},
		{"kv not a divisor", `{` + llama + `, "num_key_value_heads": 3}`, []string{"num_key_value_heads", "divisor"}},
		{"kv above heads", `{` + llama + `, "num_key_value_heads": 16}`, []string{"num_key_value_heads"}},
		{"zero layers", `{` + llama + `, "num_hidden_layers": 0}`, []string{"num_hidden_layers"}},
		{"missing hidden", `{"model_type": "internlm2", "num_attention_heads": 8}`, []string{"hidden_size", "missing"}},
		{"hidden not divisible", `{"model_type": "llama", "hidden_size": 1000, "num_attention_heads": 3}`, []string{"hidden_size", "divisible"}},
		{"zero head_dim", `{` + llama + `, "head_dim": 0}`, []string{"head_dim"}},
		{"odd rotary_dim", `{"model_type": "gptj", "n_embd": 4096, "n_head": 16, "rotary_dim": 63}`, []string{"rotary_dim", "even"}},
		{"rotary_dim above head", `{"model_type": "gptj", "n_embd": 4096, "n_head": 16, "rotary_dim": 512}`, []string{"rotary_dim", "head size"}},
		{"partial above 1", `{"model_type": "phi", "hidden_size": 2560, "num_attention_heads": 32, "partial_rotary_factor": 1.5}`, []string{"partial_rotary_factor"}},
		{"partial gives odd", `{"model_type": "phi", "hidden_size": 2560, "num_attention_heads": 32, "partial_rotary_factor": 0.3125}`, []string{"partial_rotary_factor", "25"}},
		{"rotary_pct zero", `{"model_type": "gpt_neox", "hidden_size": 6144, "num_attention_heads": 64, "rotary_pct": 0}`, []string{"rotary_pct"}},
		{"negative theta", `{` + llama + `, "rope_theta": -1}`, []string{"rope_theta"}},
		{"zero max positions", `{` + llama + `, "max_position_embeddings": 0}`, []string{"max_position_embeddings"}},
		{"rope_scaling not an object", `{` + llama + `, "rope_scaling": "yarn"}`, []string{"rope_scaling", "object"}},
		{"rope type not a string", `{` + llama + `, "rope_scaling": {"rope_type": 3}}`, []string{"rope_scaling.rope_type", "string"}},
		{"unknown rope type", `{` + llama + `, "rope_scaling": {"type": "xpos", "factor": 2}}`, []string{"rope_scaling", `"xpos"`, "unknown"}},
		{"factor without type", `{` + llama + `, "rope_scaling": {"factor": 2}}`, []string{"rope_scaling", "rope_type"}},
		{"linear without factor", `{` + llama + `, "rope_scaling": {"type": "linear"}}`, []string{"rope_scaling: linear requires factor"}},
		{"dynamic without factor", `{` + llama + `, "rope_scaling": {"type": "dynamic"}}`, []string{"rope_scaling: dynamic requires factor"}},
		{"yarn without factor", `{` + llama + `, "rope_scaling": {"rope_type": "yarn", "beta_fast": 32}}`, []string{"rope_scaling: yarn requires factor"}},
		{"yarn factor not a number", `{` + llama + `, "rope_scaling": {"rope_type": "yarn", "factor": "40"}}`, []string{"rope_scaling.factor", "number"}},
		{"yarn truncate not a bool", `{` + llama + `, "rope_scaling": {"rope_type": "yarn", "factor": 4, "truncate": 0}}`, []string{"rope_scaling.truncate"}},
		{"yarn negative beta", `{` + llama + `, "rope_scaling": {"rope_type": "yarn", "factor": 4, "beta_fast": -1}}`, []string{"beta_fast"}},
		{"llama3 without factor", `{` + llama + `, "rope_scaling": {"rope_type": "llama3", "low_freq_factor": 1, "high_freq_factor": 4, "original_max_position_embeddings": 8192}}`, []string{"rope_scaling: llama3 requires factor"}},
		{"llama3 without low", `{` + llama + `, "rope_scaling": {"rope_type": "llama3", "factor": 8, "high_freq_factor": 4, "original_max_position_embeddings": 8192}}`, []string{"rope_scaling: llama3 requires low_freq_factor"}},
		{"llama3 without high", `{` + llama + `, "rope_scaling": {"rope_type": "llama3", "factor": 8, "low_freq_factor": 1, "original_max_position_embeddings": 8192}}`, []string{"rope_scaling: llama3 requires high_freq_factor"}},
		{"llama3 without original", `{` + llama + `, "rope_scaling": {"rope_type": "llama3", "factor": 8, "low_freq_factor": 1, "high_freq_factor": 4}}`, []string{"rope_scaling: llama3 requires original_max_position_embeddings"}},
		{"longrope without short", `{` + llama + `, "rope_scaling": {"type": "longrope", "long_factor": [1]}}`, []string{"rope_scaling: longrope requires short_factor"}},
		{"su without long", `{` + llama + `, "rope_scaling": {"type": "su", "short_factor": [1]}}`, []string{"rope_scaling: su requires long_factor"}},
		{"longrope factor entry", `{` + llama + `, "rope_scaling": {"type": "longrope", "short_factor": [1, "x"], "long_factor": [1]}}`, []string{"rope_scaling.short_factor[1]", "number"}},
		{"longrope factor count", `{` + llama + `, "rope_scaling": {"type": "longrope", "short_factor": [1, 1], "long_factor": [1, 1]}}`, []string{"short_factor", "64"}},
		{"rope_parameters in text_config", `{"model_type": "qwen3_vl", "text_config": {"hidden_size": 1024, "num_attention_heads": 8, "rope_parameters": {"rope_type": "yarn"}}}`, []string{"text_config.rope_parameters: yarn requires factor"}},
		{"per-layer without full", `{` + llama + `, "rope_parameters": {"sliding_attention": {"rope_theta": 10000}}}`, []string{"rope_parameters", "full_attention"}},
		{"mrope sections sum", `{"model_type": "qwen2_vl", "hidden_size": 3584, "num_attention_heads": 28, "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 16]}}`, []string{"mrope_section"}},
		{"mrope section entry", `{"model_type": "qwen2_vl", "hidden_size": 3584, "num_attention_heads": 28, "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24.5]}}`, []string{"rope_scaling.mrope_section[2]"}},
		{"dual chunk without chunk_size", `{` + llama + `, "dual_chunk_attention_config": {"local_size": 8192}}`, []string{"dual_chunk_attention_config", "chunk_size"}},
		{"dual chunk local too big", `{` + llama + `, "dual_chunk_attention_config": {"chunk_size": 8, "local_size": 8}}`, []string{"chunk_size", "local_size"}},
		{"deepseek zero qk_rope_head_dim", `{"model_type": "deepseek_v3", "hidden_size": 7168, "num_attention_heads": 128, "qk_rope_head_dim": 0}`, []string{"qk_rope_head_dim", "positive"}},
		{"falcon alibi", `{"model_type": "falcon", "hidden_size": 4544, "num_attention_heads": 71, "alibi": true}`, []string{"alibi", "ALiBi"}},
		{"chatglm 2d", `{"model_type": "chatglm", "hidden_size": 4096, "num_attention_heads": 32, "position_encoding_2d": true}`, []string{"position_encoding_2d"}},
		{"chatglm original_rope not bool", `{"model_type": "chatglm", "hidden_size": 4096, "num_attention_heads": 32, "original_rope": "yes"}`, []string{"original_rope"}},
		{"gemma3 layer_types count", `{"model_type": "gemma3_text", "num_hidden_layers": 3, "layer_types": ["full_attention"]}`, []string{"layer_types", "3"}},
		{"gemma3 layer_types entry", `{"model_type": "gemma3_text", "layer_types": ["full_attention", 1]}`, []string{"layer_types[1]"}},
		{"gemma3 layer_types value", `{"model_type": "gemma3_text", "num_hidden_layers": 1, "layer_types": ["local"]}`, []string{"layer_types[0]"}},
		{"gemma3 pattern", `{"model_type": "gemma3_text", "sliding_window_pattern": 0}`, []string{"sliding_window_pattern"}},
		{"gemma3 local base", `{"model_type": "gemma3_text", "rope_local_base_freq": -5}`, []string{"rope_local_base_freq"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := Parse([]byte(c.cfg))
			if err == nil {
				t.Fatalf("Parse succeeded: %+v", m)
			}
			if !errors.Is(err, ErrConfig) {
				t.Errorf("error %v does not wrap ErrConfig", err)
			}
			for _, s := range c.mention {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
		})
	}
}

func TestValidateErrorsWrapBoth(t *testing.T) {
	_, err := Parse([]byte(`{"model_type": "qwen2_vl", "hidden_size": 3584, "num_attention_heads": 28,
		"rope_scaling": {"type": "mrope", "mrope_section": [1, 2]}}`))
	if !errors.Is(err, ErrConfig) || !errors.Is(err, rotary.ErrSpec) {
		t.Errorf("error %v should wrap ErrConfig and rotary.ErrSpec", err)
	}
}

func TestKnownModelTypes(t *testing.T) {
	known := KnownModelTypes()
	if !slices.IsSorted(known) {
		t.Error("KnownModelTypes not sorted")
	}
	for _, name := range []string{"llama", "qwen3_vl_text", "deepseek_v3", "chatglm", "gemma3_text", "gptj", "gpt_neox"} {
		if !slices.Contains(known, name) {
			t.Errorf("%s missing", name)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range PresetNames() {
		data, err := PresetJSON(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		`{}`, `null`, `{"model_type": "gptj", "n_embd": 64, "n_head": 4, "rotary_dim": 8}`,
		`{"model_type": "gemma3", "text_config": {"rope_parameters": {"full_attention": {}, "sliding_attention": {}}}}`,
		`{"model_type": "qwen2", "hidden_size": 64, "num_attention_heads": 2, "rope_scaling": {"type": "dynamic", "alpha": 2}}`,
		// Products past int and float64: head size × partial_rotary_factor, 10000 × rope_ratio,
		// factor × original_max_position_embeddings, n_embd / n_head at the ends of int.
		`{"model_type": "llama", "num_attention_heads": 1, "head_dim": 9223372036854775807, "partial_rotary_factor": 1}`,
		`{"model_type": "chatglm", "num_attention_heads": 2, "kv_channels": 64, "rope_ratio": 1e305}`,
		`{"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 9223372036854775807, "rope_scaling": {"rope_type": "yarn", "factor": 1e300, "original_max_position_embeddings": 9223372036854775807}}`,
		`{"model_type": "gptj", "n_embd": 9223372036854775807, "n_head": 9223372036854775807, "rotary_dim": 2}`,
		// Per-layer rules and layers without RoPE.
		`{"model_type": "olmo3", "hidden_size": 64, "num_attention_heads": 2, "num_hidden_layers": 4, "rope_scaling": {"rope_type": "yarn", "factor": 8, "original_max_position_embeddings": 8192}}`,
		`{"model_type": "gemma3n", "text_config": {"model_type": "gemma3n_text", "num_hidden_layers": 5, "layer_types": ["sliding_attention", "full_attention", "sliding_attention", "sliding_attention", "full_attention"]}}`,
		`{"model_type": "llama4_text", "hidden_size": 64, "num_attention_heads": 2, "num_hidden_layers": 4, "no_rope_layers": [1, 1, 1, 0]}`,
		`{"model_type": "smollm3", "hidden_size": 64, "num_attention_heads": 2, "num_hidden_layers": 9223372036854775807}`,
		`{"model_type": "cohere2", "hidden_size": 64, "num_attention_heads": 2, "num_hidden_layers": 4, "sliding_window": null}`,
		`{"model_type": "exaone4", "hidden_size": 64, "num_attention_heads": 2, "num_hidden_layers": 2, "sliding_window_pattern": "LG", "layer_types": ["sliding_attention", "full_attention"]}`,
		`{"model_type": "llama", "hidden_size": 64, "num_attention_heads": 2, "num_hidden_layers": 2, "layer_types": ["a", "b"], "rope_parameters": {"full_attention": {"rope_theta": 100}, "a": {"rope_theta": 10, "partial_rotary_factor": 0.5}, "b": {}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse(data)
		if err != nil {
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("error %v does not wrap ErrConfig", err)
			}
			return
		}
		if err := m.Spec.Validate(); err != nil {
			t.Fatalf("Parse returned an invalid spec: %v", err)
		}
		if m.HeadSize != m.Spec.HeadSize || m.NumHeads <= 0 || m.NumKVHeads <= 0 || m.NumHeads%m.NumKVHeads != 0 || m.NumLayers < 0 {
			t.Fatalf("inconsistent model %+v", m)
		}
		if m.ModelType == "" || m.TopModelType == "" {
			t.Fatalf("empty model type: %+v", m)
		}
		// The derived spec must be usable, not only valid.
		if inv, att := m.Spec.Frequencies(-1); len(inv) != m.Spec.Half() || math.IsNaN(att) {
			t.Fatalf("Frequencies: %d values, attention %v", len(inv), att)
		}
		if _, err := m.Spec.ForLayer(0); err != nil {
			t.Fatalf("ForLayer(0): %v", err)
		}
		for l := range min(m.NumLayers, 64) {
			if s, err := m.Spec.ForLayer(l); err == nil {
				if err := s.Validate(); err != nil {
					t.Fatalf("ForLayer(%d) = %+v: %v", l, s, err)
				}
			}
		}
		// Select's refusals are SelectionErrors, and what it picks is valid; Warnings reads
		// whatever Parse kept.
		_ = m.Warnings()
		for _, sel := range []Selection{{}, {RoPE: IndexerRoPE}, {Layer: m.NumLayers}, {Layer: -1}} {
			s, err := m.Select(sel)
			if _, ok := errors.AsType[*SelectionError](err); err != nil && !ok {
				t.Fatalf("Select(%+v): %v is not a *SelectionError", sel, err)
			}
			if err == nil {
				if err := s.Validate(); err != nil {
					t.Fatalf("Select(%+v) = %+v: %v", sel, s, err)
				}
			}
		}
	})
}
