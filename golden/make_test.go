package golden

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/tensor"
)

// TestApplyArgsNormalized: a bundle records each parameter in the one text its flag prints
// (1e-3 as 0.001, a boolean as --name=value, after which "--name false" could not end the
// flags), the caller's and those the inputs fix, sorted.
func TestApplyArgsNormalized(t *testing.T) {
	model, err := Preset("deepseek-v3")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Make(Options{Op: "kv_rmsnorm_rope_cache", Model: model, DType: tensor.F32, Tokens: 2,
		Args: Args{"epsilon": "1e-3", "output-kv": "1", "cache-mode": "PA"}})
	if err != nil {
		t.Fatal(err)
	}
	want := `["--op","kv_rmsnorm_rope_cache","--cache-mode","PA","--epsilon","0.001","--output-kv=true"]`
	if got := b.Metadata["apply_args"]; got != want {
		t.Errorf("apply_args %s, want %s", got, want)
	}
	// Without --epsilon-qk the config's rms_norm_eps is chosen and recorded.
	js, err := hf.PresetJSON("qwen3-8b")
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(js, &cfg); err != nil {
		t.Fatal(err)
	}
	cfg["rms_norm_eps"] = 1e-6
	js, _ = json.Marshal(cfg)
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, js, 0o644); err != nil {
		t.Fatal(err)
	}
	qwen3, err := Config(path)
	if err != nil {
		t.Fatal(err)
	}
	if b, err = Make(Options{Op: "qk_rmsnorm_rope", Model: qwen3, DType: tensor.F32, Tokens: 2}); err != nil {
		t.Fatal(err)
	}
	want = `["--op","qk_rmsnorm_rope","--config","` + path + `","--layer","0","--epsilon-qk","1e-06"]`
	if got := b.Metadata["apply_args"]; got != want {
		t.Errorf("apply_args %s, want %s", got, want)
	}
	if b.Metadata["model"] != "qwen3" || b.Metadata["config"] != path {
		t.Errorf("model %q config %q, want qwen3 and %s", b.Metadata["model"], b.Metadata["config"], path)
	}
	if _, err := Make(Options{Op: "kv_rmsnorm_rope_cache", Model: model, DType: tensor.F32, Args: Args{"epsilon": "x"}}); err == nil || !strings.Contains(err.Error(), "--epsilon") {
		t.Errorf("epsilon x: %v, want an error naming --epsilon", err)
	}
	if _, err := Make(Options{Op: "rotary_embedding", Model: model, DType: tensor.F32, Args: Args{"epsilon": "1"}}); err == nil || !strings.Contains(err.Error(), "does not read it") {
		t.Errorf("rotary_embedding with --epsilon: %v, want it refused", err)
	}
}
