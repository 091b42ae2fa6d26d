package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/explain"
	"github.com/rotary-go/rotary/golden"
	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// TestVerifyExplains: a candidate computed with a porting mistake (here: rotary golden itself,
// run with the mistake's reading of the model) is named by verify, with the fix, in text and in
// --json; --explain=false leaves it out.
func TestVerifyExplains(t *testing.T) {
	dir := t.TempDir()
	golden := filepath.Join(dir, "golden.safetensors")
	common := []string{"--tokens", "6", "--dtype", "BF16"}
	goldenRun(t, append(common, "--model", "llama-3.1-8b", "--positions", "range:100", "--out", golden)...)

	// The same config without its llama3 rope_scaling.
	js, err := hf.PresetJSON("llama-3.1-8b")
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(js, &cfg); err != nil {
		t.Fatal(err)
	}
	delete(cfg, "rope_scaling")
	noScaling := filepath.Join(dir, "config.json")
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(noScaling, b, 0o644); err != nil {
		t.Fatal(err)
	}
	// Each candidate is rotary golden under a wrong reading (args) of the golden's (golden;
	// nil: Llama 3.1 at positions 100..105).
	for i, c := range []struct {
		mistake, line string
		golden, args  []string
	}{
		{"pairing", "explained by: the other pairing: GPT-J's (2i, 2i+1) where the op pairs NeoX's (i, i+d/2)", nil, []string{"--model", "llama-3.1-8b", "--style", "gptj", "--positions", "range:100"}},
		{"positions_from_zero", "explained by: positions from 0: the cache offset 100 left out", nil, []string{"--model", "llama-3.1-8b", "--positions", "range:0"}},
		{"positions_plus_one", "explained by: positions one too far (p+1)", nil, []string{"--model", "llama-3.1-8b", "--positions", "range:101"}},
		// The scaling matters only past its low-frequency wavelength.
		{"scaling_missing", "explained by: the llama3 scaling not applied (plain RoPE at base 500000)",
			[]string{"--model", "llama-3.1-8b", "--positions", "range:9000"}, []string{"--config", noScaling, "--positions", "range:9000"}},
		{"positions_minus_one", "explained by: positions one short (p−1)",
			[]string{"--model", "qwen2-vl-7b", "--op", "mrope", "--positions", "range:30"}, []string{"--model", "qwen2-vl-7b", "--op", "mrope", "--positions", "range:29"}},
		{"positions_plus_one", "explained by: positions one too far (p+1)",
			[]string{"--model", "qwen3-8b", "--op", "qk_rmsnorm_rope", "--positions", "range:40"}, []string{"--model", "qwen3-8b", "--op", "qk_rmsnorm_rope", "--positions", "range:41"}},
		{"positions_plus_one", "explained by: positions one too far (p+1)", // Hugging Face's [B,H,S,D]
			[]string{"--model", "llama-3.1-8b", "--layout", "BNSD", "--positions", "range:100"}, []string{"--model", "llama-3.1-8b", "--layout", "BNSD", "--positions", "range:101"}},
		{"pairing_and_cos_sin_layout", "explained by: the other pairing throughout: GPT-J's (2i, 2i+1), with cos and sin laid out for it, where the op pairs NeoX's (i, i+d/2)",
			[]string{"--model", "llama-3.1-8b", "--op", "apply_rotary_emb"}, []string{"--model", "llama-3.1-8b", "--op", "apply_rotary_emb", "--rotary-mode", "interleave"}},
		{"pairing", "explained by: the other pairing: GPT-J's (2i, 2i+1) where the op pairs NeoX's (i, i+d/2)",
			[]string{"--model", "qwen2-vl-7b", "--op", "vision_rope_2d"}, []string{"--model", "qwen2-vl-7b", "--op", "vision_rope_2d", "--rotary-mode", "interleave"}},
		{"positions_minus_one", "explained by: positions one short (p−1)",
			[]string{"--model", "llama-4-scout-17b-16e", "--op", "query_scale", "--layer", "3", "--positions", "range:16380"},
			[]string{"--model", "llama-4-scout-17b-16e", "--op", "query_scale", "--layer", "3", "--positions", "range:16379"}},
		{"start_positions_ignored", "explained by: start_positions left out: every sequence rotated from position 0",
			[]string{"--model", "llama-3.1-8b", "--op", "apply_rotary_emb_thd", "--cp-size", "2", "--cp-rank", "1", "--positions", "range:30"},
			[]string{"--model", "llama-3.1-8b", "--op", "apply_rotary_emb_thd", "--cp-size", "2", "--cp-rank", "1", "--positions", "range:0"}},
		{"pairing_and_cos_sin_layout", "explained by: the other pairing throughout: GPT-J's (2i, 2i+1), with cos and sin laid out for it, where the op pairs NeoX's (i, i+d/2)",
			[]string{"--model", "llama-3.1-8b", "--op", "apply_rotary_emb_backward"}, []string{"--model", "llama-3.1-8b", "--op", "apply_rotary_emb_backward", "--rotary-mode", "interleave"}},
	} {
		t.Run(fmt.Sprint(i, " ", c.mistake), func(t *testing.T) {
			g := golden
			if c.golden != nil {
				g = filepath.Join(dir, fmt.Sprint("golden", i, ".safetensors"))
				goldenRun(t, append(append(common, c.golden...), "--out", g)...)
			}
			cand := filepath.Join(dir, fmt.Sprint("cand", i, ".safetensors"))
			goldenRun(t, append(append(common, c.args...), "--out", cand)...)
			code, out, stderr := runCLI(t, "verify", g, cand)
			if code != 1 || !strings.Contains(out, c.line+" (") || !strings.Contains(out, "  fix: ") {
				t.Fatalf("exit %d, want 1 and %q:\n%s%s", code, c.line, out, stderr)
			}
			op := "rotary_embedding"
			if i := slices.Index(c.golden, "--op"); i >= 0 {
				op = c.golden[i+1]
			}
			code, out, _ = runCLI(t, "verify", "--json", g, cand)
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				var row struct {
					Name      string `json:"name"`
					Over      int    `json:"over_tolerance"`
					Explained []struct {
						Mistake            string
						Failing, Explained int
						Residual           int
					} `json:"explained_by"`
				}
				if err := json.Unmarshal([]byte(l), &row); err != nil {
					t.Fatal(err)
				}
				if row.Over == 0 || !explain.ReadsOutput(op, row.Name) {
					if len(row.Explained) > 0 {
						t.Errorf("--json: a row explain does not read, or that passes, has explained_by: %s", l)
					}
					continue
				}
				if code != 1 || len(row.Explained) == 0 || row.Explained[0].Mistake != c.mistake || row.Explained[0].Residual != 0 {
					t.Errorf("--json: exit %d row %s", code, l)
				}
			}
			if _, out, _ := runCLI(t, "verify", "--explain=false", g, cand); strings.Contains(out, "explained by") {
				t.Errorf("--explain=false:\n%s", out)
			}
		})
	}
}

// TestVerifyExplainSaysWhyNot: a golden explain cannot rebuild, or of an op it does not cover,
// gets one line saying so, and verify's verdict stands.
func TestVerifyExplainSaysWhyNot(t *testing.T) {
	dir := t.TempDir()
	b := writeBundle(t, dir) // written by hand: no apply_args
	w, _, _ := wrongAt(b.query, bH, bD, 2, 1, 5)
	cand := writeTensors(t, dir, "cand.safetensors", encodeAs(tensor.BF16, "query", []int{bT, bH, bD}, w), encodeAs(tensor.BF16, "key", []int{bT, bK, bD}, b.key))
	code, out, _ := runCLI(t, "verify", b.path, cand)
	if code != 1 || !strings.Contains(out, "explain: the golden has no apply_args (rotary golden writes them) to rebuild its RoPE from") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	golden := filepath.Join(dir, "kv.safetensors")
	goldenRun(t, "--model", "deepseek-v3", "--op", "kv_rmsnorm_rope_cache", "--tokens", "4", "--out", golden)
	bad := filepath.Join(dir, "bad.safetensors")
	goldenRun(t, "--model", "deepseek-v3", "--op", "kv_rmsnorm_rope_cache", "--tokens", "4", "--seed", "9", "--out", bad)
	code, out, _ = runCLI(t, "verify", golden, bad)
	if code != 1 || !strings.Contains(out, "explain: no known porting mistake reproduces the candidate (") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	// interleave_rope's golden with another seed: new inputs, so nothing reproduces it.
	golden, bad = filepath.Join(dir, "ir.safetensors"), filepath.Join(dir, "ir9.safetensors")
	goldenRun(t, "--model", "deepseek-v3", "--op", "interleave_rope", "--tokens", "4", "--out", golden)
	goldenRun(t, "--model", "deepseek-v3", "--op", "interleave_rope", "--tokens", "4", "--seed", "9", "--out", bad)
	code, out, _ = runCLI(t, "verify", golden, bad)
	if code != 1 || !strings.Contains(out, "explain: no known porting mistake reproduces the candidate (") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// TestVerifyExplainsKVCache: a kv_rmsnorm_rope_cache candidate that wrote every token one slot
// further on (rotary apply on the bundle with index + 1) is named.
func TestVerifyExplainsKVCache(t *testing.T) {
	dir := t.TempDir()
	g := filepath.Join(dir, "kv.safetensors")
	goldenRun(t, "--model", "deepseek-v3", "--op", "kv_rmsnorm_rope_cache", "--tokens", "4", "--out", g)
	ts, md, err := safetensors.ReadTensors(g)
	if err != nil {
		t.Fatal(err)
	}
	var files []safetensors.Tensor
	for _, x := range ts {
		if strings.HasPrefix(x.Name, golden.OutPrefix) {
			continue
		}
		if x.Name == "index" {
			for i := range x.Len() {
				x.I64[i]++
			}
		}
		f, err := safetensors.FromTensor(x.Name, x.Tensor)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	shifted := filepath.Join(dir, "shifted.safetensors")
	if err := safetensors.WriteFile(shifted, files, md); err != nil {
		t.Fatal(err)
	}
	cand := filepath.Join(dir, "cand.safetensors")
	if code, out, stderr := runCLI(t, "apply", "--in", shifted, "--out", cand); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, stderr)
	}
	code, out, _ := runCLI(t, "verify", g, cand)
	if code != 1 || !strings.Contains(out, "explained by: every token written one cache slot further on (index + 1)") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// TestVerifyExplainConfigChanged: a golden made from a config file that has since changed is
// not explained with the changed file (an explanation from another config can name the wrong
// mistake): verify says why, as apply --in refuses that file, and its verdict stands.
func TestVerifyExplainConfigChanged(t *testing.T) {
	dir := t.TempDir()
	js, err := hf.PresetJSON("llama-3.1-8b")
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "config.json")
	if err := os.WriteFile(cfg, js, 0o644); err != nil {
		t.Fatal(err)
	}
	g, cand := filepath.Join(dir, "golden.safetensors"), filepath.Join(dir, "cand.safetensors")
	common := []string{"--config", cfg, "--tokens", "6", "--dtype", "BF16"}
	goldenRun(t, append(common, "--positions", "range:100", "--out", g)...)
	goldenRun(t, append(common, "--positions", "range:101", "--out", cand)...)
	if code, out, _ := runCLI(t, "verify", g, cand); code != 1 || !strings.Contains(out, "explained by: positions one too far (p+1)") {
		t.Fatalf("the config as recorded: exit %d\n%s", code, out)
	}
	var m map[string]any
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	m["rope_theta"] = 10000.0
	edited, _ := json.Marshal(m)
	if err := os.WriteFile(cfg, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	why := "explain: --config " + cfg + ": its config's sha256 is " + golden.ConfigSum(edited) + ", the golden bundle's config_sha256 " + golden.ConfigSum(js) + " (model llama): not the config the bundle was made from"
	code, out, stderr := runCLI(t, "verify", g, cand)
	if code != 1 || !strings.Contains(out, "\n"+why+"\n") || strings.Contains(out, "explained by") {
		t.Errorf("the config edited: exit %d, want 1 and %q, nothing explained:\n%s%s", code, why, out, stderr)
	}
	code, out, stderr = runCLI(t, "verify", "--json", g, cand)
	if code != 1 || strings.Contains(out, "explained_by") || !strings.Contains(stderr, "rotary verify: "+why+"\n") {
		t.Errorf("--json: exit %d\n%s%s", code, out, stderr)
	}
}
