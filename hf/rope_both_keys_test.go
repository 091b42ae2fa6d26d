package hf

import (
	"errors"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/rope"
)

// TestRopeScalingOverParameters: a config giving both rope_parameters and a legacy rope_scaling
// is read as transformers' RotaryEmbeddingConfigMixin.convert_rope_params_to_dict reads it
// (rope_scaling or rope_parameters): a non-empty rope_scaling replaces rope_parameters whole,
// its rope_theta included, and an empty one leaves rope_parameters. GPTNeoXConfig, Phi3Config,
// Qwen2VLTextConfig and Qwen2_5_VLTextConfig override the method with the same expression.
func TestRopeScalingOverParameters(t *testing.T) {
	const llama = `"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 8192`
	m := mustParse(t, `{`+llama+`, "rope_parameters": {"rope_type": "default", "rope_theta": 500000},
		"rope_scaling": {"rope_type": "linear", "factor": 4}}`)
	if sc := m.Spec.Scaling; sc.Type != rope.ScalingLinear || sc.Factor != 4 || m.Spec.Base != 10000 {
		t.Errorf("llama with both: scaling %+v base %v, want rope_scaling's linear 4 and LlamaConfig's default_theta 10000", sc, m.Spec.Base)
	}
	if !hasNote(m, "rope_scaling taken over rope_parameters") {
		t.Errorf("notes %q: want both keys named", m.Notes)
	}
	// The config's rope_theta is setdefaulted into the object taken.
	m = mustParse(t, `{`+llama+`, "rope_theta": 250000, "rope_parameters": {"rope_type": "default", "rope_theta": 500000},
		"rope_scaling": {"rope_type": "linear", "factor": 4}}`)
	if m.Spec.Base != 250000 || m.Spec.Scaling.Factor != 4 {
		t.Errorf("llama with both and rope_theta: base %v scaling %+v, want 250000, linear 4", m.Spec.Base, m.Spec.Scaling)
	}
	// An empty rope_scaling is falsy: rope_parameters stands.
	m = mustParse(t, `{`+llama+`, "rope_parameters": {"rope_type": "linear", "factor": 2, "rope_theta": 500000}, "rope_scaling": {}}`)
	if m.Spec.Scaling.Factor != 2 || m.Spec.Base != 500000 {
		t.Errorf("llama with an empty rope_scaling: scaling %+v base %v, want rope_parameters' linear 2 and 500000", m.Spec.Scaling, m.Spec.Base)
	}
	// Qwen2-VL's text class: rope_scaling's mrope object replaces rope_parameters'.
	m = mustParse(t, `{"model_type": "qwen2_vl", "text_config": {"model_type": "qwen2_vl_text", "hidden_size": 3584, "num_attention_heads": 28,
		"rope_parameters": {"rope_type": "default", "rope_theta": 1000000},
		"rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}}}`)
	if m.Spec.MRoPE == nil || m.Spec.Base != 1e6 {
		t.Errorf("qwen2_vl with both: mrope %v base %v, want rope_scaling's sections and Qwen2VLTextConfig's default_theta 1e6", m.Spec.MRoPE, m.Spec.Base)
	}
}

// TestRopeScalingMergedIntoFull: Gemma3TextConfig, Gemma3nTextConfig and Olmo3Config override
// convert_rope_params_to_dict to update rope_parameters["full_attention"] with rope_scaling,
// its keys winning, and leave the sliding entry alone; a rope_parameters without that entry
// fails there (KeyError), which hf refuses.
func TestRopeScalingMergedIntoFull(t *testing.T) {
	for typ, class := range map[string]string{"gemma3_text": "Gemma3TextConfig", "gemma3n_text": "Gemma3nTextConfig", "olmo3": "Olmo3Config"} {
		m, err := Parse([]byte(`{"model_type": "` + typ + `", "hidden_size": 2048, "num_attention_heads": 8, "head_dim": 256, "num_hidden_layers": 12,
			"max_position_embeddings": 32768,
			"rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 1000000}, "sliding_attention": {"rope_type": "default", "rope_theta": 10000}},
			"rope_scaling": {"rope_type": "linear", "factor": 8}}`))
		if err != nil {
			t.Errorf("%s: %v", typ, err)
			continue
		}
		fulls := 0
		for l := range 12 {
			ls, err := m.Spec.ForLayer(l)
			if err != nil {
				t.Fatalf("%s: layer %d: %v", typ, l, err)
			}
			switch {
			case ls.Base == 1e6 && ls.Scaling.Type == rope.ScalingLinear && ls.Scaling.Factor == 8:
				fulls++
			case ls.Base == 10000 && ls.Scaling.Type == rope.ScalingDefault:
			default:
				t.Errorf("%s: layer %d base %v scaling %+v: want full layers at 1e6 with rope_scaling's linear 8, sliding ones at 10000 default", typ, l, ls.Base, ls.Scaling)
			}
		}
		if fulls == 0 {
			t.Errorf("%s: no full-attention layer with rope_scaling's linear 8", typ)
		}
		if !hasNote(m, "rope_scaling merged into rope_parameters.full_attention") || !hasNote(m, class) {
			t.Errorf("%s: notes %q: want the merge named with %s", typ, m.Notes, class)
		}
		_, err = Parse([]byte(`{"model_type": "` + typ + `", "hidden_size": 2048, "num_attention_heads": 8, "head_dim": 256, "num_hidden_layers": 12,
			"rope_parameters": {"rope_type": "default", "rope_theta": 1000000}, "rope_scaling": {"rope_type": "linear", "factor": 8}}`))
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "full_attention") || !strings.Contains(err.Error(), class) {
			t.Errorf("%s: flat rope_parameters beside rope_scaling: %v, want a refusal naming full_attention and %s", typ, err, class)
		}
	}
}

// TestRopeParametersFirstUnderLlamaCpp: llama.cpp's converter takes rope_parameters, else
// rope_scaling (conversion/base.py TextModel.__init__), so with both keys --as llama.cpp reads
// rope_parameters where the reference reads rope_scaling, and says so.
func TestRopeParametersFirstUnderLlamaCpp(t *testing.T) {
	cfg := []byte(`{"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 8192,
		"rope_parameters": {"rope_type": "default", "rope_theta": 500000}, "rope_scaling": {"rope_type": "linear", "factor": 4}}`)
	m, err := ParseOptions{Dialect: DialectLlamaCpp}.Parse(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if m.Spec.Scaling.Type == rope.ScalingLinear || m.Spec.Base != 500000 {
		t.Errorf("--as llama.cpp: scaling %+v base %v, want rope_parameters' default RoPE at 500000", m.Spec.Scaling, m.Spec.Base)
	}
	if ref := mustParse(t, string(cfg)); ref.Spec.Scaling.Type != rope.ScalingLinear {
		t.Errorf("the reference: scaling %+v, want rope_scaling's linear", ref.Spec.Scaling)
	}
}

// TestRopeBothKeysUnderVLLM: vLLM's get_config (transformers_utils/config.py, 0036026e) builds
// the config with transformers v5's AutoConfig, whose config class picks the rope object
// (convert_rope_params_to_dict: rope_scaling or rope_parameters, or Gemma 3's merge into
// full_attention), and patch_rope_parameters, run after it on the config and its text config,
// only renames legacy rope types and standardizes the object it was given: --as vllm reads both
// keys as the reference does, not as llama.cpp's converter (rope_parameters first).
func TestRopeBothKeysUnderVLLM(t *testing.T) {
	for _, cfg := range []string{
		`{"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 8192,
			"rope_parameters": {"rope_type": "default", "rope_theta": 500000}, "rope_scaling": {"rope_type": "linear", "factor": 4}}`,
		`{"model_type": "gemma3_text", "hidden_size": 2048, "num_attention_heads": 8, "head_dim": 256, "num_hidden_layers": 12,
			"rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 1000000}, "sliding_attention": {"rope_type": "default", "rope_theta": 10000}},
			"rope_scaling": {"rope_type": "linear", "factor": 8}}`,
	} {
		ref := mustParse(t, cfg)
		m, err := ParseOptions{Dialect: DialectVLLM}.Parse([]byte(cfg))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range []int{0, 5} {
			want, _ := ref.Spec.ForLayer(l)
			got, _ := m.Spec.ForLayer(l)
			if got.Base != want.Base || got.Scaling.Type != want.Scaling.Type || got.Scaling.Factor != want.Scaling.Factor {
				t.Errorf("%s layer %d: --as vllm base %v scaling %+v, want the reference's %v %+v", m.ModelType, l, got.Base, got.Scaling, want.Base, want.Scaling)
			}
		}
		if full, _ := m.Spec.ForLayer(5); full.Scaling.Type != rope.ScalingLinear {
			t.Errorf("%s: layer 5 scaling %+v, want rope_scaling's linear", m.ModelType, full.Scaling)
		}
	}
}
