package hf

import (
	"errors"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/rope"
)

// TestMRoPELayoutsRefused: multimodal models whose MRoPE orders its pairs as no rope.MRoPE
// layout does are refused with the reason, where a generic reading rotated them as Qwen-VL's.
func TestMRoPELayoutsRefused(t *testing.T) {
	text := `"hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128, "rope_theta": 16000000`
	cases := []struct{ name, cfg, want string }{
		{"openpangu rope type", `{"model_type": "acme", ` + text + `, "rope_scaling": {"rope_type": "openpangu", "mrope_section": [24, 20, 20], "mrope_interleaved": true}}`,
			"get_mrope_interleaved_id_list"},
		{"openpangu_vl wrapper", `{"model_type": "openpangu_vl", "text_config": {"model_type": "pangu_embedded", ` + text +
			`, "rope_scaling": {"rope_type": "default", "mrope_section": [24, 20, 20], "mrope_interleaved": true}}}`, "get_mrope_interleaved_id_list"},
		{"ling vl, text model_type absent", `{"model_type": "bailing_moe_v3_vl", "mrope_section": [8, 12, 12], "text_config": {"hidden_size": 2048,
			"num_attention_heads": 16, "kv_lora_rank": 512, "qk_rope_head_dim": 64, "rope_parameters": {"rope_type": "default",
			"rope_theta": 6000000, "mrope_section": [8, 12, 12]}}}`, "[t, h, w] sections to [h, w, t]"},
		{"ming", `{"model_type": "bailingmm_moe_v2_lite", ` + text + `, "rope_scaling": {"type": "default", "mrope_section": [16, 24, 24]}}`,
			"BailingMRotaryEmbedding"},
	}
	for _, c := range cases {
		m, err := Parse([]byte(c.cfg))
		if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Parse = %+v, %v: want a refusal naming %q", c.name, m, err, c.want)
		}
	}
}

// TestUnknownMRoPEAssumed: an unknown family's mrope_section is read as Qwen2-VL's or
// Qwen3-VL's layout, which config.json does not record: Assumption says so even when the
// caller named the pairing.
func TestUnknownMRoPEAssumed(t *testing.T) {
	style := rope.NeoX
	for _, c := range []struct {
		inter string
		want  string
	}{{"true", "Qwen3-VL's interleaving"}, {"false", "Qwen2-VL's chunks"}} {
		cfg := `{"model_type": "acme_vl", "text_config": {"model_type": "acme_text", "hidden_size": 4096, "num_attention_heads": 32,
			"head_dim": 128, "rope_theta": 1000000, "rope_scaling": {"type": "default", "mrope_section": [24, 20, 20], "mrope_interleaved": ` + c.inter + `}}}`
		m, err := ParseOptions{Style: &style}.Parse([]byte(cfg))
		if err != nil {
			t.Fatal(err)
		}
		if a := m.Assumption(); !strings.Contains(a, c.want) || !strings.Contains(a, "mrope_section [24 20 20]") || strings.Contains(a, "pairing assumed") {
			t.Errorf("mrope_interleaved %s: Assumption %q: want the layout %s and no pairing", c.inter, a, c.want)
		}
	}
	m, err := Parse([]byte(`{"model_type": "qwen3_vl", "text_config": {"model_type": "qwen3_vl_text", "hidden_size": 4096,
		"num_attention_heads": 32, "rope_scaling": {"type": "default", "mrope_section": [24, 20, 20], "mrope_interleaved": true}}}`))
	if err != nil || m.Assumption() != "" {
		t.Errorf("qwen3_vl: %v, Assumption %q: want none for a known family", err, m.Assumption())
	}
}
