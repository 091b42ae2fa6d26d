package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/check"
	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// deepseekV32 is the deepseek-v3.2-exp preset's config.json: DeepSeek-V3.2-Exp's RoPE and
// attention keys, the same values as the published file transformers mirrors
// (src/transformers/models/deepseek_v32/deepseek_files/config.json at
// a10b6fa874989cba1c451be928aa86ce59475d9c).
func deepseekV32(t *testing.T) []byte {
	t.Helper()
	data, err := hf.PresetJSON("deepseek-v3.2-exp")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestApplyIndexerRoPE: under --rope indexer, apply rotates dims 0..63 of each 128-wide head in
// NeoX pairs (i, i+32) with the MLA's cos/sin and leaves dims 64..127 bit for bit, as
// DeepseekV32Indexer.forward does (transformers: split [qk_rope_head_dim, rest], then
// apply_rotary_pos_emb).
func TestApplyIndexerRoPE(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "config.json", deepseekV32(t))
	m, err := hf.Parse(deepseekV32(t))
	if err != nil {
		t.Fatal(err)
	}
	mla := m.Spec
	pos := []int64{0, 1, 4097, 65535, 163839}
	const T, H, D = 5, 3, 128
	for _, d := range []tensor.DType{tensor.F32, tensor.BF16} {
		in := writeTensors(t, dir, d.String()+".in.safetensors",
			safetensors.FromInt64s("positions", []int{T}, pos),
			encodeAs(d, "query", []int{T, H, D}, randomHeads(T*H*D, 7)),
			encodeAs(d, "key", []int{T, D}, randomHeads(T*D, 8)))
		out := filepath.Join(dir, d.String()+".out.safetensors")
		if code, _, stderr := runCLI(t, "apply", "--config", cfg, "--rope", "indexer", "--in", in, "--out", out); code != 0 {
			t.Fatalf("%s: exit %d: %s", d, code, stderr)
		}
		src, got := readOut(t, in), readOut(t, out)
		for _, name := range []string{"query", "key"} {
			checkRotation(t, d.String()+" "+name, d, D, 64, false, pos, decode(t, src[name]), decode(t, got[name]), func(int64) ([]float64, float64) {
				return mla.Frequencies(int(maxOf(pos)))
			})
		}
	}

	// The default is the MLA's RoPE: a 128-wide head is not its 64-wide q_pe.
	in := writeTensors(t, dir, "wide.safetensors", safetensors.FromInt64s("positions", []int{1}, []int64{3}),
		encodeAs(tensor.F32, "query", []int{1, 1, D}, randomHeads(D, 9)))
	if code, _, _ := runCLI(t, "apply", "--config", cfg, "--in", in, "--out", filepath.Join(dir, "x.safetensors")); code == 0 {
		t.Errorf("a 128-wide head under the MLA's 64-wide spec: exit 0, want a refusal")
	}
	for _, args := range [][]string{
		{"apply", "--model", "llama-3.1-8b", "--rope", "indexer", "--in", in, "--out", filepath.Join(dir, "y.safetensors")},
		{"inspect", "--config", cfg, "--rope", "lightning"},
	} {
		if code, _, stderr := runCLI(t, args...); code != 2 || !strings.Contains(stderr, "--rope") {
			t.Errorf("%v: exit %d, stderr %q: want exit 2 naming --rope", args, code, stderr)
		}
	}
}

func TestInspectAndCacheIndexerRoPE(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "config.json", deepseekV32(t))

	code, stdout, stderr := runCLI(t, "inspect", cfg)
	if code != 0 || !strings.Contains(stdout, "indexer rope:") || !strings.Contains(stdout, "head 128, dims 0..63 rotated (neox), 64 pass-through") {
		t.Errorf("inspect: exit %d, stderr %q, stdout:\n%s\nwant an indexer rope line", code, stderr, stdout)
	}
	for _, c := range []struct {
		rope       string
		head       int
		style      string
		wantRopeIs string
	}{{"", 64, "gptj", "main"}, {"indexer", 128, "neox", "indexer"}} {
		args := []string{"inspect", "--json", cfg}
		if c.rope != "" {
			args = append(args, "--rope", c.rope)
		}
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var r check.InspectReport
		if err := json.Unmarshal([]byte(stdout), &r); err != nil {
			t.Fatal(err)
		}
		if r.Rope != c.wantRopeIs || r.HeadSize != c.head || r.RotaryDim != 64 || r.Style != c.style {
			t.Errorf("%v: rope %q head %d rotary %d style %s, want %s %d 64 %s", args, r.Rope, r.HeadSize, r.RotaryDim, r.Style, c.wantRopeIs, c.head, c.style)
		}
		if r.Indexer == nil || *r.Indexer != (check.IndexerReport{HeadSize: 128, RotaryDim: 64, Style: "neox"}) {
			t.Errorf("%v: indexer %+v", args, r.Indexer)
		}
	}
	code, stdout, _ = runCLI(t, "inspect", "--json", "--model", "llama-3.1-8b")
	if code != 0 || strings.Contains(stdout, `"indexer"`) {
		t.Errorf("llama inspect --json: exit %d, has an indexer entry:\n%s", code, stdout)
	}

	// The indexer's cos/sin table is the MLA's: the same rows, bit for bit.
	var tables [2][]byte
	for i, r := range []string{"main", "indexer"} {
		out := filepath.Join(dir, r+".safetensors")
		if code, _, stderr := runCLI(t, "cache", "--config", cfg, "--rope", r, "--positions", "64", "--out", out); code != 0 {
			t.Fatalf("cache --rope %s: exit %d: %s", r, code, stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		tables[i] = b
	}
	if !bytes.Equal(tables[0], tables[1]) {
		t.Errorf("cache --rope indexer differs from the MLA's table")
	}
}
