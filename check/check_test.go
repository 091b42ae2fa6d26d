package check_test

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/check"
	"github.com/rotary-go/rotary/hf"
	rp "github.com/rotary-go/rotary/rope"
)

// preset returns an embedded config, edited by the given functions on its decoded JSON.
func preset(t *testing.T, name string, edits ...func(top map[string]any)) []byte {
	t.Helper()
	data, err := hf.PresetJSON(name)
	if err != nil {
		t.Fatal(err)
	}
	if len(edits) == 0 {
		return data
	}
	var top map[string]any
	if err := json.Unmarshal(data, &top); err != nil {
		t.Fatal(err)
	}
	for _, e := range edits {
		e(top)
	}
	out, err := json.Marshal(top)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// rope returns the rope_scaling object of a config (text_config's for wrappers).
func rope(top map[string]any) map[string]any {
	if tc, ok := top["text_config"].(map[string]any); ok {
		top = tc
	}
	return top["rope_scaling"].(map[string]any)
}

func set(key string, v any) func(map[string]any) {
	return func(top map[string]any) { top[key] = v }
}

func setRope(key string, v any) func(map[string]any) {
	return func(top map[string]any) { rope(top)[key] = v }
}

// want is a finding a case must produce.
type want struct {
	code string
	sev  check.Severity
}

type checkCase struct {
	name   string
	config []byte
	launch check.Launch
	want   []want   // findings that must be there
	absent []string // codes that must not be there
}

func runCases(t *testing.T, cases []checkCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := check.Config(c.config, c.launch)
			for _, f := range fs {
				if f.What == "" || f.Why == "" || f.Fix == "" || f.Code == "" {
					t.Errorf("finding with an empty field: %+v", f)
				}
				if f.Severity != check.Error && f.Severity != check.Warning {
					t.Errorf("finding with severity %q: %+v", f.Severity, f)
				}
				if s := f.String(); !strings.Contains(s, f.Code) || !strings.Contains(s, f.What) {
					t.Errorf("String() %q lacks the code or what", s)
				}
			}
			for _, w := range c.want {
				found := false
				for _, f := range fs {
					if f.Code == w.code {
						found = true
						if f.Severity != w.sev {
							t.Errorf("%s: severity %s, want %s", w.code, f.Severity, w.sev)
						}
					}
				}
				if !found {
					t.Errorf("no %s finding; got %s", w.code, codes(fs))
				}
			}
			for _, a := range c.absent {
				for _, f := range fs {
					if f.Code == a {
						t.Errorf("unexpected %s finding: %s", a, f)
					}
				}
			}
			wantErr := false
			for _, w := range c.want {
				wantErr = wantErr || w.sev == check.Error
			}
			if wantErr && !check.HasErrors(fs) {
				t.Errorf("HasErrors false with error findings %s", codes(fs))
			}
		})
	}
}

func codes(fs []check.Finding) string {
	var s []string
	for _, f := range fs {
		s = append(s, fmt.Sprintf("%s(%s)", f.Code, f.Severity))
	}
	return "[" + strings.Join(s, " ") + "]"
}

// countCode is how many of fs carry code.
func countCode(fs []check.Finding, code string) int {
	n := 0
	for _, f := range fs {
		if f.Code == code {
			n++
		}
	}
	return n
}

func errorAt(code string) want   { return want{code, check.Error} }
func warningAt(code string) want { return want{code, check.Warning} }

func TestRotaryDim(t *testing.T) {
	// GPTJConfig reads rotary_dim (head size n_embd / n_head); LlamaConfig does not.
	gptjLike := func(hidden, rd int) []byte {
		return []byte(fmt.Sprintf(`{"model_type": "gptj", "n_embd": %d, "n_head": 32, "rotary_dim": %d, "n_positions": 8192}`, hidden, rd))
	}
	llama := []byte(`{"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "head_dim": 64, "rotary_dim": 128, "max_position_embeddings": 8192, "rope_theta": 500000}`)
	runCases(t, []checkCase{
		{name: "rotary_dim above head_dim", config: gptjLike(2048, 128), want: []want{errorAt("rotary-dim")}},
		{name: "partial_rotary_factor above 1", config: preset(t, "phi-2", set("partial_rotary_factor", 1.5)), want: []want{errorAt("rotary-dim")}},
		{name: "rotary_dim equal to head_dim", config: gptjLike(4096, 128), absent: []string{"rotary-dim"}},
		{name: "rotary_dim LlamaConfig does not read", config: llama, want: []want{warningAt("unread-key")}, absent: []string{"rotary-dim"}},
		{name: "partial rotary", config: preset(t, "phi-2"), absent: []string{"rotary-dim"}},
		{name: "gpt-j rotary_dim 64 of 256", config: preset(t, "gpt-j-6b"), absent: []string{"rotary-dim"}},
	})
}

// TestRotaryDimReportedOnce: the raw rotary-dim check explains the mistake, so the parse error
// hf gives for the same key must not come back as a second, generic "config" finding
// (checker.parseError means to drop it: "a parse error is not repeated").
func TestRotaryDimReportedOnce(t *testing.T) {
	data := []byte(`{"model_type": "gptj", "n_embd": 2048, "n_head": 32, "rotary_dim": 128, "n_positions": 8192}`)
	fs := check.Config(data, check.Launch{})
	if len(fs) != 1 || fs[0].Code != "rotary-dim" {
		t.Errorf("rotary_dim 128 > head_dim 64: findings %s, want only rotary-dim", codes(fs))
	}
}

func TestLongRoPEFactors(t *testing.T) {
	short := func(top map[string]any) {
		r := rope(top)
		r["short_factor"] = r["short_factor"].([]any)[:10]
	}
	long := func(top map[string]any) {
		r := rope(top)
		l := r["long_factor"].([]any)
		r["long_factor"] = append(l, l[0])
	}
	runCases(t, []checkCase{
		{name: "short_factor too short", config: preset(t, "phi-3-mini-128k", short), want: []want{errorAt("longrope-factors")}, absent: []string{"config"}},
		{name: "long_factor too long", config: preset(t, "phi-3-mini-128k", long), want: []want{errorAt("longrope-factors")}},
		{name: "published", config: preset(t, "phi-3-mini-128k"), absent: []string{"longrope-factors"}},
	})
	// Both lists wrong: one finding each.
	fs := check.Config(preset(t, "phi-3-mini-128k", short, long), check.Launch{})
	if n := countCode(fs, "longrope-factors"); n != 2 {
		t.Errorf("both factor lists wrong: %d longrope-factors findings, want 2 (%s)", n, codes(fs))
	}
}

func TestMRoPESections(t *testing.T) {
	runCases(t, []checkCase{
		{name: "sum below rotary dim / 2", config: preset(t, "qwen2-vl-7b", setRope("mrope_section", []int{16, 24, 16})), want: []want{errorAt("mrope-sections")}, absent: []string{"config"}},
		{name: "sum above rotary dim / 2", config: preset(t, "qwen3-vl-8b", setRope("mrope_section", []int{24, 24, 24})), want: []want{errorAt("mrope-sections")}},
		{name: "two sections", config: preset(t, "qwen2-vl-7b", setRope("mrope_section", []int{32, 32})), want: []want{errorAt("mrope-sections")}},
		{name: "five sections", config: preset(t, "qwen2-vl-7b", setRope("mrope_section", []int{16, 16, 16, 8, 8})), want: []want{errorAt("mrope-sections")}},
		{name: "four sections summing right", config: preset(t, "qwen2-vl-7b", setRope("mrope_section", []int{16, 16, 16, 16})), absent: []string{"mrope-sections"}},
		{name: "qwen2-vl", config: preset(t, "qwen2-vl-7b"), absent: []string{"mrope-sections"}},
		{name: "qwen2.5-vl", config: preset(t, "qwen2.5-vl-7b"), absent: []string{"mrope-sections"}},
		{name: "qwen3-vl", config: preset(t, "qwen3-vl-8b"), absent: []string{"mrope-sections"}},
	})
	// Wrong count and wrong sum: both reported.
	fs := check.Config(preset(t, "qwen2-vl-7b", setRope("mrope_section", []int{16, 16})), check.Launch{})
	if n := countCode(fs, "mrope-sections"); n != 2 {
		t.Errorf("two sections summing to 32: %d mrope-sections findings, want 2 (%s)", n, codes(fs))
	}
}

func TestMRoPECacheMode(t *testing.T) {
	four := preset(t, "qwen2-vl-7b", setRope("mrope_section", []int{16, 16, 16, 16}))
	runCases(t, []checkCase{
		{name: "4 sections with interleave", config: four, launch: check.Launch{CacheMode: "interleave"}, want: []want{errorAt("mrope-cache-mode")}},
		{name: "4 sections with default", config: four, launch: check.Launch{CacheMode: "default"}, absent: []string{"mrope-cache-mode"}},
		{name: "interleaved model with default", config: preset(t, "qwen3-vl-8b"), launch: check.Launch{CacheMode: "default"}, want: []want{errorAt("mrope-cache-mode")}},
		{name: "interleaved model with interleave", config: preset(t, "qwen3-vl-8b"), launch: check.Launch{CacheMode: "interleave", Op: "npu_mrope"}, absent: []string{"mrope-cache-mode"}},
		{name: "chunked model with interleave", config: preset(t, "qwen2-vl-7b"), launch: check.Launch{CacheMode: "interleave"}, want: []want{errorAt("mrope-cache-mode")}},
		{name: "chunked qwen2.5-vl with interleave", config: preset(t, "qwen2.5-vl-7b"), launch: check.Launch{CacheMode: "interleave"}, want: []want{errorAt("mrope-cache-mode")}},
		{name: "chunked model with default", config: preset(t, "qwen2-vl-7b"), launch: check.Launch{CacheMode: "default", Op: "npu_mrope"}, absent: []string{"mrope-cache-mode"}},
		{name: "no cache mode", config: preset(t, "qwen3-vl-8b"), absent: []string{"mrope-cache-mode"}},
		{name: "npu_mrope interleave without mrope", config: preset(t, "llama-3.1-8b"), launch: check.Launch{CacheMode: "interleave", Op: "npu_mrope"}, want: []want{errorAt("mrope-cache-mode")}},
		{name: "npu_mrope default without mrope", config: preset(t, "llama-3.1-8b"), launch: check.Launch{CacheMode: "default", Op: "npu_mrope"}, absent: []string{"mrope-cache-mode"}},
	})
}

func TestMRoPEPositionRows(t *testing.T) {
	four := preset(t, "qwen2-vl-7b", setRope("mrope_section", []int{16, 16, 16, 16}))
	runCases(t, []checkCase{
		{name: "4 rows for 3 sections", config: preset(t, "qwen2-vl-7b"), launch: check.Launch{PositionRows: 4}, want: []want{errorAt("mrope-position-rows")}},
		{name: "2 rows for 3 sections", config: preset(t, "qwen3-vl-8b"), launch: check.Launch{PositionRows: 2}, want: []want{errorAt("mrope-position-rows")}},
		{name: "3 rows for 4 sections", config: four, launch: check.Launch{PositionRows: 3}, want: []want{errorAt("mrope-position-rows")}},
		{name: "3 rows for 3 sections", config: preset(t, "qwen2-vl-7b"), launch: check.Launch{PositionRows: 3}, absent: []string{"mrope-position-rows"}},
		{name: "4 rows for 4 sections", config: four, launch: check.Launch{PositionRows: 4}, absent: []string{"mrope-position-rows"}},
		{name: "1 row: text only", config: preset(t, "qwen3-vl-8b"), launch: check.Launch{PositionRows: 1}, absent: []string{"mrope-position-rows"}},
	})
	// The raw and the model check must not both report the same mistake.
	fs := check.Config(preset(t, "qwen2-vl-7b"), check.Launch{PositionRows: 4})
	if n := countCode(fs, "mrope-position-rows"); n != 1 {
		t.Errorf("4 rows for 3 sections: %d mrope-position-rows findings, want 1 (%s)", n, codes(fs))
	}
}

func TestYaRNFactor(t *testing.T) {
	runCases(t, []checkCase{
		// DeepSeek-V3: factor 40 × original 4096 = 163840 = max_position_embeddings.
		{name: "deepseek-v3 consistent", config: preset(t, "deepseek-v3"), absent: []string{"yarn-factor"}},
		{name: "deepseek-v3 max 131072", config: preset(t, "deepseek-v3", set("max_position_embeddings", 131072)), want: []want{warningAt("yarn-factor")}},
		{name: "deepseek-v3 factor 32", config: preset(t, "deepseek-v3", setRope("factor", 32)), want: []want{warningAt("yarn-factor")}},
		{name: "rope_type yarn", config: preset(t, "deepseek-v3", setRope("type", nil), setRope("rope_type", "yarn"), set("max_position_embeddings", 65536)), want: []want{warningAt("yarn-factor")}},
		{name: "no original length", config: preset(t, "deepseek-v3", func(top map[string]any) {
			delete(rope(top), "original_max_position_embeddings")
			top["max_position_embeddings"] = 131072
		}), absent: []string{"yarn-factor"}},
		{name: "qwen2.5-1m", config: preset(t, "qwen2.5-7b-instruct-1m"), absent: []string{"yarn-factor"}},
	})
	// A warning alone is not an error.
	fs := check.Config(preset(t, "deepseek-v3", set("max_position_embeddings", 131072)), check.Launch{})
	if check.HasErrors(fs) {
		t.Errorf("yarn-factor warning alone: HasErrors true (%s)", codes(fs))
	}
}

func TestModelType(t *testing.T) {
	runCases(t, []checkCase{
		// An unknown type with the generic keys is read as NeoX: a warning, not an error.
		{name: "unknown", config: preset(t, "llama-3.1-8b", set("model_type", "no_such_family")), want: []want{warningAt("model-type")}},
		{name: "unknown, style given", config: preset(t, "llama-3.1-8b", set("model_type", "no_such_family")),
			launch: check.Launch{Style: new(rp.GPTJ)}, absent: []string{"model-type"}},
		// With the style a guess, the launch's rotary_mode is not contradicted.
		{name: "unknown, launch interleave", config: preset(t, "llama-3.1-8b", set("model_type", "no_such_family")),
			launch: check.Launch{RotaryMode: "interleave"}, want: []want{warningAt("model-type")}, absent: []string{"rotary-mode"}},
		{name: "unknown without rope keys", config: []byte(`{"model_type": "no_such_family", "hidden_size": 64, "num_attention_heads": 4}`),
			want: []want{errorAt("model-type")}},
		{name: "no rope", config: []byte(`{"model_type": "bert", "hidden_size": 768, "num_attention_heads": 12}`),
			want: []want{errorAt("no-rope")}, absent: []string{"model-type"}},
		{name: "missing", config: preset(t, "llama-3.1-8b", func(top map[string]any) { delete(top, "model_type") }), want: []want{errorAt("model-type")}},
		{name: "not a string", config: preset(t, "llama-3.1-8b", set("model_type", 7)), want: []want{errorAt("model-type")}},
	})
	fs := check.Config(preset(t, "llama-3.1-8b", set("model_type", "no_such_family")), check.Launch{})
	for _, f := range fs {
		if f.Code == "model-type" && !strings.Contains(f.Fix, "llama") {
			t.Errorf("model-type fix %q does not list the known families", f.Fix)
		}
	}
}

// TestGuess: a pairing assumed for an unknown model_type, a RoPE key nobody reads, or a config
// transformers main cannot run is the guess --strict refuses, as hf.Model.Warnings says it; an
// unknown type without RoPE keys is an error, not a guess.
func TestGuess(t *testing.T) {
	for _, c := range []struct {
		name   string
		config []byte
		guess  string
	}{
		{"clean", preset(t, "llama-3.1-8b"), ""},
		{"unknown type", preset(t, "llama-3.1-8b", set("model_type", "no_such_family")), "model-type"},
		{"unread key", preset(t, "llama-3.1-8b", func(top map[string]any) { top["rope_scaling"].(map[string]any)["facter"] = 2 }), "unread-key"},
		{"unknown type, no RoPE keys", []byte(`{"model_type": "no_such_family", "hidden_size": 64, "num_attention_heads": 4}`), ""},
		{"transformers main fails", []byte(`{"model_type": "mellum", "num_hidden_layers": 2, "layer_types": ["sliding_attention", "full_attention"],
			"rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 500000.0}, "sliding_attention": {"rope_type": "default"}}}`), "hf-fails"},
	} {
		f, ok := check.Guess(check.Config(c.config, check.Launch{}))
		if ok != (c.guess != "") || f.Code != c.guess {
			t.Errorf("%s: Guess = %+v, %t; want code %q", c.name, f, ok, c.guess)
		}
		if m, err := hf.Parse(c.config); err == nil && (len(m.Warnings()) > 0) != ok {
			t.Errorf("%s: Guess %t, hf warnings %q", c.name, ok, m.Warnings())
		}
	}
	if _, ok := check.Guess(nil); ok {
		t.Error("Guess(nil): a guess")
	}
}

func TestConfigJSON(t *testing.T) {
	for _, data := range []string{"", "not json", "[1, 2]", `"llama"`, `{"model_type": "llama"`, "{} {}"} {
		t.Run(data, func(t *testing.T) {
			fs := check.Config([]byte(data), check.Launch{})
			if len(fs) != 1 || fs[0].Code != "config-json" || fs[0].Severity != check.Error {
				t.Fatalf("Config(%q) = %s, want one config-json error", data, codes(fs))
			}
			if fs[0].What == "" || fs[0].Why == "" || fs[0].Fix == "" {
				t.Errorf("empty field: %+v", fs[0])
			}
		})
	}
}

// TestConfigNull: "null" decodes without error into no object; it must still be one error.
func TestConfigNull(t *testing.T) {
	fs := check.Config([]byte("null"), check.Launch{})
	if len(fs) != 1 || fs[0].Severity != check.Error {
		t.Errorf("Config(null) = %s, want one error", codes(fs))
	}
}

func TestConfigInvalid(t *testing.T) {
	runCases(t, []checkCase{
		{name: "negative rope_theta", config: preset(t, "llama-3.1-8b", set("rope_theta", -1)), want: []want{errorAt("config")}},
		{name: "heads not a number", config: preset(t, "llama-3.1-8b", set("num_attention_heads", "many")), want: []want{errorAt("config")}},
	})
}

func TestMRoPELaunchOptions(t *testing.T) {
	runCases(t, []checkCase{
		{name: "qwen3-vl on the rope branch", config: preset(t, "qwen3-vl-8b"), launch: check.Launch{PositionEmbeddingType: "rope"}, want: []want{errorAt("mrope-on-rope-branch")}},
		{name: "qwen2-vl on the rope branch", config: preset(t, "qwen2-vl-7b"), launch: check.Launch{PositionEmbeddingType: "rope"}, want: []want{errorAt("mrope-on-rope-branch")}},
		{name: "qwen3-vl on the mrope branch", config: preset(t, "qwen3-vl-8b"), launch: check.Launch{PositionEmbeddingType: "mrope", PositionRows: 3, CacheMode: "interleave"}, absent: []string{"mrope-on-rope-branch", "rope-on-mrope-branch", "mrope-cache-mode", "mrope-position-rows"}},
		{name: "fused rope on qwen2.5-vl", config: preset(t, "qwen2.5-vl-7b"), launch: check.Launch{UseFusedRotaryPosEmb: true}, want: []want{errorAt("fused-rope-with-mrope")}},
		{name: "fused rope on llama", config: preset(t, "llama-3.1-8b"), launch: check.Launch{UseFusedRotaryPosEmb: true, PositionEmbeddingType: "rope"}, absent: []string{"fused-rope-with-mrope"}},
		{name: "rope fusion on qwen3-vl", config: preset(t, "qwen3-vl-8b"), launch: check.Launch{ApplyRoPEFusion: true}, want: []want{errorAt("rope-fusion-with-mrope")}},
		{name: "rope fusion on qwen3", config: preset(t, "qwen3-8b"), launch: check.Launch{ApplyRoPEFusion: true}, absent: []string{"rope-fusion-with-mrope"}},
		{name: "llama on the mrope branch", config: preset(t, "llama-3.1-8b"), launch: check.Launch{PositionEmbeddingType: "mrope"}, want: []want{errorAt("rope-on-mrope-branch")}},
		{name: "llama on the rope branch", config: preset(t, "llama-3.1-8b"), launch: check.Launch{PositionEmbeddingType: "rope"}, absent: []string{"rope-on-mrope-branch"}},
		{name: "3 position rows on llama", config: preset(t, "llama-3.1-8b"), launch: check.Launch{PositionRows: 3}, want: []want{errorAt("position-rows")}},
		{name: "1 position row on llama", config: preset(t, "llama-3.1-8b"), launch: check.Launch{PositionRows: 1}, absent: []string{"position-rows"}},
		{name: "every mistake at once", config: preset(t, "qwen3-vl-8b"), launch: check.Launch{PositionEmbeddingType: "rope", UseFusedRotaryPosEmb: true, ApplyRoPEFusion: true, PositionRows: 4, CacheMode: "default"},
			want: []want{errorAt("mrope-on-rope-branch"), errorAt("fused-rope-with-mrope"), errorAt("rope-fusion-with-mrope"), errorAt("mrope-position-rows"), errorAt("mrope-cache-mode")}},
	})
}

func TestRotaryMode(t *testing.T) {
	runCases(t, []checkCase{
		{name: "half on gpt-j", config: preset(t, "gpt-j-6b"), launch: check.Launch{RotaryMode: "half"}, want: []want{errorAt("rotary-mode")}},
		{name: "interleave on gpt-j", config: preset(t, "gpt-j-6b"), launch: check.Launch{RotaryMode: "interleave"}, absent: []string{"rotary-mode"}},
		{name: "interleave on llama", config: preset(t, "llama-3.1-8b"), launch: check.Launch{RotaryMode: "interleave"}, want: []want{errorAt("rotary-mode")}},
		{name: "half on llama", config: preset(t, "llama-3.1-8b"), launch: check.Launch{RotaryMode: "half"}, absent: []string{"rotary-mode"}},
		{name: "interleave on deepseek-v3", config: preset(t, "deepseek-v3"), launch: check.Launch{RotaryMode: "interleave"}, absent: []string{"rotary-mode"}},
		{name: "half on deepseek-v3", config: preset(t, "deepseek-v3"), launch: check.Launch{RotaryMode: "half"}, want: []want{errorAt("rotary-mode")}},
		{name: "unknown mode", config: preset(t, "llama-3.1-8b"), launch: check.Launch{RotaryMode: "quarter"}, want: []want{errorAt("rotary-mode")}},
	})
}

func TestInterleaveRoPE(t *testing.T) {
	op := check.Launch{Op: "npu_interleave_rope"}
	runCases(t, []checkCase{
		{name: "llama-3.1-8b: 128 and neox", config: preset(t, "llama-3.1-8b"), launch: op, want: []want{errorAt("interleave-rope-dim"), errorAt("interleave-rope-style")}, absent: []string{"interleave-rope-mrope"}},
		{name: "llama-3.2-1b: 64 but neox", config: preset(t, "llama-3.2-1b"), launch: op, want: []want{errorAt("interleave-rope-style")}, absent: []string{"interleave-rope-dim"}},
		{name: "gpt-j: 64 and gptj", config: preset(t, "gpt-j-6b"), launch: op, absent: []string{"interleave-rope-dim", "interleave-rope-style", "interleave-rope-mrope"}},
		{name: "deepseek-v3: rope head 64 and gptj", config: preset(t, "deepseek-v3"), launch: op, absent: []string{"interleave-rope-dim", "interleave-rope-style", "interleave-rope-mrope"}},
		{name: "qwen2-vl", config: preset(t, "qwen2-vl-7b"), launch: op, want: []want{errorAt("interleave-rope-mrope"), errorAt("interleave-rope-dim"), errorAt("interleave-rope-style")}},
		{name: "another op", config: preset(t, "llama-3.1-8b"), launch: check.Launch{Op: "npu_rotary_mul"}, absent: []string{"interleave-rope-dim", "interleave-rope-style", "interleave-rope-mrope"}},
	})
}

func TestPresetsClean(t *testing.T) {
	names := hf.PresetNames()
	if len(names) == 0 {
		t.Fatal("no presets")
	}
	for _, name := range names {
		data, err := hf.PresetJSON(name)
		if err != nil {
			t.Fatal(err)
		}
		fs := check.Config(data, check.Launch{})
		if check.HasErrors(fs) {
			t.Errorf("%s: %s", name, codes(fs))
		}
		for _, f := range fs {
			if f.What == "" || f.Why == "" || f.Fix == "" {
				t.Errorf("%s: finding with an empty field: %+v", name, f)
			}
		}
	}
}

func TestHasErrors(t *testing.T) {
	e := check.Finding{Severity: check.Error, Code: "x", What: "w", Why: "y", Fix: "f"}
	w := check.Finding{Severity: check.Warning, Code: "x", What: "w", Why: "y", Fix: "f"}
	for _, c := range []struct {
		fs   []check.Finding
		want bool
	}{
		{nil, false},
		{[]check.Finding{}, false},
		{[]check.Finding{w}, false},
		{[]check.Finding{w, w}, false},
		{[]check.Finding{e}, true},
		{[]check.Finding{w, e}, true},
		{[]check.Finding{e, w}, true},
	} {
		if got := check.HasErrors(c.fs); got != c.want {
			t.Errorf("HasErrors(%v) = %v, want %v", c.fs, got, c.want)
		}
	}
}

// TestFindingJSON: the fields travel under the names `rotary check --json` documents.
func TestFindingJSON(t *testing.T) {
	fs := check.Config(preset(t, "gpt-j-6b"), check.Launch{RotaryMode: "half"})
	if len(fs) == 0 {
		t.Fatal("no findings")
	}
	b, err := json.Marshal(fs[0])
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]string
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"severity", "code", "what", "why", "fix"} {
		if m[k] == "" {
			t.Errorf("JSON %s lacks %q", b, k)
		}
	}
}

// FuzzConfig: any bytes and launch options give findings, never a panic, and every finding is
// complete; Guess picks a warning, and the parsed model's SpecWords, Inspect report, its text
// and its JSON never panic.
func FuzzConfig(f *testing.F) {
	for _, n := range hf.PresetNames() {
		data, err := hf.PresetJSON(n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, "mrope", true, 4, "interleave", "half", "npu_interleave_rope")
	}
	f.Add([]byte(`{"model_type":"qwen2_vl","hidden_size":0,"num_attention_heads":0,"rope_scaling":{"mrope_section":[1e300,-5,"x"]}}`), "rope", false, 3, "default", "interleave", "npu_mrope")
	f.Add([]byte(`{"model_type":"llama","head_dim":-8,"rotary_dim":1e30,"rope_scaling":{"type":"longrope","short_factor":[]}}`), "", false, 0, "", "", "")
	f.Fuzz(func(t *testing.T, data []byte, pet string, fused bool, rows int, cacheMode, rotaryMode, op string) {
		fs := check.Config(data, check.Launch{PositionEmbeddingType: pet, UseFusedRotaryPosEmb: fused, ApplyRoPEFusion: fused, PositionRows: rows, CacheMode: cacheMode, RotaryMode: rotaryMode, Op: op})
		for _, f := range fs {
			if f.Code == "" || f.What == "" || f.Why == "" || f.Fix == "" || (f.Severity != check.Error && f.Severity != check.Warning) {
				t.Fatalf("incomplete finding %+v", f)
			}
		}
		if g, ok := check.Guess(fs); ok && g.Severity != check.Warning {
			t.Fatalf("Guess: %+v is no warning", g)
		}
		// What rotary inspect says of the model, for every layer kind the fuzzer reaches.
		m, err := hf.Parse(data)
		if err != nil {
			return
		}
		_ = check.SpecWords(m.Spec)
		r, err := check.Inspect(m, hf.Selection{Layer: rows, RoPE: hf.WhichRoPE(len(op) % 3)})
		if err == nil {
			r.WriteText(io.Discard)
			if _, err := json.Marshal(r); err != nil {
				t.Fatalf("InspectReport's JSON: %v", err)
			}
		}
	})
}

// TestOpNames: a launch names its op by rotary's registry name or torch_npu's; both reach the
// same checks, and a name neither knows is an error rather than a skipped check.
func TestOpNames(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"interleave_rope", "interleave_rope"},
		{"npu_interleave_rope", "interleave_rope"},
		{"npu_rotary_mul", "apply_rotary_emb"},
		{"apply_rotary_emb", "apply_rotary_emb"},
		{"npu_mrope", "mrope"},
		{"mrope", "mrope"},
		{"npu_kv_rmsnorm_rope_cache", "kv_rmsnorm_rope_cache"},
		{"rotary_embedding", "rotary_embedding"},
		{"qk_rmsnorm_rope", "qk_rmsnorm_rope"},
		{"apply_rotary_emb_thd", "apply_rotary_emb_thd"},
	} {
		got, ok := check.CanonicalOp(c.name)
		if !ok || got != c.want {
			t.Errorf("CanonicalOp(%q) = %q, %v; want %q", c.name, got, ok, c.want)
		}
	}
	names := check.OpNames()
	for _, n := range names {
		if _, ok := check.CanonicalOp(n); !ok {
			t.Errorf("OpNames lists %q, which CanonicalOp refuses", n)
		}
	}
	for _, bad := range []string{"", "no_such_op", "NPU_MROPE", "npu_mrope ", "npu_"} {
		if got, ok := check.CanonicalOp(bad); ok {
			t.Errorf("CanonicalOp(%q) = %q, true; want refused", bad, got)
		}
	}
	runCases(t, []checkCase{
		{name: "unknown op", config: preset(t, "llama-3.1-8b"), launch: check.Launch{Op: "no_such_op"}, want: []want{errorAt("op")}},
		{name: "rotary's name of interleave_rope", config: preset(t, "llama-3.1-8b"), launch: check.Launch{Op: "interleave_rope"}, want: []want{errorAt("interleave-rope-dim"), errorAt("interleave-rope-style")}, absent: []string{"op"}},
		{name: "rotary's name of mrope", config: preset(t, "llama-3.1-8b"), launch: check.Launch{Op: "mrope", CacheMode: "interleave"}, want: []want{errorAt("mrope-cache-mode")}, absent: []string{"op"}},
		{name: "no op", config: preset(t, "llama-3.1-8b"), launch: check.Launch{}, absent: []string{"op"}},
	})
}
