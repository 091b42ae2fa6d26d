package hf

import (
	"slices"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/rope"
)

// TestClassRules: the config classes that rewrite or ignore RoPE keys are read as they do,
// with a note, instead of taking the keys at face value.
func TestClassRules(t *testing.T) {
	hasNote := func(m *Model, s string) bool {
		return slices.ContainsFunc(m.Notes, func(n string) bool { return strings.Contains(n, s) })
	}
	// Phi3Config rewrites rope type su and yarn to longrope.
	const phi3 = `{"model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 32, "max_position_embeddings": 131072,
		"original_max_position_embeddings": 4096, "rope_scaling": {"type": "yarn", "short_factor": %s, "long_factor": %s}}`
	ones := "[" + strings.TrimSuffix(strings.Repeat("1.0,", 48), ",") + "]"
	m := mustParse(t, strings.NewReplacer("%s", ones).Replace(phi3))
	if m.Spec.Scaling.Type != rope.ScalingLongRoPE || !hasNote(m, "Phi3Config") {
		t.Errorf("phi3 type yarn: scaling %v notes %q, want longrope with a note", m.Spec.Scaling.Type, m.Notes)
	}
	// GPTNeoXConfig reads rotary_emb_base and rotary_pct, not rope_theta or partial_rotary_factor.
	m = mustParse(t, `{"model_type": "gpt_neox", "hidden_size": 6144, "num_attention_heads": 64, "rope_theta": 500000, "partial_rotary_factor": 0.5}`)
	if m.Spec.Base != 10000 || m.Spec.RotaryDim != 24 || !hasNote(m, "GPTNeoXConfig") {
		t.Errorf("gpt_neox with rope_theta: base %v rotary %d notes %q, want 10000 and 24 (rotary_pct 0.25)", m.Spec.Base, m.Spec.RotaryDim, m.Notes)
	}
	m = mustParse(t, `{"model_type": "gpt_neox", "hidden_size": 6144, "num_attention_heads": 64, "rotary_emb_base": 20000, "rotary_pct": 0.5}`)
	if m.Spec.Base != 20000 || m.Spec.RotaryDim != 48 {
		t.Errorf("gpt_neox with its own keys: base %v rotary %d", m.Spec.Base, m.Spec.RotaryDim)
	}
	// BambaConfig overwrites a top-level partial_rotary_factor with 0.5.
	m = mustParse(t, `{"model_type": "bamba", "hidden_size": 4096, "num_attention_heads": 32, "partial_rotary_factor": 0.25}`)
	if m.Spec.RotaryDim != 64 || !hasNote(m, "BambaConfig") {
		t.Errorf("bamba partial 0.25: rotary %d notes %q, want 64 (BambaConfig's 0.5)", m.Spec.RotaryDim, m.Notes)
	}
}
