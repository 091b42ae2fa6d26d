package check_test

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/check"
	"github.com/rotary-go/rotary/hf"
)

// qwen3YaRN is Qwen3-8B's config with the rope_scaling its model card gives for 131072 tokens
// (huggingface.co/Qwen/Qwen3-8B README, "Processing Long Texts": rope_type yarn, factor 4.0,
// original_max_position_embeddings 32768), max_position_embeddings left at the config's 40960.
func qwen3YaRN(t *testing.T, edits ...func(map[string]any)) []byte {
	return preset(t, "qwen3-8b", append([]func(map[string]any){set("rope_scaling", map[string]any{
		"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768})}, edits...)...)
}

func yarnFinding(t *testing.T, data []byte) (check.Finding, bool) {
	t.Helper()
	for _, f := range check.Config(data, check.Launch{}) {
		if f.Code == "yarn-factor" {
			return f, true
		}
	}
	return check.Finding{}, false
}

// TestYaRNFactorKeepsExtension: the first fix keeps the factor the config asks for and sets
// max_position_embeddings to original × factor; factor = max / original, which would shrink
// Qwen3's 4× extension to 1.25×, comes second, qualified.
func TestYaRNFactorKeepsExtension(t *testing.T) {
	f, ok := yarnFinding(t, qwen3YaRN(t))
	if !ok {
		t.Fatal("no yarn-factor warning for Qwen3 with YaRN factor 4 at max_position_embeddings 40960")
	}
	keep := strings.Index(f.Fix, "max_position_embeddings to original × factor = 131072")
	shrink := strings.Index(f.Fix, "factor 1.25")
	if !strings.HasPrefix(f.Fix, "keep factor 4") || keep < 0 || shrink < keep {
		t.Errorf("fix %q: want keep factor 4 with max_position_embeddings 131072 first, factor 1.25 after", f.Fix)
	}
	// The releases that read the ratio, and what they compute: HF's get_mscale, 0.1·ln(s) + 1.
	for _, s := range []string{"transformers v4.51–v4.55",
		fmt.Sprintf("attention factor %.6g, not %.6g", 0.1*math.Log(1.25)+1, 0.1*math.Log(4)+1),
		"vLLM serves original × factor = 131072", "SGLang max_position_embeddings = 40960"} {
		if !strings.Contains(f.Why, s) {
			t.Errorf("why %q: want %q", f.Why, s)
		}
	}
	if _, ok := yarnFinding(t, qwen3YaRN(t, set("max_position_embeddings", 131072))); ok {
		t.Error("max_position_embeddings 131072 = 32768 × 4: a yarn-factor warning")
	}
	// An explicit attention factor is read by every release alike.
	f, _ = yarnFinding(t, qwen3YaRN(t, setRope("attention_factor", 1.2)))
	if !strings.Contains(f.Why, "the same attention factor 1.2") {
		t.Errorf("attention_factor 1.2: why %q: want the same attention factor", f.Why)
	}
}

// TestYaRNFactorFrameworksAgree: the warning and check --frameworks say the same thing: the
// compared dialects read the config alike, and the releases that read the ratio are listed by
// the report as not compared, under the name the warning gives them.
func TestYaRNFactorFrameworksAgree(t *testing.T) {
	data := qwen3YaRN(t)
	r, err := check.Frameworks(data, hf.ParseOptions{}, hf.Dialects())
	if err != nil {
		t.Fatal(err)
	}
	if !r.Agree || len(r.Rows) != 0 {
		t.Fatalf("frameworks: agree %v, rows %d: want every dialect alike", r.Agree, len(r.Rows))
	}
	f, _ := yarnFinding(t, data)
	if len(r.Unmodelled) != 1 || !strings.HasPrefix(r.Unmodelled[0], "transformers v4.51–v4.55: yarn factor 4 read as max_position_embeddings / original_max_position_embeddings = 1.25") ||
		!strings.Contains(f.Why, "transformers v4.51–v4.55 replaced factor") || !strings.Contains(f.Why, "it lists them as not compared") {
		t.Errorf("unmodelled %q, warning %q: want both to name transformers v4.51–v4.55's ratio", r.Unmodelled, f.Why)
	}
	var text bytes.Buffer
	r.WriteText(&text)
	if !strings.Contains(text.String(), "not compared (not verified in the framework's source, or not modelled):\n  transformers v4.51–v4.55: yarn factor 4") {
		t.Errorf("text:\n%s\nwant the ratio's releases under not compared", text.String())
	}
	r, err = check.Frameworks(qwen3YaRN(t, set("max_position_embeddings", 131072)), hf.ParseOptions{}, hf.Dialects())
	if err != nil || len(r.Unmodelled) != 0 {
		t.Errorf("max_position_embeddings 131072: unmodelled %q (%v): want none", r.Unmodelled, err)
	}
}

// TestFrameworksNotComparedApplies: the text lists a rule a dialect was not verified for only
// when its readings differ on the config, or with Verbose; the JSON's unverified keeps them all.
func TestFrameworksNotComparedApplies(t *testing.T) {
	text := func(r *check.FrameworksReport) string {
		var b bytes.Buffer
		r.WriteText(&b)
		return b.String()
	}
	plain, err := check.Frameworks(preset(t, "qwen3-8b"), hf.ParseOptions{}, hf.Dialects())
	if err != nil {
		t.Fatal(err)
	}
	if s := text(plain); strings.Contains(s, "not compared") {
		t.Errorf("qwen3-8b (no scaling): no unverified rule reads it two ways, yet:\n%s", s)
	}
	if !slices.Contains(plain.Unverified["sglang"], string(hf.RuleMiniMaxRotaryDim)) {
		t.Errorf("unverified %v: want sglang's minimax_rotary_dim kept for --json", plain.Unverified)
	}
	plain.Verbose = true
	if s := text(plain); !strings.Contains(s, "  sglang: rope_parameters, deepseek_yarn_attention,") {
		t.Errorf("verbose:\n%s\nwant every unverified rule", s)
	}
	// An attention_factor is read by the config reading and not by the computed one: llama.cpp
	// was not verified for that rule, which now applies; its others do not.
	att, err := check.Frameworks(qwen3YaRN(t, setRope("attention_factor", 1.2)), hf.ParseOptions{}, hf.Dialects())
	if err != nil {
		t.Fatal(err)
	}
	if s := text(att); !strings.Contains(s, "\n  llama.cpp: yarn_attention_factor\n") || strings.Contains(s, "minimax_rotary_dim") {
		t.Errorf("attention_factor 1.2:\n%s\nwant llama.cpp's yarn_attention_factor alone", s)
	}
	// get_rope_index moves a Qwen-VL model's positions: the dialects not verified for it apply.
	vl, err := check.Frameworks(preset(t, "qwen2-vl-7b"), hf.ParseOptions{}, hf.Dialects())
	if err != nil {
		t.Fatal(err)
	}
	if s := text(vl); !strings.Contains(s, "  vllm-0.11: rope_index\n") || !strings.Contains(s, "  sglang: rope_index\n") {
		t.Errorf("qwen2-vl-7b:\n%s\nwant rope_index for vllm-0.11 and sglang", s)
	}
}
