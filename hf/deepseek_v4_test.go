package hf

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/rotary-go/rotary"
)

// TestDeepseekV4: DeepseekV4Config.__post_init__ and DeepseekV4RotaryEmbedding
// (transformers models/deepseek_v4/, mirror decba1d): the spec is each head's 64-dim rope
// slice (head_dim 512 × partial_rotary_factor 64/512) with interleaved pairs; sliding layers
// rotate with the "main" RoPE (rope_theta, default), the compressed layers with the
// "compress" RoPE (compress_rope_theta, the config's YaRN, attention_factor 1); layer types
// from layer_types, else compress_ratios (0/4/128), else two HCA layers then CSA/HCA.
func TestDeepseekV4(t *testing.T) {
	const dims = `"model_type": "deepseek_v4", "architectures": ["DeepseekV4ForCausalLM"], "hidden_size": 4096,
		"num_attention_heads": 64, "num_key_value_heads": 1, "head_dim": 512, "max_position_embeddings": 1048576`
	const yarn = `{"type": "yarn", "factor": 16, "original_max_position_embeddings": 65536, "beta_fast": 32, "beta_slow": 1}`
	type kind struct {
		base    float64
		scaling rotary.ScalingType
	}
	main, compress := kind{10000, rotary.ScalingDefault}, kind{160000, rotary.ScalingYaRN}
	for _, c := range []struct {
		name, cfg string
		want      []kind
	}{
		{"legacy compress_ratios, one past the layers", `{` + dims + `, "num_hidden_layers": 4, "qk_rope_head_dim": 64, "rope_theta": 10000,
			"compress_rope_theta": 160000, "compress_ratios": [0, 0, 4, 128, 0], "rope_scaling": ` + yarn + `}`,
			[]kind{main, main, compress, compress}},
		{"nested rope_parameters and layer_types, as transformers main saves them; the entries' thetas win", `{` + dims + `, "num_hidden_layers": 3, "partial_rotary_factor": 0.125, "rope_theta": 5000,
			"layer_types": ["sliding_attention", "compressed_sparse_attention", "heavily_compressed_attention"],
			"rope_parameters": {"main": {"rope_type": "default", "rope_theta": 10000, "partial_rotary_factor": 0.125},
			"compress": {"rope_type": "yarn", "factor": 16, "original_max_position_embeddings": 65536, "beta_fast": 32, "beta_slow": 1,
			"rope_theta": 160000, "partial_rotary_factor": 0.125, "attention_factor": 1.0}}}`,
			[]kind{main, compress, compress}},
		{"default layer pattern and thetas", `{` + dims + `, "num_hidden_layers": 5, "rope_scaling": ` + yarn + `}`,
			[]kind{compress, compress, compress, compress, compress}},
	} {
		m := mustParse(t, c.cfg)
		if m.NumLayers != len(c.want) || m.Spec.HeadSize != 64 || m.Spec.RotaryDim != 64 || m.Spec.Style != rotary.GPTJ {
			t.Errorf("%s: %d layers, head %d rotary %d style %v: want %d layers, 64, 64, gptj", c.name, m.NumLayers, m.Spec.HeadSize, m.Spec.RotaryDim, m.Spec.Style, len(c.want))
		}
		for l, w := range c.want {
			s, err := m.Spec.ForLayer(l)
			if err != nil {
				t.Fatalf("%s: ForLayer(%d): %v", c.name, l, err)
			}
			if s.Base != w.base || s.Scaling.Type != w.scaling || s.HeadSize != 64 || s.RotaryDim != 64 || s.Style != rotary.GPTJ {
				t.Errorf("%s: layer %d: base %v %s head %d rotary %d: want %v %s over 64 dims", c.name, l, s.Base, s.Scaling.Type, s.HeadSize, s.RotaryDim, w.base, w.scaling)
				continue
			}
			inv, att := s.Frequencies(-1)
			if att != 1 {
				t.Errorf("%s: layer %d: attention factor %v, want 1 (attention_factor 1 for the compress YaRN)", c.name, l, att)
			}
			if w.scaling == rotary.ScalingYaRN {
				if sc := s.Scaling; sc.Factor != 16 || sc.OriginalMaxPositions != 65536 {
					t.Errorf("%s: layer %d: yarn %+v, want factor 16 over 65536", c.name, l, sc)
				}
				continue
			}
			for i, f := range inv { // DeepseekV4RotaryEmbedding.compute_default_rope_parameters over dim 64
				if want := 1 / math.Pow(w.base, float64(2*i)/64); math.Abs(f-want) > 1e-15*want {
					t.Fatalf("%s: layer %d: inv_freq[%d] = %v, want %v", c.name, l, i, f, want)
				}
			}
		}
		if !hasNote(m, "last 64 of 512 dims") {
			t.Errorf("%s: notes %q lack where the rope slice lies", c.name, m.Notes)
		}
		// DeepseekV4Indexer.forward: the compress RoPE on the last 64 of index_head_dim (128 by
		// default) for the indexer's queries and compressed keys.
		if !hasNote(m, "lightning indexer rotates the last 64 of its 128 dims with the compressed layers' RoPE") {
			t.Errorf("%s: notes %q lack the indexer's slice", c.name, m.Notes)
		}
	}
	for _, c := range []struct{ name, cfg, want string }{
		{"unknown compress ratio", `{` + dims + `, "num_hidden_layers": 2, "compress_ratios": [0, 8]}`, "compress_ratios[1]: 8"},
		{"too few compress ratios", `{` + dims + `, "num_hidden_layers": 3, "compress_ratios": [0, 4]}`, "compress_ratios: 2 entries"},
		{"partial above 1", `{` + dims + `, "num_hidden_layers": 2, "partial_rotary_factor": 1.5}`, "partial_rotary_factor: 1.5"},
	} {
		_, err := Parse([]byte(c.cfg))
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrConfig naming %q", c.name, err, c.want)
		}
	}
}
