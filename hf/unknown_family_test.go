package hf

import (
	"errors"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/rope"
)

// TestUnknownFamilyReadsTheConfig: a model_type hf does not know is read for what its config
// says: MLA keys mean only the qk_rope_head_dim part rotates, paired GPT-J-wise as every MLA
// family is (assumed, and said); keys that switch RoPE off mean no RoPE.
func TestUnknownFamilyReadsTheConfig(t *testing.T) {
	const mla = `{"model_type": "acme_mla", "hidden_size": 7168, "num_attention_heads": 128, "rope_theta": 10000,
		"kv_lora_rank": 512, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128%s}`
	m, err := Parse([]byte(strings.Replace(mla, "%s", "", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if s := m.Spec; s.HeadSize != 64 || s.RotaryDim != 64 || s.Style != rope.GPTJ || !m.StyleAssumed {
		t.Errorf("unknown MLA: head %d rotary %d style %v assumed %v: want the 64-wide rope part, gptj, assumed", s.HeadSize, s.RotaryDim, s.Style, m.StyleAssumed)
	}
	if a := m.Assumption(); !strings.Contains(a, "gptj") || !strings.Contains(a, "--style neox") || !strings.Contains(a, "MLA") {
		t.Errorf("Assumption() = %q: want the assumed gptj pairing, the MLA reason and --style neox", a)
	}
	m, err = Parse([]byte(strings.Replace(mla, "%s", `, "rope_interleave": false`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if m.Spec.Style != rope.NeoX || m.StyleAssumed || m.Assumption() != "" {
		t.Errorf("unknown MLA with rope_interleave false: style %v assumed %v: want neox as the config says", m.Spec.Style, m.StyleAssumed)
	}
	m, err = Parse([]byte(`{"model_type": "acme_lm", "hidden_size": 2048, "num_attention_heads": 16, "rope_theta": 10000}`))
	if err != nil {
		t.Fatal(err)
	}
	if a := m.Assumption(); !strings.Contains(a, "neox") || !strings.Contains(a, "--style gptj") {
		t.Errorf("unknown decoder: Assumption() = %q", a)
	}
	for name, cfg := range map[string]string{
		"qk_rope_head_dim 0":      `{"model_type": "acme_mla", "hidden_size": 2048, "num_attention_heads": 16, "rope_theta": 10000, "kv_lora_rank": 512, "qk_rope_head_dim": 0}`,
		"use_rope false":          `{"model_type": "acme_lm", "hidden_size": 2048, "num_attention_heads": 16, "rope_theta": 10000, "use_rope": false}`,
		"absolute positions":      `{"model_type": "acme_lm", "hidden_size": 2048, "num_attention_heads": 16, "rope_theta": 10000, "position_embedding_type": "absolute"}`,
		"no rope keys but NoPE":   `{"model_type": "acme_lm", "hidden_size": 2048, "num_attention_heads": 16, "position_embedding_type": "nope"}`,
		"nested qk_rope_head_dim": `{"model_type": "acme_vl", "text_config": {"model_type": "acme_text", "hidden_size": 2048, "num_attention_heads": 16, "rope_theta": 10000, "qk_rope_head_dim": 0}}`,
	} {
		_, err := Parse([]byte(cfg))
		if !errors.Is(err, ErrNoRoPE) || !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v, want ErrNoRoPE", name, err)
		}
	}
	// position_embedding_type rope (or rotary) is RoPE.
	for _, v := range []string{"rope", "rotary"} {
		if _, err := Parse([]byte(`{"model_type": "acme_lm", "hidden_size": 2048, "num_attention_heads": 16, "rope_theta": 10000, "position_embedding_type": "` + v + `"}`)); err != nil {
			t.Errorf("position_embedding_type %s: %v", v, err)
		}
	}
}
