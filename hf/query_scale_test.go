package hf

import (
	"strings"
	"testing"

	"github.com/rotary-go/rotary/rope"
)

// TestQueryScaleBeta: llama_4_scaling_beta in rope_parameters (Ministral 3 behind Mistral 3's
// text_config; HF's get_llama_4_attn_scale in modeling_ministral3.py) is the beta rule on every
// layer, over the config's original_max_position_embeddings when it has one, else the rope
// object's.
func TestQueryScaleBeta(t *testing.T) {
	ministral3 := func(rope, extra string) string {
		return `{"model_type": "mistral3", "architectures": ["Mistral3ForConditionalGeneration"],
			"text_config": {"model_type": "ministral3", "hidden_size": 4096, "head_dim": 128, "num_attention_heads": 32,
			  "num_key_value_heads": 8, "num_hidden_layers": 34, "max_position_embeddings": 262144` + extra + `,
			  "rope_parameters": {"type": "yarn", "rope_theta": 1000000.0, "factor": 16.0, "beta_fast": 32.0, "beta_slow": 1.0,
			    "mscale": 1.0, "mscale_all_dim": 1.0` + rope + `}}}`
	}
	for _, c := range []struct {
		name, cfg string
		want      rope.QueryScaleRule
	}{
		{"ministral3", ministral3(`, "original_max_position_embeddings": 16384, "llama_4_scaling_beta": 0.1`, ""),
			rope.QueryScaleRule{Kind: rope.QueryScaleBeta, Beta: 0.1, OriginalMax: 16384}},
		{"config-level original wins", ministral3(`, "original_max_position_embeddings": 16384, "llama_4_scaling_beta": 0.1`, `, "original_max_position_embeddings": 8192`),
			rope.QueryScaleRule{Kind: rope.QueryScaleBeta, Beta: 0.1, OriginalMax: 8192}},
		{"beta 0", ministral3(`, "original_max_position_embeddings": 4096, "llama_4_scaling_beta": 0`, ""),
			rope.QueryScaleRule{Kind: rope.QueryScaleBeta, OriginalMax: 4096}},
		{"no beta", ministral3(`, "original_max_position_embeddings": 16384`, ""), rope.QueryScaleRule{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := mustParse(t, c.cfg)
			if m.Spec.QueryScale != c.want {
				t.Fatalf("QueryScale %+v, want %+v", m.Spec.QueryScale, c.want)
			}
			for _, l := range []int{0, 1, 33} {
				if r, err := m.QueryScaleAt(l); err != nil || r != c.want {
					t.Fatalf("QueryScaleAt(%d) = %+v, %v; want %+v", l, r, err, c.want)
				}
			}
			if c.want.Kind == rope.QueryScaleBeta && !notesHave(m, "op query_scale") {
				t.Errorf("notes %q: want the rule described", m.Notes)
			}
			if notesHave(m, "may not") {
				t.Errorf("notes %q: ministral3 applies the scale in Hugging Face", m.Notes)
			}
		})
	}

	// Mistral Large 3's shape: a DeepSeek-V3 text model with the scale; HF's DeepseekV3Attention
	// does not apply it, vLLM does, and a note says so.
	m := mustParse(t, `{"model_type": "deepseek_v3", "hidden_size": 7168, "num_attention_heads": 128, "num_hidden_layers": 61,
		"qk_rope_head_dim": 64, "max_position_embeddings": 294912,
		"rope_parameters": {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 36.0, "original_max_position_embeddings": 8192,
		  "beta_fast": 32.0, "beta_slow": 1.0, "mscale": 1.0, "mscale_all_dim": 1.0, "llama_4_scaling_beta": 0.1}}`)
	if want := (rope.QueryScaleRule{Kind: rope.QueryScaleBeta, Beta: 0.1, OriginalMax: 8192}); m.Spec.QueryScale != want {
		t.Errorf("deepseek_v3: QueryScale %+v, want %+v", m.Spec.QueryScale, want)
	}
	if !notesHave(m, "may not") {
		t.Errorf("deepseek_v3: notes %q: want the note that HF's modeling code may not apply it", m.Notes)
	}

	for _, c := range []struct{ name, cfg, want string }{
		{"no original", ministral3(`, "llama_4_scaling_beta": 0.1`, ""), "needs original_max_position_embeddings"},
		{"beta string", ministral3(`, "original_max_position_embeddings": 16384, "llama_4_scaling_beta": "0.1"`, ""), "text_config.rope_parameters.llama_4_scaling_beta: want a number"},
		{"beta huge", ministral3(`, "original_max_position_embeddings": 16384, "llama_4_scaling_beta": 1e300`, ""), "llama_4_scaling_beta 1e+300"},
	} {
		if _, err := Parse([]byte(c.cfg)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %q", c.name, err, c.want)
		}
	}
}

// TestQueryScaleLlama4: Llama 4's attn_temperature_tuning (HF Llama4TextAttention.forward)
// with Llama4TextConfig's defaults, on the layers without RoPE only.
func TestQueryScaleLlama4(t *testing.T) {
	llama4 := func(extra string) string {
		return `{"model_type": "llama4", "text_config": {"model_type": "llama4_text", "hidden_size": 5120, "head_dim": 128,
			"num_attention_heads": 40, "num_key_value_heads": 8, "num_hidden_layers": 8, "rope_theta": 500000.0,
			"no_rope_layers": [1, 1, 1, 0, 1, 1, 1, 0]` + extra + `}}`
	}
	defaults := rope.QueryScaleRule{Kind: rope.QueryScaleLlama4, FloorScale: 8192, AttnScale: 0.1}
	for _, c := range []struct {
		name, extra string
		want        rope.QueryScaleRule
		note        string
	}{
		{"defaults", "", defaults, "attn_temperature_tuning absent"},
		{"given", `, "attn_temperature_tuning": true, "floor_scale": 2.0, "attn_scale": 0.25`, rope.QueryScaleRule{Kind: rope.QueryScaleLlama4, FloorScale: 2, AttnScale: 0.25}, "op query_scale"},
		{"a number", `, "attn_temperature_tuning": 4, "floor_scale": 8192, "attn_scale": 0.1`, defaults, "nonzero"},
		{"off", `, "attn_temperature_tuning": false`, rope.QueryScaleRule{}, ""},
		{"zero", `, "attn_temperature_tuning": 0`, rope.QueryScaleRule{}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := mustParse(t, llama4(c.extra))
			if m.Spec.QueryScale != c.want {
				t.Fatalf("QueryScale %+v, want %+v", m.Spec.QueryScale, c.want)
			}
			if c.note != "" && !notesHave(m, c.note) {
				t.Errorf("notes %q: want %q", m.Notes, c.note)
			}
			for l := range 8 {
				want := rope.QueryScaleRule{}
				if l%4 == 3 {
					want = c.want
				}
				if r, err := m.QueryScaleAt(l); err != nil || r != want {
					t.Fatalf("QueryScaleAt(%d) = %+v, %v; want %+v", l, r, err, want)
				}
			}
			if _, err := m.QueryScaleAt(8); err == nil || !strings.Contains(err.Error(), "8 layers") {
				t.Errorf("QueryScaleAt(8): %v, want an error naming the layer count", err)
			}
		})
	}
	for _, c := range []struct{ name, extra, want string }{
		{"tuning string", `, "attn_temperature_tuning": "yes"`, "text_config.attn_temperature_tuning: want true, false or a number"},
		{"floor_scale 0", `, "floor_scale": 0`, "floor_scale 0"},
		{"floor_scale string", `, "floor_scale": "8192"`, "text_config.floor_scale: want a number"},
		{"attn_scale huge", `, "attn_scale": 1e40`, "attn_scale 1e+40"},
	} {
		if _, err := Parse([]byte(llama4(c.extra))); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %q", c.name, err, c.want)
		}
	}
	// Other families have no temperature tuning, whatever keys they carry.
	m := mustParse(t, `{"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 500000.0, "attn_temperature_tuning": true}`)
	if m.Spec.QueryScale != (rope.QueryScaleRule{}) {
		t.Errorf("llama: QueryScale %+v, want none", m.Spec.QueryScale)
	}
}

func notesHave(m *Model, s string) bool {
	for _, n := range m.Notes {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}
