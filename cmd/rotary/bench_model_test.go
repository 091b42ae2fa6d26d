package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestBenchModel: bench --model PRESET and --config C.json time the model's shape (the model
// column names it), refuse what cannot take one before measuring, and a --png that cannot be
// written fails before anything is run.
func TestBenchModel(t *testing.T) {
	dir := t.TempDir()
	one := []string{"bench", "--json", "--quiet", "--backend", "native", "--dtype", "F32", "--tokens", "2", "--time", "1ms"}
	for _, c := range []struct {
		args  []string
		model string
		ops   []string
	}{
		{[]string{"--model", "gpt-j-6b"}, "gpt-j-6b", []string{"rotary_embedding"}},
		{[]string{"--model", "qwen2.5-vl-7b"}, "qwen2.5-vl-7b", []string{"mrope"}},
		{[]string{"--config", presetConfig(t, dir, "phi-2"), "--op", "npu_rotary_mul,rotary_embedding_gathered"}, "phi", []string{"apply_rotary_emb", "rotary_embedding_gathered"}},
		// A preset that is also a built-in shape's name is the preset.
		{[]string{"--model", "qwen3-8b", "--op", "rotary_embedding"}, "qwen3-8b", []string{"rotary_embedding"}},
		// An MLA preset's kv_lora_rank gives kv_rmsnorm_rope_cache its shape.
		{[]string{"--model", "deepseek-v3", "--op", "npu_kv_rmsnorm_rope_cache"}, "deepseek-v3", []string{"kv_rmsnorm_rope_cache"}},
		// Llama 4's attention temperature tuning gives query_scale its rule.
		{[]string{"--config", writeFile(t, dir, "llama4.json", []byte(noRoPEConfigs[0].cfg)), "--op", "query_scale"}, "llama4_text", []string{"query_scale"}},
		// Built-in shapes as before.
		{[]string{"--model", "llama-3-8b", "--op", "rotary_embedding"}, "llama-3-8b", []string{"rotary_embedding"}},
	} {
		args := append(append([]string{}, one...), c.args...)
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", c.args, code, stderr)
			continue
		}
		var got []string
		for _, o := range jsonLines(t, stdout) {
			got = append(got, o["op"].(string))
			if o["model"] != c.model {
				t.Errorf("%v: model %v, want %s", c.args, o["model"], c.model)
			}
		}
		if !slices.Equal(got, c.ops) {
			t.Errorf("%v: timed %v, want %v", c.args, got, c.ops)
		}
	}
	png := filepath.Join(dir, "no-such-dir", "b.png")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--model", "gpt-j-6b", "--op", "kv_rmsnorm_rope_cache"}, "kv_rmsnorm_rope_cache"},
		{[]string{"--model", "gpt-j-6b", "--op", "mrope"}, "mrope"},
		{[]string{"--model", "gpt-j-6b", "--op", "query_scale"}, "query_scale"},
		{[]string{"--model", "gpt-j-6b", "--config", presetConfig(t, dir, "phi-2")}, "--config"},
		{[]string{"--model", "gpt-j-6b", "--png", png}, "--png"},
		{[]string{"--png", png, "--op", "rotary_embedding"}, "--png"},
		{[]string{"--png", dir, "--op", "rotary_embedding"}, "--png"},
	} {
		wantUsageLine(t, append(append([]string{}, one...), c.args...), c.want)
	}
	if fileExists(filepath.Dir(png)) {
		t.Errorf("a refused --png left %s", filepath.Dir(png))
	}
	// A good --png is written after the run.
	out := filepath.Join(dir, "b.png")
	if code, _, stderr := runCLI(t, append(append([]string{}, one...), "--model", "gpt-j-6b", "--png", out)...); code != 0 || !fileExists(out) {
		t.Errorf("--png %s: exit %d %s, written %v", out, code, stderr, fileExists(out))
	}
}

// TestBenchUnknownModel: a --model that is neither a preset nor built-in shapes is refused with
// all three things --model and --config accept, not just the built-in shapes' names; a preset
// inside a list of shapes is told that a preset is timed alone.
func TestBenchUnknownModel(t *testing.T) {
	one := []string{"bench", "--quiet", "--backend", "native", "--dtype", "F32", "--tokens", "2", "--time", "1ms"}
	for _, c := range []struct {
		model string
		want  []string
	}{
		{"nosuch", []string{`--model "nosuch"`, "preset", "'rotary presets'", "--config", "llama-3-8b"}},
		{"nosuch,llama-3-8b", []string{`--model "nosuch"`, "preset", "'rotary presets'", "--config", "llama-3-8b"}},
		{"gpt-j-6b,llama-3-8b", []string{`--model "gpt-j-6b"`, "alone", "llama-3-8b"}},
	} {
		args := append(append([]string{}, one...), "--model", c.model)
		for _, w := range c.want {
			wantUsageLine(t, args, w)
		}
	}
}

// TestBenchTableColumns: the table's columns are as wide as their longest entry, so ops such
// as apply_rotary_emb_thd_backward and models such as qwen2-vl-vision or a preset's name do not
// push the rest of their row out of line: the name columns start, and the figures end, where
// the header's do.
func TestBenchTableColumns(t *testing.T) {
	one := []string{"bench", "--quiet", "--backend", "native", "--dtype", "F32", "--tokens", "2", "--time", "1ms"}
	for _, args := range [][]string{
		{"--op", "apply_rotary_emb_backward,rotary_embedding_gathered,vision_rope_2d,apply_rotary_emb_thd_backward"},
		{"--model", "phi-3-mini-128k", "--op", "apply_rotary_emb_thd_backward,rotary_embedding"},
	} {
		code, stdout, stderr := runCLI(t, append(append([]string{}, one...), args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		lines := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
		head := fieldSpans(lines[0])
		if len(lines) < 3 || len(head) != 12 {
			t.Fatalf("%v: want a 12-column header and rows, got %q", args, stdout)
		}
		for _, row := range lines[1:] {
			got := fieldSpans(row)
			if len(got) != len(head) {
				t.Errorf("%v: row %q has %d columns, want %d", args, row, len(got), len(head))
				continue
			}
			for i := range head {
				// op, backend, dtype and model are left-aligned; the figures right-aligned.
				if i < 4 && got[i][0] != head[i][0] || i >= 4 && got[i][1] != head[i][1] {
					t.Errorf("%v: column %d of %q is out of line with the header %q", args, i, row, lines[0])
				}
			}
		}
	}
}

// fieldSpans are the [start, end) byte offsets of the space-separated fields of line.
func fieldSpans(line string) [][2]int {
	var spans [][2]int
	for i := 0; i < len(line); {
		if line[i] == ' ' {
			i++
			continue
		}
		j := i
		for j < len(line) && line[j] != ' ' {
			j++
		}
		spans = append(spans, [2]int{i, j})
		i = j
	}
	return spans
}

// TestBenchDefaultBackend: a run without --backend times the fast backend alone; the reference
// runs when asked, by name or with all.
func TestBenchDefaultBackend(t *testing.T) {
	one := []string{"bench", "--json", "--quiet", "--op", "rotary_embedding", "--model", "llama-3-8b", "--dtype", "F32", "--tokens", "2", "--time", "1ms"}
	for _, c := range []struct {
		extra []string
		want  []string
	}{
		{nil, []string{"cpu"}},
		{[]string{"--backend", "native"}, []string{"native"}},
		{[]string{"--backend", "all"}, []string{"native", "cpu"}},
	} {
		code, stdout, stderr := runCLI(t, append(append([]string{}, one...), c.extra...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.extra, code, stderr)
		}
		var got []string
		for _, o := range jsonLines(t, stdout) {
			if b := o["backend"].(string); !slices.Contains(got, b) {
				got = append(got, b)
			}
		}
		for _, b := range c.want {
			if !slices.Contains(got, b) {
				t.Errorf("bench %v: backends %v, want %v", c.extra, got, c.want)
			}
		}
		if c.extra == nil && len(got) != 1 {
			t.Errorf("bench without --backend: backends %v, want cpu alone", got)
		}
	}
}

// TestBenchHelpColumns: bench -h says what the table's less obvious columns mean.
func TestBenchHelpColumns(t *testing.T) {
	code, stdout, _ := runCLI(t, "bench", "-h")
	if code != 0 {
		t.Fatalf("bench -h: exit %d", code)
	}
	for _, want := range []string{"limit_ratio", "t(limit) / t(op)", "ratio", "t(copy) / t(op)", "thr", "threads", "--backend all"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("bench -h lacks %q:\n%s", want, stdout)
		}
	}
}

// TestBenchHeads: --heads and --kv-heads time a model's shape with other head counts (a shard,
// MLA's one k_pe head): the bytes moved follow them; bad counts and built-in shapes are refused.
func TestBenchHeads(t *testing.T) {
	one := []string{"bench", "--json", "--quiet", "--model", "llama-3.1-8b", "--op", "rotary_embedding", "--dtype", "F32", "--tokens", "4", "--time", "1ms"}
	rate := func(extra ...string) float64 {
		code, stdout, stderr := runCLI(t, append(append([]string{}, one...), extra...)...)
		if code != 0 {
			t.Fatalf("bench %v: exit %d: %s", extra, code, stderr)
		}
		o := jsonLines(t, stdout)[0]
		// bytes per call = gbps · ns_per_call
		return o["gbps"].(float64) * o["ns_per_call"].(float64)
	}
	full, shard := rate(), rate("--heads", "8", "--kv-heads", "2")
	// q and k in place (32+8 heads vs 8+2) plus the cos/sin rows, which do not change.
	if !(shard < full/3 && shard > full/5) {
		t.Errorf("bench --heads 8 --kv-heads 2 moves %.0f bytes per call, the full model %.0f: want about a quarter", shard, full)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--heads", "0"}, "--heads 0"},
		{[]string{"--kv-heads", "5000"}, "--kv-heads 5000"},
		{[]string{"--model", "llama-3-8b", "--heads", "8"}, "built-in shapes"},
	} {
		code, _, stderr := runCLI(t, append(append([]string{}, one...), c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("bench %v: exit %d, %q: want 2 naming %q", c.args, code, stderr, c.want)
		}
	}
}
