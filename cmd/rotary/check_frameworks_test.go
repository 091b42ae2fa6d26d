package main

import (
	"encoding/json"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/check"
	"github.com/rotary-go/rotary/hf"
)

func checkFrameworks(t *testing.T, args ...string) (int, *check.FrameworksReport, string) {
	t.Helper()
	code, out, stderr := runCLI(t, append([]string{"check", "--frameworks", "--json"}, args...)...)
	if code == 2 {
		return code, nil, stderr
	}
	var r check.FrameworksReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	return code, &r, stderr
}

// divergentRules are the rules of r's rows that differ beyond float32 noise.
func divergentRules(r *check.FrameworksReport) []hf.Rule {
	var out []hf.Rule
	for _, row := range r.Rows {
		if row.Divergent {
			out = append(out, row.Rule)
		}
	}
	return out
}

// presetDivergences are the embedded presets the dialects read differently, and the rules why.
var presetDivergences = map[string][]hf.Rule{
	"gpt-oss-20b":       {hf.RuleYaRNTruncate},                                                 // truncate: false
	"gpt-oss-120b":      {hf.RuleYaRNTruncate},                                                 // truncate: false, as 20b
	"ministral-3-3b":    {hf.RuleRopeParameters, hf.RuleYaRNAttention},                         // v5 rope_parameters, mscale = mscale_all_dim
	"phi-3-mini-128k":   {hf.RuleLongRoPETables, hf.RuleLongRoPETables, hf.RuleLongRoPETables}, // three switching rules
	"phi-4-mini":        {hf.RuleLongRoPETables, hf.RuleLongRoPETables, hf.RuleLongRoPETables}, // as Phi-3
	"qwen3.5-35b-a3b":   {hf.RuleRopeParameters, hf.RuleRopeIndex},                             // v5 rope_parameters; get_rope_index's padding
	"qwen2-vl-7b":       {hf.RuleRopeIndex},                                                    // HF main's get_rope_index (#43972)
	"qwen2.5-vl-7b":     {hf.RuleRopeIndex},                                                    // as Qwen2-VL
	"qwen3-vl-8b":       {hf.RuleRopeIndex},                                                    // padding only: frames have t = 1
	"deepseek-v3.2-exp": {hf.RuleIndexerPairing},                                               // vLLM v0.11's indexer paired GPT-J-wise

	"internlm3-8b-instruct": {hf.RuleDynamicLength}, // dynamic factor 6: vLLM 0.11 and SGLang tabulate max_position · factor once
	// mrope_section under thinker_config.text_config, where hf reads it: no difference.
	"qwen3-omni-30b-a3b-instruct": {},
	// v5-only rope_parameters (xdrope: alpha and xdrope_section), which hf-4.57 and vLLM 0.11
	// ignore; neither has the model (vLLM added it in #29327, 92effb07a, after v0.11).
	"hunyuan-ocr-1.5": {hf.RuleRopeParameters},
}

// TestCheckFrameworksPresets: every preset exits 0 exactly when no rule differs beyond float32
// noise, and the presets known to diverge name their rules.
func TestCheckFrameworksPresets(t *testing.T) {
	for _, name := range hf.PresetNames() {
		code, r, stderr := checkFrameworks(t, "--model", name)
		if r == nil {
			t.Errorf("%s: exit %d: %s", name, code, stderr)
			continue
		}
		got := divergentRules(r)
		if (code == 0) != (len(got) == 0) || r.Agree != (len(got) == 0) {
			t.Errorf("%s: exit %d, agree %t, divergent rules %v", name, code, r.Agree, got)
		}
		if want, ok := presetDivergences[name]; ok && !slices.Equal(got, want) {
			t.Errorf("%s: divergent rules %v, want %v", name, got, want)
		} else if !ok && len(got) > 0 {
			t.Logf("%s: the dialects differ on %v", name, got)
		}
	}
}

// TestCheckFrameworksAlike: presets every dialect reads alike exit 0 and say so.
func TestCheckFrameworksAlike(t *testing.T) {
	for _, m := range []string{"llama-3.1-8b", "qwen3-8b", "deepseek-v3", "mistral-7b-v0.3", "gemma-3-4b", "qwen2.5-7b-instruct-1m"} {
		code, r, stderr := checkFrameworks(t, "--model", m)
		if code != 0 || r == nil || !r.Agree || len(r.Rows) != 0 {
			t.Errorf("%s: exit %d, stderr %q, report %+v: want exit 0 and no rows", m, code, stderr, r)
		}
	}
	code, out, _ := runCLI(t, "check", "--model", "llama-3.1-8b", "--frameworks")
	if code != 0 || !strings.Contains(out, "ok: every dialect reads this config alike") {
		t.Errorf("text form: exit %d:\n%s", code, out)
	}
}

// TestCheckFrameworksDivergent: each upstream divergence exits 1 with its rule named and the
// numbers it implies, computed here from the upstream formulas.
func TestCheckFrameworksDivergent(t *testing.T) {
	dir := t.TempDir()
	laguna := writeFile(t, dir, "laguna.json", []byte(`{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,
		"max_position_embeddings":8192,"rope_theta":500000,
		"rope_scaling":{"rope_type":"yarn","factor":64,"original_max_position_embeddings":4096,"attention_factor":1.0}}`))
	dynamic := writeFile(t, dir, "dynamic.json", []byte(`{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,
		"max_position_embeddings":8192,"rope_theta":10000,"rope_scaling":{"rope_type":"dynamic","factor":2}}`))
	v5 := writeFile(t, dir, "v5.json", []byte(`{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,
		"max_position_embeddings":4096,"rope_parameters":{"rope_type":"default","rope_theta":1000000}}`))
	minimax := writeFile(t, dir, "minimax.json", []byte(`{"model_type":"minimax_m2","hidden_size":3072,"num_attention_heads":48,
		"num_key_value_heads":8,"head_dim":128,"rotary_dim":64,"max_position_embeddings":4096,"rope_theta":5000000}`))
	vl := writeFile(t, dir, "vl.json", []byte(`{"model_type":"qwen3_vl_text","hidden_size":4096,"num_attention_heads":32,
		"head_dim":128,"max_position_embeddings":4096,"rope_theta":5000000}`))
	vlNoKey := writeFile(t, dir, "vl-nokey.json", []byte(`{"model_type":"qwen3_vl_text","hidden_size":4096,"num_attention_heads":32,
		"head_dim":128,"max_position_embeddings":4096,"rope_theta":5000000,"rope_scaling":{"rope_type":"default","mrope_section":[24,20,20]}}`))
	phimoe := writeFile(t, dir, "phimoe.json", []byte(`{"model_type":"phimoe","hidden_size":128,"num_attention_heads":8,
		"max_position_embeddings":8192,"original_max_position_embeddings":4096,"rope_theta":10000,
		"rope_scaling":{"type":"longrope","short_mscale":1.2,"long_mscale":1.2,
		"short_factor":[1,1,1,1,1,1,1,1],"long_factor":[2,3,4,5,6,7,8,9]}}`))

	yarnAtt := 0.1*math.Log(64) + 1
	for _, c := range []struct {
		name  string
		args  []string
		rules []hf.Rule
		check func(t *testing.T, row check.FrameworkRow)
	}{
		{"gpt-oss truncate (vllm#27722)", []string{"--model", "gpt-oss-20b"}, []hf.Rule{hf.RuleYaRNTruncate}, func(t *testing.T, row check.FrameworkRow) {
			if !slices.Contains(row.B.Dialects, "vllm-0.11") || !slices.Contains(row.B.Dialects, "llama.cpp") || row.B.Choice != "ignored" {
				t.Errorf("sides %+v / %+v", row.A, row.B)
			}
			// The largest angle gap is at the last position, on the ramp pair whose frequency the
			// floor/ceil moves most.
			gap := 0.0
			for i := range 32 {
				gap = max(gap, math.Abs(yarnInv(i, 64, 150000, 32, 4096, false)-yarnInv(i, 64, 150000, 32, 4096, true)))
			}
			if row.MaxAngleDiff == nil || math.Abs(*row.MaxAngleDiff-131071*gap) > 1e-9*131071*gap || row.MaxAngleAt != 131071 {
				t.Errorf("max angle diff %v at %d, want %v at 131071", row.MaxAngleDiff, row.MaxAngleAt, 131071*gap)
			}
			if row.FirstPosition != 1 {
				t.Errorf("first position %d, want 1", row.FirstPosition)
			}
		}},
		{"YaRN attention_factor (prime-rl#2802)", []string{"--config", laguna}, []hf.Rule{hf.RuleYaRNAttention}, func(t *testing.T, row check.FrameworkRow) {
			if row.AttentionA != 1 || math.Abs(row.AttentionB-yarnAtt) > 1e-15 {
				t.Errorf("attention %v vs %v, want 1 vs %v", row.AttentionA, row.AttentionB, yarnAtt)
			}
			if row.MaxAngleDiff == nil || *row.MaxAngleDiff != 0 || math.Abs(row.MaxOutputDiff-(yarnAtt-1)) > 1e-12 || row.FirstPosition != 0 {
				t.Errorf("angle %v, output %v, first %d: want 0, %v, 0", row.MaxAngleDiff, row.MaxOutputDiff, row.FirstPosition, yarnAtt-1)
			}
		}},
		{"dynamic NTK (vllm PR #41277)", []string{"--config", dynamic}, []hf.Rule{hf.RuleDynamicLength}, func(t *testing.T, row check.FrameworkRow) {
			// Only the static rule differs below max_position_embeddings: base·3^(d/(d-2)). HF's
			// per-call rule, vLLM main's and llama.cpp's (no scaling) all rotate plainly there,
			// so they share a side.
			if row.A.Choice != "per-call, max-trained, ignored" || !slices.Equal(row.A.Dialects, []string{"hf", "hf-4.57", "vllm", "llama.cpp"}) ||
				row.B.Choice != "static" || !slices.Equal(row.B.Dialects, []string{"vllm-0.11", "sglang"}) {
				t.Errorf("sides %+v / %+v", row.A, row.B)
			}
			d := 128.0
			gap := 0.0
			for i := range 64 {
				plain := 1 / math.Pow(10000, 2*float64(i)/d)
				stretched := 1 / math.Pow(10000*math.Pow(3, d/(d-2)), 2*float64(i)/d)
				gap = max(gap, plain-stretched)
			}
			if row.MaxAngleDiff == nil || math.Abs(*row.MaxAngleDiff-8191*gap) > 1e-9*8191*gap {
				t.Errorf("max angle diff %v, want %v", row.MaxAngleDiff, 8191*gap)
			}
		}},
		{"v5 rope_parameters (DeepSpeed#8345)", []string{"--config", v5}, []hf.Rule{hf.RuleRopeParameters}, func(t *testing.T, row check.FrameworkRow) {
			// llama.cpp reads rope_parameters first: the same as reading it, with no rope_scaling.
			if row.A.Choice != "reads, first" || !slices.Equal(row.B.Dialects, []string{"hf-4.57", "vllm-0.11"}) {
				t.Errorf("sides %+v / %+v", row.A, row.B)
			}
		}},
		{"MiniMax rotary_dim", []string{"--config", minimax}, []hf.Rule{hf.RuleMiniMaxRotaryDim}, func(t *testing.T, row check.FrameworkRow) {
			// hf-4.57's rule covers MiniMax-Text-01 only, so it reads minimax_m2 as vLLM does.
			if row.B.Choice != "ignored-text-01, honoured" || !slices.Equal(row.B.Dialects, []string{"hf-4.57", "vllm", "vllm-0.11"}) {
				t.Errorf("side B %+v", row.B)
			}
			if row.MaxAngleDiff != nil || row.FirstPosition != 1 || !slices.Equal(row.A.Dialects, []string{"hf"}) {
				t.Errorf("angle %v (want n/a), first %d, A %v", row.MaxAngleDiff, row.FirstPosition, row.A.Dialects)
			}
		}},
		{"Qwen3-VL default sections", []string{"--config", vl}, []hf.Rule{hf.RuleMRoPEDefault, hf.RuleRopeIndex}, func(t *testing.T, row check.FrameworkRow) {
			if row.Rule == hf.RuleRopeIndex {
				return // TestCheckFrameworksRopeIndex
			}
			if row.MaxOutputDiff != 0 || !strings.Contains(row.Structure, "[24 20 20] interleaved vs none") {
				t.Errorf("output diff %v, structure %q", row.MaxOutputDiff, row.Structure)
			}
		}},
		{"Qwen3-VL without mrope_interleaved", []string{"--config", vlNoKey}, []hf.Rule{hf.RuleMRoPEInterleavedDefault, hf.RuleRopeIndex}, func(t *testing.T, row check.FrameworkRow) {
			if row.Rule == hf.RuleRopeIndex {
				return
			}
			if !strings.Contains(row.Structure, "[24 20 20] interleaved vs [24 20 20] chunked") || !slices.Equal(row.B.Dialects, []string{"vllm", "vllm-0.11", "sglang"}) {
				t.Errorf("structure %q, B %v", row.Structure, row.B.Dialects)
			}
		}},
		{"PhiMoE long factors", []string{"--config", phimoe, "--frameworks=hf,hf-4.57"}, []hf.Rule{hf.RulePhiMoELongFactors}, func(t *testing.T, row check.FrameworkRow) {
			if row.FirstPosition != 4096 {
				t.Errorf("first position %d, want the original length 4096", row.FirstPosition)
			}
		}},
		{"LongRoPE switching rules (vLLM #27431, positions > original)", []string{"--model", "phi-3-mini-128k"},
			[]hf.Rule{hf.RuleLongRoPETables, hf.RuleLongRoPETables, hf.RuleLongRoPETables}, func(t *testing.T, row check.FrameworkRow) {
				sides := row.A.Choice + " / " + row.B.Choice
				switch {
				case row.A.Choice == "long-if-extended" || row.B.Choice == "long-if-extended":
					// vLLM main's long factors from position 0: the tables differ at once.
					if row.FirstPosition != 1 {
						t.Errorf("%s: first position %d, want 1", sides, row.FirstPosition)
					}
				default:
					// HF switches for a call at the original length, v0.11 and SGLang one later:
					// the two differ at position 4096 alone.
					if row.FirstPosition != 4096 || row.MaxOutputAt != 4096 || row.MaxAngleAt != 4096 {
						t.Errorf("%s: first %d, largest output diff at %d, angle at %d: want all 4096", sides, row.FirstPosition, row.MaxOutputAt, row.MaxAngleAt)
					}
				}
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, r, stderr := checkFrameworks(t, c.args...)
			if code != 1 || r == nil || r.Agree {
				t.Fatalf("exit %d, stderr %q: want exit 1", code, stderr)
			}
			if got := divergentRules(r); !slices.Equal(got, c.rules) {
				t.Fatalf("divergent rules %v, want %v", got, c.rules)
			}
			for _, row := range r.Rows {
				if row.Divergent {
					c.check(t, row)
				}
			}
		})
	}
	code, out, _ := runCLI(t, "check", "--model", "gpt-oss-20b", "--frameworks")
	if code != 1 || !strings.Contains(out, "yarn_truncate: differ") || !strings.Contains(out, "ggml_rope_yarn_corr_dims") {
		t.Errorf("text form: exit %d:\n%s", code, out)
	}
}

// yarnInv is YaRN's inv_freq of pair i (transformers _compute_yarn_parameters), truncating the
// correction range or not.
func yarnInv(i, d int, base, factor float64, orig int, truncate bool) float64 {
	dim := func(rot float64) float64 {
		return float64(d) * math.Log(float64(orig)/(rot*2*math.Pi)) / (2 * math.Log(base))
	}
	low, high := dim(32), dim(1)
	if truncate {
		low, high = math.Floor(low), math.Ceil(high)
	}
	low, high = math.Max(low, 0), math.Min(high, float64(d-1))
	ramp := math.Min(math.Max((float64(i)-low)/(high-low), 0), 1)
	g := math.Pow(base, float64(2*i)/float64(d))
	return (1/(factor*g))*ramp + (1/g)*(1-ramp)
}

// TestCheckFrameworksUnreadable: a config one reading cannot load is a divergence, reported with
// the error, not a failure of the command. Here Olmo3Config merges the legacy rope_scaling's 32
// LongRoPE factors into rope_parameters' full_attention entry, whose partial factor gives the
// rotary dim 64 they fit, and they no longer fit the whole head once rope_parameters is ignored.
// v4.57's partial_rotary_source (attribute-only) does not read the entry's fraction either: a
// divergence, on the full layers, which load.
func TestCheckFrameworksUnreadable(t *testing.T) {
	ones := strings.TrimSuffix(strings.Repeat("1,", 32), ",")
	cfg := writeFile(t, t.TempDir(), "c.json", []byte(`{"model_type":"olmo3","hidden_size":128,"num_attention_heads":1,"num_hidden_layers":4,
		"rope_parameters":{"full_attention":{"rope_type":"default","rope_theta":10000,"partial_rotary_factor":0.5},
		  "sliding_attention":{"rope_type":"default","rope_theta":10000}},
		"rope_scaling":{"type":"longrope","short_factor":[`+ones+`],"long_factor":[`+ones+`]}}`))
	code, r, stderr := checkFrameworks(t, "--config", cfg)
	if code != 1 || r == nil {
		t.Fatalf("exit %d, stderr %q: want exit 1", code, stderr)
	}
	rows := divergentRules(r)
	if !slices.Equal(rows, []hf.Rule{hf.RuleRopeParameters, hf.RulePartialRotarySource}) || !strings.Contains(r.Rows[0].Structure, "read as ignores, the config does not load") ||
		!strings.Contains(r.Rows[0].Structure, "longrope") || r.Rows[1].B.Choice != "attribute-only" || r.Rows[1].Layer != 3 {
		t.Errorf("rows %v, report %+v", rows, r.Rows)
	}
}

func TestCheckFrameworksUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--frameworks=hf,vllm"},
		{"--frameworks", "hf,vllm-0.11"},
	} {
		code, out, stderr := runCLI(t, append([]string{"check", "--model", "gpt-oss-20b", "--json"}, args...)...)
		var r check.FrameworksReport
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%v: exit %d, stderr %q: %v", args, code, stderr, err)
		}
		if want := strings.Split(strings.TrimPrefix(args[len(args)-1], "--frameworks="), ","); !slices.Equal(r.Dialects, want) {
			t.Errorf("%v: dialects %v, want %v", args, r.Dialects, want)
		}
		if wantCode := map[bool]int{true: 0, false: 1}[want0(args)]; code != wantCode {
			t.Errorf("%v: exit %d, want %d", args, code, wantCode)
		}
	}
	for _, args := range [][]string{
		{"--frameworks=hf"},
		{"--frameworks=hf,tgi"},
		{"--frameworks=hf,reference"},
		{"--frameworks", "--precision"},
		{"--frameworks", "hf,tgi"},
	} {
		code, out, stderr := runCLI(t, append([]string{"check", "--model", "gpt-oss-20b"}, args...)...)
		if code != 2 || out != "" || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q: want exit 2 and one line", args, code, out, stderr)
		}
		// The flag package calls a rejected value of a bool-like flag an "invalid boolean value".
		if strings.Contains(stderr, "boolean") || !strings.Contains(stderr, "--frameworks") && !strings.Contains(stderr, "--precision") {
			t.Errorf("%v: stderr %q: want the error to name --frameworks, not a boolean", args, stderr)
		}
	}
}

// want0: hf and vllm read gpt-oss alike (both honour truncate); vllm-0.11 does not.
func want0(args []string) bool { return !strings.Contains(args[len(args)-1], "vllm-0.11") }

// TestREADMEDialectTable: the README's table of dialect rules is the one hf carries.
func TestREADMEDialectTable(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	dialects := append([]hf.Dialect{hf.DialectReference}, hf.Dialects()...)
	header := "| rule |"
	for _, d := range dialects {
		header += " " + d.String() + " |"
	}
	text := string(data)
	i := strings.Index(text, header+"\n")
	if i < 0 {
		t.Fatalf("README has no dialect table headed %q", header)
	}
	rows := strings.Split(text[i:], "\n")[2:]
	for k, r := range hf.Rules() {
		cells := strings.Split(strings.Trim(rows[k], "|"), "|")
		if len(cells) != len(dialects)+1 || strings.TrimSpace(cells[0]) != "`"+string(r)+"`" {
			t.Fatalf("README row %d: %q, want rule %s", k, rows[k], r)
		}
		for j, d := range dialects {
			want := "—"
			if rd, ok := d.Reading(r); ok {
				want = rd.Choice
			}
			if got := strings.TrimSpace(cells[j+1]); got != want {
				t.Errorf("README: %s under %s: %q, want %q", r, d, got, want)
			}
		}
	}
}

// TestCheckFrameworksRopeIndex: HF main's get_rope_index (transformers PR #43972,
// models/qwen2_vl/modeling_qwen2_vl.py Qwen2VLModel.get_rope_index: current_pos +=
// max(h, w) // spatial_merge_size) against v4.57's and vLLM's (st_idx = the video's largest
// position + 1). Canonical prompt: text, text, vision_start, a [4 4 4] video (merge 2: four steps
// of 2×2, tokens 3..18), vision_end, text. The video's positions start at 3: v4.57 puts
// vision_end at 3 + 3 + 1 = 7 (the last step's temporal position plus one), main at 3 + 2 = 5.
// Qwen2.5-VL (tokens_per_second 2, as ConfigFromJSON reads a preset) steps by 2: 3 + 6 + 1 =
// 10. Qwen3-VL's frames have t = 1, so only padding differs: slots 0 vs 1, and rope_delta over
// 31 vs 33 tokens.
func TestCheckFrameworksRopeIndex(t *testing.T) {
	for _, c := range []struct{ model, want string }{
		{"qwen2-vl-7b", "token 19 (a text token after the video) has (t, h, w) (5, 5, 5) vs (7, 7, 7)"},
		{"qwen2.5-vl-7b", "token 19 (a text token after the video) has (t, h, w) (5, 5, 5) vs (10, 10, 10)"},
		{"qwen3-vl-8b", "token 0 (a padded slot) has (t, h, w) (0, 0, 0) vs (1, 1, 1) and the unpadded tokens alike, rope_delta -8 vs -10"},
	} {
		code, r, stderr := checkFrameworks(t, "--model", c.model)
		if code != 1 || r == nil {
			t.Fatalf("%s: exit %d, stderr %q: want 1", c.model, code, stderr)
		}
		i := slices.IndexFunc(r.Rows, func(row check.FrameworkRow) bool { return row.Rule == hf.RuleRopeIndex })
		if i < 0 {
			t.Fatalf("%s: no rope_index row", c.model)
		}
		row := r.Rows[i]
		if !row.Divergent || !strings.Contains(row.Structure, c.want) || !slices.Equal(row.A.Dialects, []string{"hf"}) || !slices.Equal(row.B.Dialects, []string{"hf-4.57", "vllm"}) {
			t.Errorf("%s: row %+v: want %q, hf against hf-4.57 and vllm", c.model, row, c.want)
		}
	}
	// Without hf every compared dialect follows v4.57: alike.
	if code, r, stderr := checkFrameworks(t, "--model", "qwen2-vl-7b", "--frameworks=hf-4.57,vllm"); code != 0 || r == nil || len(r.Rows) != 0 {
		t.Errorf("hf-4.57,vllm: exit %d, stderr %q, report %+v: want 0 and no rows", code, stderr, r)
	}
}

// TestCheckFrameworksIndexerPairing: DeepSeek-V3.2's indexer rotates its first 64 of 128 dims
// NeoX-wise (transformers main DeepseekV32Indexer.forward, vLLM main's indexer_rope_emb, SGLang's
// nsa_indexer.py Indexer); vLLM v0.11 handed it the MLA's GPT-J rotary embedding (deepseek_v2.py
// Indexer.forward with mla.py's rotary_emb) until #28968. Position 0 is the identity in both;
// from position 1 the pairs differ, and a unit vector along dim 1 goes to (−sin, cos) of pair 0
// under GPT-J but to (cos, sin) of pair 1 (dims 1, 33) under NeoX: apart by up to 2.
func TestCheckFrameworksIndexerPairing(t *testing.T) {
	code, r, stderr := checkFrameworks(t, "--model", "deepseek-v3.2-exp")
	if code != 1 || r == nil {
		t.Fatalf("exit %d, stderr %q: want 1", code, stderr)
	}
	if got := divergentRules(r); !slices.Equal(got, []hf.Rule{hf.RuleIndexerPairing}) {
		t.Fatalf("divergent rules %v, want [indexer_pairing]", got)
	}
	row := r.Rows[0]
	if row.A.Choice != "neox" || !slices.Equal(row.A.Dialects, []string{"hf", "vllm", "sglang"}) ||
		row.B.Choice != "interleaved" || !slices.Equal(row.B.Dialects, []string{"vllm-0.11"}) {
		t.Errorf("sides %+v / %+v: want neox (hf, vllm, sglang) against interleaved (vllm-0.11)", row.A, row.B)
	}
	if row.FirstPosition != 1 || row.MaxAngleDiff != nil || row.MaxOutputDiff <= 1.9 || row.MaxOutputDiff > 2+1e-12 ||
		!strings.Contains(row.Structure, "indexer") {
		t.Errorf("first %d, angle %v, largest diff %v, structure %q: want 1, n/a, ≈2, the indexer named", row.FirstPosition, row.MaxAngleDiff, row.MaxOutputDiff, row.Structure)
	}
	// Without vLLM v0.11 every compared dialect pairs NeoX-wise.
	if code, r, _ := checkFrameworks(t, "--model", "deepseek-v3.2-exp", "--frameworks=hf,vllm,sglang"); code != 0 || r == nil || len(r.Rows) != 0 {
		t.Errorf("hf,vllm,sglang: exit %d, report %+v: want 0 and no rows", code, r)
	}
	// The main (MLA) rope is GPT-J under every dialect; only --rope indexer moves.
	for _, as := range []string{"hf", "vllm-0.11"} {
		_, out, _ := runCLI(t, "inspect", "--model", "deepseek-v3.2-exp", "--as", as)
		if !strings.Contains(out, "style:                 gptj") {
			t.Errorf("inspect --as %s: the MLA's style is not gptj:\n%s", as, out)
		}
	}
	want := map[string]string{"hf": "neox", "vllm": "neox", "vllm-0.11": "gptj"}
	for as, style := range want {
		_, out, _ := runCLI(t, "inspect", "--model", "deepseek-v3.2-exp", "--rope", "indexer", "--as", as)
		if !strings.Contains(out, "style:                 "+style) {
			t.Errorf("inspect --rope indexer --as %s: want style %s:\n%s", as, style, out)
		}
	}
}

// TestCheckFrameworksPartialRotary: a Llama config with partial_rotary_factor 0.5. transformers
// main rotates the whole head (LlamaRotaryEmbedding.compute_default_rope_parameters never reads
// the key), vLLM the first half (get_rope: int(head_size · partial_rotary_factor)); v4.57 has no
// reading (its inv_freq follows the factor, its apply_rotary_pos_emb cannot apply it). The two
// rotate different pairs, so the row gives no angle, and the output gap is measured against
// the two rotations written out here: NeoX over 16 dims at base^(-2i/16), and NeoX over the
// first 8 at base^(-2i/8) with the rest passed through.
func TestCheckFrameworksPartialRotary(t *testing.T) {
	dir := t.TempDir()
	llama := writeFile(t, dir, "llama.json", []byte(`{"model_type":"llama","hidden_size":16,"num_attention_heads":1,
		"max_position_embeddings":64,"rope_theta":10000,"partial_rotary_factor":0.5}`))
	code, r, stderr := checkFrameworks(t, "--config", llama)
	if code != 1 || r == nil {
		t.Fatalf("exit %d, stderr %q: want 1", code, stderr)
	}
	if got := divergentRules(r); !slices.Equal(got, []hf.Rule{hf.RulePartialRotary}) {
		t.Fatalf("divergent rules %v, want [partial_rotary_factor]", got)
	}
	row := r.Rows[slices.IndexFunc(r.Rows, func(row check.FrameworkRow) bool { return row.Rule == hf.RulePartialRotary })]
	if row.A.Choice != "ignored" || !slices.Equal(row.A.Dialects, []string{"hf"}) ||
		row.B.Choice != "honoured" || !slices.Equal(row.B.Dialects, []string{"vllm"}) {
		t.Errorf("sides %+v / %+v: want ignored (hf) against honoured (vllm)", row.A, row.B)
	}
	if !slices.Contains(r.Unverified["hf-4.57"], string(hf.RulePartialRotary)) {
		t.Errorf("hf-4.57 unverified %v: want partial_rotary_factor", r.Unverified["hf-4.57"])
	}
	// rot is the NeoX rotation of a 16-dim head at position p over its first rd dims.
	rot := func(rd int, p float64) [16][16]float64 {
		var m [16][16]float64
		for j := range 16 {
			m[j][j] = 1
		}
		h := rd / 2
		for i := range h {
			a := p / math.Pow(10000, float64(2*i)/float64(rd))
			c, s := math.Cos(a), math.Sin(a)
			m[i][i], m[i][i+h], m[i+h][i], m[i+h][i+h] = c, -s, s, c
		}
		return m
	}
	want, at := 0.0, 0
	for p := range 64 {
		whole, half := rot(16, float64(p)), rot(8, float64(p))
		for j := range 16 {
			sum := 0.0
			for i := range 16 {
				d := whole[i][j] - half[i][j]
				sum += d * d
			}
			if v := math.Sqrt(sum); v > want {
				want, at = v, p
			}
		}
	}
	if row.MaxAngleDiff != nil || row.FirstPosition != 1 || math.Abs(row.MaxOutputDiff-want) > 1e-12 || row.MaxOutputAt != at ||
		row.AttentionA != 1 || row.AttentionB != 1 {
		t.Errorf("angle %v, first %d, largest diff %v at %d, attention %v / %v: want n/a, 1, %v at %d, 1 / 1",
			row.MaxAngleDiff, row.FirstPosition, row.MaxOutputDiff, row.MaxOutputAt, row.AttentionA, row.AttentionB, want, at)
	}

	// MiniMax-Text-01 under HF main's MiniMaxConfig reads neither rotary_dim nor
	// partial_rotary_factor: the minimax_rotary_dim row, hf against the rest.
	minimax := writeFile(t, dir, "minimax.json", []byte(`{"model_type":"minimax","hidden_size":6144,"num_attention_heads":64,
		"head_dim":128,"max_position_embeddings":64,"rope_theta":10000000,"partial_rotary_factor":0.5}`))
	code, r, stderr = checkFrameworks(t, "--config", minimax)
	if code != 1 || r == nil {
		t.Fatalf("minimax: exit %d, stderr %q: want 1", code, stderr)
	}
	if got := divergentRules(r); !slices.Equal(got, []hf.Rule{hf.RuleMiniMaxRotaryDim}) {
		t.Fatalf("minimax: divergent rules %v, want [minimax_rotary_dim]", got)
	}
	if row := r.Rows[0]; !slices.Equal(row.A.Dialects, []string{"hf"}) || !slices.Contains(row.B.Dialects, "vllm") || row.MaxAngleDiff != nil {
		t.Errorf("minimax: sides %+v / %+v, angle %v", row.A, row.B, row.MaxAngleDiff)
	}
	_, out, _ := runCLI(t, "check", "--config", llama, "--frameworks")
	if !strings.Contains(out, "partial_rotary_factor: differ") || !strings.Contains(out, "LlamaRotaryEmbedding.compute_default_rope_parameters") {
		t.Errorf("text form:\n%s", out)
	}
}

// TestCheckFrameworksDeepSeekYaRN: a DeepSeek-V3 config whose YaRN gives mscale 0.707 alone
// (factor 40). HF's _compute_yarn_parameters takes the mscale ratio only when both keys are
// given, so 0.1·ln 40 + 1 = 1.3689; vLLM's DeepseekScalingRotaryEmbedding defaults
// mscale_all_dim to 0, so yarn_get_mscale(40, 0.707) / 1 = 1.2608. The frequencies are the same:
// no angle differs, and a unit vector's outputs differ by the attention factors' gap from
// position 0.
func TestCheckFrameworksDeepSeekYaRN(t *testing.T) {
	cfg := writeFile(t, t.TempDir(), "ds.json", []byte(`{"model_type":"deepseek_v3","hidden_size":7168,"num_attention_heads":128,
		"qk_nope_head_dim":128,"qk_rope_head_dim":64,"kv_lora_rank":512,"max_position_embeddings":8192,"rope_theta":10000,
		"rope_scaling":{"type":"yarn","factor":40,"original_max_position_embeddings":4096,"beta_fast":32,"beta_slow":1,"mscale":0.707}}`))
	code, r, stderr := checkFrameworks(t, "--config", cfg)
	if code != 1 || r == nil {
		t.Fatalf("exit %d, stderr %q: want 1", code, stderr)
	}
	if got := divergentRules(r); !slices.Equal(got, []hf.Rule{hf.RuleDeepSeekYaRN}) {
		t.Fatalf("divergent rules %v, want [deepseek_yarn_attention]", got)
	}
	row := r.Rows[0]
	if row.A.Choice != "config" || !slices.Equal(row.A.Dialects, []string{"hf", "hf-4.57"}) ||
		row.B.Choice != "mscale-defaults" || !slices.Equal(row.B.Dialects, []string{"vllm"}) {
		t.Errorf("sides %+v / %+v: want config (hf, hf-4.57) against mscale-defaults (vllm)", row.A, row.B)
	}
	hfAtt, vllmAtt := 0.1*math.Log(40)+1, 0.1*0.707*math.Log(40)+1
	if math.Abs(row.AttentionA-hfAtt) > 1e-15 || math.Abs(row.AttentionB-vllmAtt) > 1e-15 {
		t.Errorf("attention %v vs %v, want %v vs %v", row.AttentionA, row.AttentionB, hfAtt, vllmAtt)
	}
	if row.MaxAngleDiff == nil || *row.MaxAngleDiff != 0 || math.Abs(row.MaxOutputDiff-(hfAtt-vllmAtt)) > 1e-12 || row.FirstPosition != 0 {
		t.Errorf("angle %v, output %v, first %d: want 0, %v, 0", row.MaxAngleDiff, row.MaxOutputDiff, row.FirstPosition, hfAtt-vllmAtt)
	}
	_, out, _ := runCLI(t, "check", "--config", cfg, "--frameworks")
	if !strings.Contains(out, "deepseek_yarn_attention: differ") || !strings.Contains(out, "DeepseekScalingRotaryEmbedding") || !strings.Contains(out, "1.26080378 vs") && !strings.Contains(out, "vs 1.26080378") {
		t.Errorf("text form:\n%s", out)
	}
}
