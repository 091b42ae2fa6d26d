package hf

import (
	"errors"
	"strings"
	"testing"
)

// TestRawHeadRules: ReadRaw's head size and rotary dim are Parse's where Parse accepts the
// config, on every preset, and the family's rules without their checks where it refuses.
func TestRawHeadRules(t *testing.T) {
	for _, name := range PresetNames() {
		data, err := PresetJSON(name)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		r, err := ReadRaw(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if r.HeadSize() != m.Spec.HeadSize || r.RotaryDim() != m.Spec.RotaryDim {
			t.Errorf("%s: raw head %d rotary %d, Parse %d %d", name, r.HeadSize(), r.RotaryDim(), m.Spec.HeadSize, m.Spec.RotaryDim)
		}
	}
	for _, c := range []struct {
		js           string
		head, rotary int
	}{
		// refused by Parse: a fraction past 1, of ChatGLM's kv_channels
		{`{"model_type": "chatglm", "hidden_size": 4096, "kv_channels": 64, "num_attention_heads": 32, "partial_rotary_factor": 1.5}`, 64, 96},
		// a rotary_dim past the head, odd
		{`{"model_type": "gptj", "n_embd": 4096, "n_head": 32, "rotary_dim": 131}`, 128, 131},
		// a rotary_dim LlamaConfig does not read: the whole head
		{`{"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "rotary_dim": 131}`, 128, 128},
		// hidden size not divisible by the heads: truncated
		{`{"model_type": "llama", "hidden_size": 100, "num_attention_heads": 3}`, 33, 33},
		// MLA: the rope part, whatever the rest says
		{`{"model_type": "deepseek_v3", "qk_rope_head_dim": 64, "num_attention_heads": 0}`, 64, 64},
		// Gemma 4's full layers: global_head_dim
		{`{"model_type": "gemma4_text", "hidden_size": 2048, "num_attention_heads": 8, "head_dim": 256, "global_head_dim": 512, "rope_theta": 1e6}`, 512, 512},
		// no family, no heads: unknown
		{`{"hidden_size": 4096}`, 0, 0},
		{`{"model_type": 3, "head_dim": 80, "partial_rotary_factor": 0.5}`, 80, 40},
		// a nested text model's keys over the top level's
		{`{"model_type": "qwen2_vl", "hidden_size": 64, "num_attention_heads": 1, "text_config": {"head_dim": 32, "num_attention_heads": "x"}}`, 32, 32},
	} {
		r, err := ReadRaw([]byte(c.js))
		if err != nil {
			t.Fatalf("%s: %v", c.js, err)
		}
		if r.HeadSize() != c.head || r.RotaryDim() != c.rotary {
			t.Errorf("%s: head %d rotary %d, want %d %d", c.js, r.HeadSize(), r.RotaryDim(), c.head, c.rotary)
		}
	}
}

func TestRawRope(t *testing.T) {
	r, err := ReadRaw([]byte(`{"model_type": "llama", "max_position_embeddings": 32768,
		"rope_scaling": {"type": "yarn", "factor": 2, "mrope_section": [1, 2, 3]},
		"text_config": {"rope_parameters": {"full_attention": {"rope_type": "longrope", "factor": 4,
			"original_max_position_embeddings": 4096, "short_factor": [1, 2], "long_factor": "x",
			"xdrope_section": [4, 4, 4, 4]}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := r.RopeType(); got != "longrope" {
		t.Errorf("RopeType %q: want the text model's rope_parameters' full_attention entry's", got)
	}
	if f, ok := r.Factor(); !ok || f != 4 {
		t.Errorf("Factor %v %v", f, ok)
	}
	if o, ok := r.OriginalMax(); !ok || o != 4096 {
		t.Errorf("OriginalMax %v %v", o, ok)
	}
	if m, ok := r.MaxPositions(); !ok || m != 32768 {
		t.Errorf("MaxPositions %v %v: want the top level's, which the text model lacks", m, ok)
	}
	if s, ok, err := r.Sections(); !ok || err != nil || len(s) != 4 || s[0] != 4.0 {
		t.Errorf("Sections %v %v %v: want xdrope_section as float64", s, ok, err)
	}
	if l := r.LongRoPEFactors(); len(l) != 1 || l[0].Key != "short_factor" || len(l[0].Values) != 2 {
		t.Errorf("LongRoPEFactors %+v: want short_factor alone (long_factor is no list)", l)
	}
}

func TestRawObject(t *testing.T) {
	r, err := ReadRaw([]byte(`{"a": 1.5, "b": "x", "c": [1e400, 2], "d": null, "e": 1e400, "o": {"text_config": {"k": 7}}}`))
	if err != nil {
		t.Fatal(err)
	}
	top := r.Top()
	if f, ok, err := top.Number("a"); !ok || err != nil || f != 1.5 {
		t.Errorf("Number(a) %v %v %v", f, ok, err)
	}
	if _, ok, err := top.Number("d"); ok || err != nil {
		t.Errorf("Number(null) %v %v: want absent", ok, err)
	}
	if top.Has("d") || !top.Has("b") {
		t.Error("Has: null must be absent, a string present")
	}
	for key, want := range map[string]string{"b": "b: want a number, got string", "e": "e: 1e400: want a finite number"} {
		if _, _, err := top.Number(key); err == nil || !errors.Is(err, ErrConfig) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Number(%s): %v, want ErrConfig starting %q", key, err, want)
		}
	}
	if _, _, err := top.String("a"); err == nil || !strings.HasPrefix(err.Error(), "a: want a string") {
		t.Errorf("String(a): %v", err)
	}
	if _, err := top.Object("b"); err == nil || !strings.HasPrefix(err.Error(), "b: want a JSON object") {
		t.Errorf("Object(b): %v", err)
	}
	if l, ok, err := top.List("c"); !ok || err != nil || l[1] != 2.0 {
		t.Errorf("List(c) %v %v %v", l, ok, err)
	}
	o, err := top.Object("o")
	if err != nil {
		t.Fatal(err)
	}
	tc, err := o.TextConfig()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := tc.String("k"); err == nil || !strings.HasPrefix(err.Error(), "o.text_config.k:") {
		t.Errorf("a nested key's error %v: want its path", err)
	}
	var zero RawObject
	if f, ok, err := zero.Number("a"); ok || err != nil || f != 0 {
		t.Error("the zero RawObject has keys")
	}
}

func TestReadRawErrors(t *testing.T) {
	for js, want := range map[string]string{
		"":         "unexpected end of JSON input",
		"{} {}":    "invalid character '{' after top-level value",
		"[1, 2]":   "cannot unmarshal array",
		"null":     "want a JSON object, got null",
		`{"a": 1`:  "unexpected end of JSON input",
		"not json": "invalid character",
	} {
		r, err := ReadRaw([]byte(js))
		if r != nil || err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadRaw(%q) = %v, %v: want ErrConfig containing %q", js, r, err, want)
		}
	}
}

func FuzzReadRaw(f *testing.F) {
	for _, name := range PresetNames() {
		data, err := PresetJSON(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"model_type": "zamba2", "hidden_size": 7, "num_attention_heads": 0}`))
	f.Add([]byte(`{"model_type": "deepseek_v4", "head_dim": 3, "partial_rotary_factor": 1e300}`))
	f.Add([]byte(`{"model_type": "gemma4", "per_layer_config": {"0": {"head_dim": -1}}, "num_hidden_layers": 2}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ReadRaw(data)
		if err != nil {
			return
		}
		r.RopeType()
		r.Sections()
		r.LongRoPEFactors()
		if m, err := Parse(data); err == nil && (m.Spec.HeadSize != r.HeadSize() || m.Spec.RotaryDim != r.RotaryDim()) {
			t.Fatalf("Parse: head %d rotary %d, ReadRaw %d %d", m.Spec.HeadSize, m.Spec.RotaryDim, r.HeadSize(), r.RotaryDim())
		}
	})
}

// TestRawTopLevelAsParse: ReadRaw's text model lacks the top-level keys Parse does not read,
// those of a wrapper class hf knows (Qwen2VLConfig builds its text model from text_config).
func TestRawTopLevelAsParse(t *testing.T) {
	r, err := ReadRaw([]byte(`{"model_type": "qwen2_vl", "max_position_embeddings": 777, "text_config": {"hidden_size": 64}}`))
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := r.MaxPositions(); ok {
		t.Errorf("MaxPositions %v: want none, as Parse reads it", m)
	}
}
