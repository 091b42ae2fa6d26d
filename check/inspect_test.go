package check_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/check"
	"github.com/rotary-go/rotary/gguf"
	"github.com/rotary-go/rotary/hf"
	rp "github.com/rotary-go/rotary/rope"
)

func inspectPreset(t *testing.T, name string, sel hf.Selection) *check.InspectReport {
	t.Helper()
	m, err := hf.Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	r, err := check.Inspect(m, sel)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return r
}

func inspectText(r *check.InspectReport) string {
	var b bytes.Buffer
	r.WriteText(&b)
	return b.String()
}

var snakeKey = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// snakeKeys reports every object key under v that is not snake_case, with its path.
func snakeKeys(t *testing.T, path string, v any) {
	t.Helper()
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if !snakeKey.MatchString(k) {
				t.Errorf("%s: key %q is not snake_case", path, k)
			}
			snakeKeys(t, path+"."+k, x)
		}
	case []any:
		for _, x := range v {
			snakeKeys(t, path+"[]", x)
		}
	}
}

// TestInspectPresets: every preset's report is its layer's spec (head, rotary dim, base,
// frequencies and attention factor as rope computes them), in JSON with snake_case keys only
// (the parts of package rope's types included, which used to come out as Go's field names:
// "MscaleAllDim"), whether marshalled as a value or through a pointer; so is every layer of the
// presets whose RoPE differs by layer, and a Cohere2 config's.
func TestInspectPresets(t *testing.T) {
	for _, name := range hf.PresetNames() {
		m, err := hf.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		r, err := check.Inspect(m, hf.Selection{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		spec, _ := m.Spec.ForLayer(0)
		if r.HeadSize != spec.HeadSize || r.RotaryDim != spec.RotaryDim || r.Base != spec.Base || r.Style != spec.Style.String() || r.Rope != "main" || r.Layer != 0 {
			t.Errorf("%s: report %+v, want layer 0's spec %+v", name, r, spec)
		}
		if !spec.NoRoPE {
			inv, attn := spec.Frequencies(-1)
			if len(r.InvFreq) != len(inv) || r.InvFreq[len(inv)-1] != inv[len(inv)-1] || r.AttentionFactor != attn || r.CacheLen != spec.DefaultCacheLen() {
				t.Errorf("%s: inv_freq %d values, attention %v, cache %d; want %d, %v, %d", name, len(r.InvFreq), r.AttentionFactor, r.CacheLen, len(inv), attn, spec.DefaultCacheLen())
			}
			if (r.LongInvFreq != nil) != (spec.Scaling.Type == rp.ScalingLongRoPE) {
				t.Errorf("%s: long inv_freq %v under %s", name, r.LongInvFreq != nil, spec.Scaling.Type)
			}
		}
		byValue, err := json.Marshal(*r)
		if err != nil {
			t.Fatal(err)
		}
		byPointer, _ := json.Marshal(r)
		if !bytes.Equal(byValue, byPointer) {
			t.Errorf("%s: the JSON of the report differs from that of a pointer to it", name)
		}
		var v any
		if err := json.Unmarshal(byValue, &v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		snakeKeys(t, name, v)
	}
	cohere2, err := hf.Parse([]byte(`{"model_type": "cohere2", "hidden_size": 512, "num_attention_heads": 8,
		"num_key_value_heads": 2, "num_hidden_layers": 8, "max_position_embeddings": 8192, "rope_theta": 50000,
		"sliding_window": 4096, "sliding_window_pattern": 4}`))
	if err != nil {
		t.Fatal(err)
	}
	models := map[string]*hf.Model{"cohere2": cohere2}
	for _, name := range hf.PresetNames() {
		if m, err := hf.Preset(name); err == nil && m.Spec.Local != nil {
			models[name] = m
		}
	}
	for name, m := range models {
		for l := range m.NumLayers {
			r, err := check.Inspect(m, hf.Selection{Layer: l})
			if err != nil {
				t.Fatalf("%s layer %d: %v", name, l, err)
			}
			var v any
			b, _ := json.Marshal(r)
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatalf("%s layer %d: %v", name, l, err)
			}
			snakeKeys(t, fmt.Sprintf("%s layer %d", name, l), v)
		}
	}
	// The parts that were Go field names come out under the config's own names.
	b, _ := json.Marshal(inspectPreset(t, "deepseek-v3", hf.Selection{}))
	for _, k := range []string{`"mscale_all_dim":1`, `"original_max_positions":4096`, `"beta_fast":32`, `"type":"yarn"`} {
		if !bytes.Contains(b, []byte(k)) {
			t.Errorf("deepseek-v3: JSON lacks %s", k)
		}
	}
	b, _ = json.Marshal(inspectPreset(t, "gemma-3-4b", hf.Selection{}))
	for _, k := range []string{`"pattern":6`, `"layer_types":null`} {
		if !bytes.Contains(b, []byte(k)) {
			t.Errorf("gemma-3-4b: JSON lacks %s", k)
		}
	}
}

// TestInspectSoftmaxMscale: DeepSeek's attention multiplies its softmax scale by
// yarn_get_mscale(factor, mscale_all_dim)² (transformers deepseek_v3 yarn_apply_mscale), which
// is in no cos/sin; the report says so, and says nothing of it for models without it.
func TestInspectSoftmaxMscale(t *testing.T) {
	m := 0.1*1*math.Log(40) + 1 // deepseek-v3: factor 40, mscale_all_dim 1
	want := m * m
	for _, p := range []string{"deepseek-v3", "deepseek-v2-lite"} {
		r := inspectPreset(t, p, hf.Selection{})
		mp := 0.1*r.Scaling.MscaleAllDim*math.Log(r.Scaling.Factor) + 1
		if p == "deepseek-v3" && r.SoftmaxMscale != want || math.Abs(r.SoftmaxMscale-mp*mp) > 1e-15 || r.SoftmaxMscale <= 1 {
			t.Errorf("%s: softmax_mscale %v, want %v", p, r.SoftmaxMscale, mp*mp)
		}
		if !strings.Contains(strings.Join(r.Notes, "\n"), "softmax scale") {
			t.Errorf("%s: notes %q do not mention the softmax scale", p, r.Notes)
		}
		if text := inspectText(r); !strings.Contains(text, "softmax scale") || !strings.Contains(text, "not RoPE") {
			t.Errorf("%s: the text does not note the softmax scale:\n%s", p, text)
		}
	}
	for _, p := range []string{"llama-3.1-8b", "gpt-oss-20b", "phi-4-mini"} {
		b, _ := json.Marshal(inspectPreset(t, p, hf.Selection{}))
		if bytes.Contains(b, []byte("softmax")) {
			t.Errorf("%s: mentions a softmax scale it does not have", p)
		}
	}
}

// TestInspectPositionsWrapper: the positions family is the top level's model when it wraps
// another text model. MiniCPM-V 4.7 wraps Qwen3.5's text model, whose get_rope_index would
// misplace every image token, so the report names no positions family and says why; Qwen3-VL's
// wrapper keeps its own.
func TestInspectPositionsWrapper(t *testing.T) {
	cases := []struct{ name, cfg, family, note string }{
		{"minicpm", `{"model_type": "minicpmv4_7", "text_config": {"model_type": "qwen3_5_text", "hidden_size": 2048,
			"num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 256,
			"rope_parameters": {"rope_type": "default", "rope_theta": 10000000, "partial_rotary_factor": 0.25,
			"mrope_section": [11, 11, 10], "mrope_interleaved": true}}}`, "", "compute_canvas_rope_index"},
		{"qwen3vl", `{"model_type": "qwen3_vl", "text_config": {"model_type": "qwen3_vl_text", "hidden_size": 4096,
			"num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128, "rope_theta": 5000000,
			"rope_scaling": {"rope_type": "default", "mrope_section": [24, 20, 20], "mrope_interleaved": true}}}`, "qwen3_vl", ""},
	}
	for _, c := range cases {
		m, err := hf.Parse([]byte(c.cfg))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		r, err := check.Inspect(m, hf.Selection{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if r.PositionsFamily != c.family {
			t.Errorf("%s: positions_family %q, want %q", c.name, r.PositionsFamily, c.family)
		}
		if c.note != "" && !strings.Contains(strings.Join(r.Notes, "\n"), c.note) {
			t.Errorf("%s: notes %q lack %q", c.name, r.Notes, c.note)
		}
	}
}

// TestInspectLayerKind: the text names a layer by its type, as the stderr note of cache, apply
// and golden does, not as "global" or "sliding".
func TestInspectLayerKind(t *testing.T) {
	for _, c := range []struct {
		model string
		layer int
		want  string
	}{
		{"gemma-3-4b", 0, "layer:                 0: sliding_attention (the local base, no scaling: the values above)\n"},
		{"gemma-3-4b", 5, "layer:                 5: full_attention (the model's RoPE)\n"},
		{"olmo-3-7b-instruct", 3, "layer:                 3: full_attention (the model's RoPE)\n"},
		{"gemma-4-e2b", 0, "layer:                 0: sliding_attention (its own RoPE: the values above)\n"},
		{"gemma-4-e2b", 4, "layer:                 4: full_attention (the model's RoPE)\n"},
	} {
		if text := inspectText(inspectPreset(t, c.model, hf.Selection{Layer: c.layer})); !strings.Contains(text, c.want) {
			t.Errorf("%s layer %d:\n%s\nwant the line %q", c.model, c.layer, text, c.want)
		}
	}
}

// TestInspectIndexer: a DeepSeek-V3.2 report shows the indexer's RoPE whichever RoPE it
// describes; the text says which.
func TestInspectIndexer(t *testing.T) {
	for _, c := range []struct {
		which hf.WhichRoPE
		head  int
		style string
	}{{hf.MainRoPE, 64, "gptj"}, {hf.IndexerRoPE, 128, "neox"}} {
		r := inspectPreset(t, "deepseek-v3.2-exp", hf.Selection{RoPE: c.which})
		if r.Rope != c.which.String() || r.HeadSize != c.head || r.Style != c.style || r.RotaryDim != 64 {
			t.Errorf("%v: rope %q head %d style %s rotary %d", c.which, r.Rope, r.HeadSize, r.Style, r.RotaryDim)
		}
		if r.Indexer == nil || *r.Indexer != (check.IndexerReport{HeadSize: 128, RotaryDim: 64, Style: "neox"}) {
			t.Errorf("%v: indexer %+v", c.which, r.Indexer)
		}
		text := inspectText(r)
		if !strings.Contains(text, "head 128, dims 0..63 rotated (neox), 64 pass-through") || strings.Contains(text, "lightning indexer's") != (c.which == hf.IndexerRoPE) {
			t.Errorf("%v: text\n%s", c.which, text)
		}
	}
}

// TestInspectNoRoPELayer: a layer without RoPE has no frequencies, attention factor 1 and no
// cache, and the text stops at saying so.
func TestInspectNoRoPELayer(t *testing.T) {
	m, err := hf.Parse([]byte(`{"model_type": "smollm3", "hidden_size": 512, "num_attention_heads": 8,
		"num_key_value_heads": 2, "num_hidden_layers": 8, "max_position_embeddings": 65536, "rope_theta": 5000000.0,
		"no_rope_layer_interval": 4}`))
	if err != nil {
		t.Fatal(err)
	}
	r, err := check.Inspect(m, hf.Selection{Layer: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !r.NoRoPE || r.InvFreq != nil || r.AttentionFactor != 1 || r.CacheLen != 0 {
		t.Errorf("layer 3: no_rope %v inv_freq %v attention %v cache %d", r.NoRoPE, r.InvFreq, r.AttentionFactor, r.CacheLen)
	}
	if text := inspectText(r); !strings.Contains(text, "3: no RoPE on this layer") || strings.Contains(text, "inv_freq") {
		t.Errorf("text:\n%s", text)
	}
}

// TestInspectRefusals: a nil model or file is an error, a selection Select refuses is its
// *hf.SelectionError; nothing panics, and a zero report writes without a panic.
func TestInspectRefusals(t *testing.T) {
	if _, err := check.Inspect(nil, hf.Selection{}); err == nil {
		t.Error("Inspect(nil): no error")
	}
	if _, err := check.InspectGGUF(nil, 0); err == nil {
		t.Error("InspectGGUF(nil): no error")
	}
	m, err := hf.Preset("llama-3.1-8b")
	if err != nil {
		t.Fatal(err)
	}
	_, err = check.Inspect(m, hf.Selection{Layer: 40})
	if se, ok := errors.AsType[*hf.SelectionError](err); !ok || se.Arg != "layer" {
		t.Errorf("layer 40: %v (%T), want a *hf.SelectionError of layer", err, err)
	}
	var b bytes.Buffer
	new(check.InspectReport).WriteText(&b)
	(*check.InspectReport)(nil).WriteText(&b)
	if !strings.Contains(b.String(), "source:") {
		t.Errorf("zero report: %q", b.String())
	}
}

// qwen3VLGGUF is Qwen3-VL-8B's RoPE keys as the converter writes them: mrope_section
// [24, 20, 20] padded with a 0, which llama.cpp's IMROPE reads with pairs 61 and 62 on its
// fourth position row.
func qwen3VLGGUF(t *testing.T) *gguf.File {
	t.Helper()
	const arch = "qwen3vl"
	b, err := gguf.Write([]gguf.KV{
		{Key: "general.architecture", Value: gguf.Str(arch)},
		{Key: arch + ".context_length", Value: gguf.U32(262144)},
		{Key: arch + ".embedding_length", Value: gguf.U32(4096)},
		{Key: arch + ".block_count", Value: gguf.U32(36)},
		{Key: arch + ".attention.head_count", Value: gguf.U32(32)},
		{Key: arch + ".attention.head_count_kv", Value: gguf.U32(8)},
		{Key: arch + ".attention.key_length", Value: gguf.U32(128)},
		{Key: arch + ".rope.dimension_count", Value: gguf.U32(128)},
		{Key: arch + ".rope.freq_base", Value: gguf.F32(5e6)},
		{Key: arch + ".rope.dimension_sections", Value: gguf.I32s(24, 20, 20, 0)},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestInspectGGUF: a GGUF file's report is llama.cpp's spec in Inspect's form, with the file's
// facts first in the text and last in the JSON; a layer past the file's is refused as
// Select refuses it.
func TestInspectGGUF(t *testing.T) {
	f := qwen3VLGGUF(t)
	r, err := check.InspectGGUF(f, 1)
	if err != nil {
		t.Fatal(err)
	}
	if g := r.GGUF; g == nil || g.Architecture != "qwen3vl" || g.RopeType != "imrope" || g.Version != f.Version {
		t.Fatalf("gguf facts %+v", r.GGUF)
	}
	if r.NumLayers != 36 || r.Layer != 1 || r.MRoPE == nil || !r.MRoPE.GGMLFourth || r.Style != "neox" {
		t.Errorf("report %+v", r)
	}
	text := inspectText(r)
	for _, want := range []string{
		"gguf:                  version 3, general.architecture qwen3vl, llama.cpp rope type imrope (pairs i, i+n_rot/2, sections interleaved), no rope.scaling.type",
		"mrope interleaved [24 20 20 0], pairs 61, 62 on llama.cpp's fourth position row",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if !strings.HasPrefix(text, "gguf:") {
		t.Errorf("text does not begin with the file's facts:\n%s", text)
	}
	b, _ := json.Marshal(r)
	if i := bytes.Index(b, []byte(`"gguf":{"version":3,"architecture":"qwen3vl","rope_type":"imrope"}`)); i < 0 || i+len(`"gguf":{"version":3,"architecture":"qwen3vl","rope_type":"imrope"}}`) != len(b) {
		t.Errorf("JSON does not end with the file's facts: %s", b)
	}
	_, err = check.InspectGGUF(f, 36)
	if se, ok := errors.AsType[*hf.SelectionError](err); !ok || err.Error() != "layer 36: the model has 36 layers (0..35)" {
		t.Errorf("layer 36: %v (%T)", err, se)
	}
	unknown, err := gguf.Write([]gguf.KV{{Key: "general.architecture", Value: gguf.Str("nosuch")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	uf, err := gguf.Parse(unknown)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := check.InspectGGUF(uf, 0); !errors.Is(err, gguf.ErrUnsupported) {
		t.Errorf("an architecture llama.cpp's table lacks: %v, want gguf.ErrUnsupported", err)
	}
}

// TestSpecWords: a spec's scaling, MRoPE, per-layer rules and dual-chunk attention, in the
// words presets and inspect print.
func TestSpecWords(t *testing.T) {
	for name, want := range map[string]string{
		"llama-3.1-8b":          "llama3 factor=8",
		"qwen3-vl-8b":           "default, mrope interleaved [24 20 20]",
		"gemma-3-4b":            "linear factor=8, per-layer local base 10000",
		"gemma-4-e2b":           "proportional factor=1, per-layer sliding_attention base 10000",
		"llama-4-scout-17b-16e": "llama3 factor=8, per-layer 12 of 48 layers without RoPE",
	} {
		m, err := hf.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := check.SpecWords(m.Spec); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	if got := check.SpecWords(rp.Spec{Local: &rp.LocalRoPE{NoRoPE: []bool{true, false, true}}, DualChunk: &rp.DualChunk{ChunkSize: 8, LocalSize: 2}}); got != "default, per-layer 2 of 3 layers without RoPE, dual-chunk 8/2" {
		t.Errorf("per-layer and dual-chunk: %q", got)
	}
}
