package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/check"
)

const unknownConfig = `{"model_type": "acme_lm", "hidden_size": 2048, "num_attention_heads": 16, "num_key_value_heads": 4,
	"num_hidden_layers": 24, "max_position_embeddings": 8192, "rope_theta": 500000}`

// TestStyleFlag: a model_type rotary does not know is read as NeoX with the assumption printed;
// --style names the pairing on every command that reads a config.
func TestStyleFlag(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "config.json", []byte(unknownConfig))

	code, out, errOut := runCLI(t, "inspect", cfg)
	if code != 0 || !strings.Contains(out, "neox (assumed") || !strings.Contains(out, `"acme_lm" is not a known family`) {
		t.Fatalf("inspect unknown: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = runCLI(t, "inspect", "--json", cfg)
	var r check.InspectReport
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil || !r.StyleAssumed || r.Style != "neox" {
		t.Errorf("inspect --json unknown: exit %d %+v", code, r)
	}
	code, out, _ = runCLI(t, "inspect", "--style", "gptj", "--json", cfg)
	r = check.InspectReport{}
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil || r.StyleAssumed || r.Style != "gptj" {
		t.Errorf("inspect --style gptj: exit %d %+v", code, r)
	}
	code, out, _ = runCLI(t, "inspect", "--style", "gptj", "--model", "llama-3.2-1b")
	if code != 0 || !strings.Contains(out, "gptj") || !strings.Contains(out, "llama family") {
		t.Errorf("inspect --style gptj on a preset: exit %d\n%s", code, out)
	}
	if code, _, errOut := runCLI(t, "inspect", "--style", "half", cfg); code != 2 || !strings.Contains(errOut, "--style") {
		t.Errorf("--style half: exit %d, stderr %q", code, errOut)
	}
	if code, _, errOut := runCLI(t, "cache", "--config", cfg, "--style", "gptj", "--positions", "4", "--out", dir+"/cache.safetensors"); code != 0 {
		t.Errorf("cache --style: exit %d, %s", code, errOut)
	}

	// check: the assumption is a warning (exit 0); --style silences it.
	code, out, _ = runCLI(t, "check", "--config", cfg)
	if code != 0 || !strings.Contains(out, "warning [model-type]") {
		t.Errorf("check unknown: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "check", "--config", cfg, "--style", "neox")
	if code != 0 || !strings.Contains(out, "ok: no contract problems found") {
		t.Errorf("check --style neox: exit %d\n%s", code, out)
	}
	if code, _, errOut := runCLI(t, "check", "--config", cfg, "--style", "x"); code != 2 || !strings.Contains(errOut, "--style") {
		t.Errorf("check --style x: exit %d, %q", code, errOut)
	}
}

// TestNoRoPEModel: a model without RoPE is bad input for the commands that compute it and an
// error finding for check, naming what the model uses.
func TestNoRoPEModel(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "config.json", []byte(`{"model_type": "bloom", "hidden_size": 1024, "n_head": 16}`))
	code, _, errOut := runCLI(t, "inspect", cfg)
	if code != 2 || !strings.Contains(errOut, "no rotary position embedding") || !strings.Contains(errOut, "ALiBi") {
		t.Errorf("inspect bloom: exit %d, %q", code, errOut)
	}
	code, out, _ := runCLI(t, "check", "--config", cfg)
	if code != 1 || !strings.Contains(out, "[no-rope]") {
		t.Errorf("check bloom: exit %d\n%s", code, out)
	}
}

// TestInspectNewFamilies: rotary inspect reads a config of each family added for current models.
func TestInspectNewFamilies(t *testing.T) {
	const gen = `"hidden_size": 2048, "num_attention_heads": 16, "num_key_value_heads": 4, "num_hidden_layers": 4, "max_position_embeddings": 32768, "rope_theta": 1000000`
	configs := map[string]string{
		"granite":          `{"model_type": "granite", ` + gen + `}`,
		"granitemoe":       `{"model_type": "granitemoe", ` + gen + `}`,
		"granitemoeshared": `{"model_type": "granitemoeshared", ` + gen + `}`,
		"granitemoehybrid": `{"model_type": "granitemoehybrid", "position_embedding_type": "rope", ` + gen + `}`,
		"bamba":            `{"model_type": "bamba", ` + gen + `}`,
		"qwen3_next":       `{"model_type": "qwen3_next", ` + gen + `}`,
		"qwen3_5":          `{"model_type": "qwen3_5", "text_config": {"model_type": "qwen3_5_text", ` + gen + `}}`,
		"qwen3_5_moe":      `{"model_type": "qwen3_5_moe", "text_config": {"model_type": "qwen3_5_moe_text", ` + gen + `}}`,
		"ministral":        `{"model_type": "ministral", ` + gen + `}`,
		"mistral3":         `{"model_type": "mistral3", "text_config": {"model_type": "ministral3", ` + gen + `}}`,
		"phimoe":           `{"model_type": "phimoe", ` + gen + `}`,
		"minimax":          `{"model_type": "minimax", "rotary_dim": 64, ` + gen + `}`,
		"minimax_m2":       `{"model_type": "minimax_m2", "head_dim": 128, "rotary_dim": 64, ` + gen + `}`,
		"glm4v":            `{"model_type": "glm4v", "text_config": {"model_type": "glm4v_text", "rope_scaling": {"type": "default", "mrope_section": [8, 12, 12]}, ` + gen + `}}`,
		"glm4v_moe":        `{"model_type": "glm4v_moe", "text_config": {"model_type": "glm4v_moe_text", "rope_scaling": {"rope_type": "default", "mrope_section": [8, 12, 12]}, ` + gen + `}}`,
		"ernie4_5":         `{"model_type": "ernie4_5", ` + gen + `}`,
		"ernie4_5_moe":     `{"model_type": "ernie4_5_moe", ` + gen + `}`,
		"hunyuan_v1_dense": `{"model_type": "hunyuan_v1_dense", "rope_scaling": {"type": "dynamic", "alpha": 1000.0}, ` + gen + `}`,
		"hunyuan_v1_moe":   `{"model_type": "hunyuan_v1_moe", ` + gen + `}`,
		"seed_oss":         `{"model_type": "seed_oss", ` + gen + `}`,
		"apertus":          `{"model_type": "apertus", ` + gen + `}`,
		"nemotron":         `{"model_type": "nemotron", ` + gen + `}`,
		"internlm3":        `{"model_type": "internlm3", ` + gen + `}`,
	}
	dir := t.TempDir()
	for name, cfg := range configs {
		path := writeFile(t, dir, name+".json", []byte(cfg))
		code, out, errOut := runCLI(t, "inspect", path)
		if code != 0 || !strings.Contains(out, "rotary dim:") || strings.Contains(out, "assumed") {
			t.Errorf("inspect %s: exit %d\n%s%s", name, code, out, errOut)
		}
	}
}
