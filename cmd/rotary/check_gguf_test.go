package main

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/check"
	"github.com/rotary-go/rotary/gguf"
	"github.com/rotary-go/rotary/hf"
)

// TestCheckGGUFAlike: Llama 3.1's GGUF (norm pairing on the converter's permuted q/k, the
// llama3 scaling as rope_freqs) rotates as its config does, to float32 noise: exit 0.
func TestCheckGGUFAlike(t *testing.T) {
	dir := t.TempDir()
	g := llama31GGUF(t, dir, 500000)
	code, out, errOut := runCLI(t, "check", "--gguf", g, "--model", "llama-3.1-8b")
	if code != 0 || !strings.Contains(out, "ok: the GGUF and the config differ only by float32 rounding") ||
		!strings.Contains(out, "scaling: alike to the float32 rounding") || !strings.Contains(out, "LlamaModel.permute") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = runCLI(t, "check", "--gguf", qwen35GGUF(t, dir, "qwen35moe"), "--model", "qwen3.5-35b-a3b")
	if code != 0 || !strings.Contains(out, "ok: the GGUF and the config give the same RoPE") {
		t.Fatalf("qwen35moe: exit %d\n%s", code, out)
	}
}

// TestCheckGGUFLongRoPE: Phi-3-mini-128k as convert_hf_to_gguf.py Phi3MiniModel writes it (the
// long and short factors as tensors, attn_factor √(1 + ln(max/original)/ln original)) rotates
// as its config does, to the float32 the file stores.
func TestCheckGGUFLongRoPE(t *testing.T) {
	js, err := hf.PresetJSON("phi-3-mini-128k")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		RopeScaling struct {
			Long  []float64 `json:"long_factor"`
			Short []float64 `json:"short_factor"`
		} `json:"rope_scaling"`
	}
	if err := json.Unmarshal(js, &cfg); err != nil {
		t.Fatal(err)
	}
	f32 := func(v []float64) []byte {
		b := make([]byte, 4*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(x)))
		}
		return b
	}
	attn := math.Sqrt(1 + math.Log(131072.0/4096)/math.Log(4096))
	g := writeGGUF(t, t.TempDir(), "phi3.gguf", "phi3", 131072, 3072, 32, 32, 32, []gguf.KV{
		{Key: "phi3.rope.dimension_count", Value: gguf.U32(96)},
		{Key: "phi3.rope.scaling.attn_factor", Value: gguf.F32(float32(attn))},
		{Key: "phi3.rope.scaling.original_context_length", Value: gguf.U32(4096)},
	}, gguf.Tensor{Name: gguf.TensorRopeFactorsLong, Shape: []int64{48}, Type: gguf.TypeF32, Data: f32(cfg.RopeScaling.Long)},
		gguf.Tensor{Name: gguf.TensorRopeFactorsShort, Shape: []int64{48}, Type: gguf.TypeF32, Data: f32(cfg.RopeScaling.Short)})
	code, out, errOut := runCLI(t, "check", "--gguf", g, "--model", "phi-3-mini-128k")
	if code != 0 || !strings.Contains(out, "scaling: alike to the float32 rounding") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
}

// TestCheckGGUFQwen35MRoPE: Qwen3.5 converted to an architecture llama.cpp rotates with
// chunked MRoPE instead of IMRoPE (llama.cpp#19443: Qwen3.5 "actually inherits from Qwen3VL
// ... we need IMROPE") differs from its config on the sections rule: exit 1 naming it.
func TestCheckGGUFQwen35MRoPE(t *testing.T) {
	g := qwen35GGUF(t, t.TempDir(), "qwen2vl")
	code, out, errOut := runCLI(t, "check", "--gguf", g, "--model", "qwen3.5-35b-a3b")
	if code != 1 || !strings.Contains(out, "multimodal sections: differ") ||
		!strings.Contains(out, "chunked [11 11 10] (llama.cpp rope type mrope)") || !strings.Contains(out, "interleaved [11 11 10]") ||
		!strings.Contains(out, "text positions rotate alike") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = runCLI(t, "check", "--gguf", g, "--model", "qwen3.5-35b-a3b", "--json")
	var r check.GGUFReport
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != 1 || r.Alike || r.RopeType != "mrope" {
		t.Fatalf("--json: exit %d, %v\n%s", code, err, out)
	}
	// Pairs 1, 2, 4, 5, ... take h and w in Qwen3.5's interleave; the chunked sections give
	// pairs 0..10 t, 11..21 h, 22..31 w: 21 of 32 pairs differ (hand count below).
	want := 0
	for i := range 32 {
		inter := 0
		switch {
		case i%3 == 1 && i < 33:
			inter = 1
		case i%3 == 2 && i < 30:
			inter = 2
		}
		chunk := 0
		switch {
		case i >= 22:
			chunk = 2
		case i >= 11:
			chunk = 1
		}
		if inter != chunk {
			want++
		}
	}
	if len(r.Rows) != 1 || r.Rows[0].Rule != "multimodal sections" || !strings.HasPrefix(r.Rows[0].Structure, strconv.Itoa(want)+" of 32 pairs") {
		t.Errorf("rows %+v, want one sections row with %d of 32 pairs", r.Rows, want)
	}
}

// TestCheckGGUFIMRoPEFourth: Qwen3-VL's GGUF against its config, which check refused: llama.cpp's
// IMROPE turns pairs 61 and 62 by its fourth position row, which it fills with 0 for text
// tokens, where HF turns them by the temporal position. The finding names the pairs, what text
// tokens get there, and the consequence at text positions: angle p·inv_freq[61] at the largest
// position, first beyond float32 noise where 2·sin(p·inv_freq[61]/2) passes 2^-22.
func TestCheckGGUFIMRoPEFourth(t *testing.T) {
	g := qwen3VLGGUF(t, t.TempDir())
	code, out, errOut := runCLI(t, "check", "--gguf", g, "--model", "qwen3-vl-8b")
	for _, want := range []string{
		"multimodal sections: differ",
		"interleaved [24 20 20 0], pairs 61, 62 on llama.cpp's fourth position row (llama.cpp rope type imrope)",
		"interleaved [24 20 20]",
		"pairs 61, 62 take llama.cpp's fourth position where HF takes t (the temporal position)",
		"text tokens",
		"llm_graph_input_pos::set_input",
		"first differs at",
	} {
		if code != 1 || !strings.Contains(out, want) {
			t.Fatalf("exit %d, want %q in\n%s%s", code, want, out, errOut)
		}
	}
	code, out, _ = runCLI(t, "check", "--gguf", g, "--model", "qwen3-vl-8b", "--json")
	var r check.GGUFReport
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != 1 || r.Alike || r.RopeType != "imrope" {
		t.Fatalf("--json: exit %d, %v\n%s", code, err, out)
	}
	if len(r.Rows) != 1 || r.Rows[0].Rule != "multimodal sections" {
		t.Fatalf("rows %+v, want the sections row alone", r.Rows)
	}
	row := r.Rows[0]
	// Pair 61 is the faster of the two: inv_freq = 5e6^(-122/128).
	inv61 := math.Pow(5e6, -122.0/128)
	wantAngle := inv61 * 262143
	first := 0
	for 2*math.Sin(float64(first)*inv61/2) <= 0x1p-22 {
		first++
	}
	if !row.Divergent || row.MaxAngleDiff == nil || math.Abs(*row.MaxAngleDiff-wantAngle) > 1e-9*wantAngle ||
		row.MaxAngleAt != 262143 || row.Positions != 262144 || row.FirstPosition != first {
		t.Errorf("row %+v (max angle %v): want angle %.9g at 262143, first differing position %d", row, deref(row.MaxAngleDiff), wantAngle, first)
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestCheckGGUFDiffers: a base written wrong and a YaRN the converter left out are each a row
// with its consequence: the first position where the outputs differ and the largest angle.
func TestCheckGGUFDiffers(t *testing.T) {
	dir := t.TempDir()
	code, out, _ := runCLI(t, "check", "--gguf", llama31GGUF(t, dir, 10000), "--model", "llama-3.1-8b", "--json")
	var r check.GGUFReport
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != 1 {
		t.Fatalf("exit %d, %v\n%s", code, err, out)
	}
	var base *check.GGUFRow
	for i := range r.Rows {
		if r.Rows[i].Rule == "base" {
			base = &r.Rows[i]
		}
	}
	if base == nil || !base.Divergent || base.FirstPosition != 1 || base.MaxAngleDiff == nil || *base.MaxAngleDiff <= 1 {
		t.Fatalf("base row %+v\n%s", base, out)
	}
	cfg := writeFile(t, dir, "qwen3-yarn.json", []byte(`{"model_type": "qwen3", "hidden_size": 4096, "head_dim": 128,
		"num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 36, "max_position_embeddings": 16384,
		"rope_theta": 1000000, "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096}}`))
	g := writeGGUF(t, dir, "qwen3.gguf", "qwen3", 16384, 4096, 36, 32, 8, []gguf.KV{
		{Key: "qwen3.attention.key_length", Value: gguf.U32(128)},
		{Key: "qwen3.rope.freq_base", Value: gguf.F32(1e6)},
	})
	code, out, _ = runCLI(t, "check", "--gguf", g, "--config", cfg)
	if code != 1 || !strings.Contains(out, "scaling: differ") || !strings.Contains(out, "yarn factor=4") || !strings.Contains(out, "first differs at") {
		t.Fatalf("yarn left out: exit %d\n%s", code, out)
	}
	g = writeGGUF(t, dir, "qwen3-yarn.gguf", "qwen3", 16384, 4096, 36, 32, 8, []gguf.KV{
		{Key: "qwen3.attention.key_length", Value: gguf.U32(128)},
		{Key: "qwen3.rope.freq_base", Value: gguf.F32(1e6)},
		{Key: "qwen3.rope.scaling.type", Value: gguf.Str("yarn")},
		{Key: "qwen3.rope.scaling.factor", Value: gguf.F32(4)},
		{Key: "qwen3.rope.scaling.original_context_length", Value: gguf.U32(4096)},
	})
	if code, out, _ = runCLI(t, "check", "--gguf", g, "--config", cfg); code != 0 {
		t.Fatalf("yarn written: exit %d\n%s", code, out)
	}
}

// TestCheckGGUFYaRNTruncate: gpt-oss's YaRN has truncate false; ggml_rope_yarn_corr_dims
// always floors and ceils the correction range, so llama.cpp's gpt-oss rotates differently
// from HF's: exit 1 on the scaling rule, alike before the ramp's pairs matter.
func TestCheckGGUFYaRNTruncate(t *testing.T) {
	g := writeGGUF(t, t.TempDir(), "gpt-oss.gguf", "gpt-oss", 131072, 2880, 24, 64, 8, []gguf.KV{
		{Key: "gpt-oss.attention.key_length", Value: gguf.U32(64)},
		{Key: "gpt-oss.rope.freq_base", Value: gguf.F32(150000)},
		{Key: "gpt-oss.rope.scaling.type", Value: gguf.Str("yarn")},
		{Key: "gpt-oss.rope.scaling.factor", Value: gguf.F32(32)},
		{Key: "gpt-oss.rope.scaling.original_context_length", Value: gguf.U32(4096)},
	})
	code, out, _ := runCLI(t, "check", "--gguf", g, "--model", "gpt-oss-20b", "--json")
	var r check.GGUFReport
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != 1 || len(r.Rows) != 1 {
		t.Fatalf("exit %d, %v\n%s", code, err, out)
	}
	row := r.Rows[0]
	if row.Rule != "scaling" || !row.Divergent || row.FirstPosition < 1 || row.MaxAngleDiff == nil || *row.MaxAngleDiff < 1e-3 ||
		!strings.Contains(row.Config, "truncate false") || !strings.Contains(row.GGUF, "truncate true") {
		t.Errorf("row %+v", row)
	}
}

// TestCheckGGUFDeepSeekMLA: DeepSeek-V3 as DeepseekV2Model converts it (the rope part of an MLA
// head as dimension_count, yarn_log_multiplier 0.1·mscale_all_dim) rotates as its config does:
// the same 64 dims GPT-J-wise, the same YaRN and attention factor 1.
func TestCheckGGUFDeepSeekMLA(t *testing.T) {
	g := writeGGUF(t, t.TempDir(), "dsv3.gguf", "deepseek2", 163840, 7168, 61, 128, 1, []gguf.KV{
		{Key: "deepseek2.attention.key_length", Value: gguf.U32(576)},
		{Key: "deepseek2.attention.kv_lora_rank", Value: gguf.U32(512)},
		{Key: "deepseek2.rope.dimension_count", Value: gguf.U32(64)},
		{Key: "deepseek2.rope.freq_base", Value: gguf.F32(10000)},
		{Key: "deepseek2.rope.scaling.type", Value: gguf.Str("yarn")},
		{Key: "deepseek2.rope.scaling.factor", Value: gguf.F32(40)},
		{Key: "deepseek2.rope.scaling.original_context_length", Value: gguf.U32(4096)},
		{Key: "deepseek2.rope.scaling.yarn_log_multiplier", Value: gguf.F32(0.1)},
	})
	code, out, errOut := runCLI(t, "check", "--gguf", g, "--model", "deepseek-v3")
	if code != 0 || !strings.Contains(out, "ok: the GGUF and the config give the same RoPE") || !strings.Contains(out, "multi-head latent attention") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
}

// TestCheckGGUFNoPE: llama.cpp's llama4 leaves every fourth layer unrotated as Llama 4's
// no_rope_layers does; a GGUF whose sliding window is 0 rotates all but the last, a row of its
// own.
func TestCheckGGUFNoPE(t *testing.T) {
	dir := t.TempDir()
	extra := []gguf.KV{
		{Key: "llama4.attention.key_length", Value: gguf.U32(128)},
		{Key: "llama4.rope.freq_base", Value: gguf.F32(500000)},
	}
	freqs := gguf.Tensor{Name: gguf.TensorRopeFreqs, Shape: []int64{64}, Type: gguf.TypeF32, Data: llama31Factors()}
	g := writeGGUF(t, dir, "scout.gguf", "llama4", 262144, 5120, 48, 40, 8, extra, freqs)
	code, out, _ := runCLI(t, "check", "--gguf", g, "--model", "llama-4-scout-17b-16e")
	if code != 0 || strings.Contains(out, "layers without RoPE: differ") {
		t.Fatalf("NoPE layers reported different: exit %d\n%s", code, out)
	}
	g = writeGGUF(t, dir, "scout-all.gguf", "llama4", 262144, 5120, 48, 40, 8, append(extra, gguf.KV{Key: "llama4.attention.sliding_window", Value: gguf.U32(0)}), freqs)
	code, out, _ = runCLI(t, "check", "--gguf", g, "--model", "llama-4-scout-17b-16e")
	if code != 1 || !strings.Contains(out, "layers without RoPE: differ") || !strings.Contains(out, "config (HF)            [3 7 11") ||
		!strings.Contains(out, "gguf (llama.cpp)       [47]") {
		t.Fatalf("sliding window 0: exit %d\n%s", code, out)
	}
}

func TestCheckGGUFUsage(t *testing.T) {
	dir := t.TempDir()
	g := llama31GGUF(t, dir, 500000)
	bad := writeFile(t, dir, "bad.gguf", []byte("GGUF\x03\x00\x00\x00"))
	vision := writeGGUF(t, dir, "mmproj.gguf", "clip", 1, 1, 1, 1, 1, []gguf.KV{{Key: "clip.projector_type", Value: gguf.Str("qwen2vl_merger")}})
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "--gguf", g}, "--config: missing"},
		{[]string{"check", "--gguf", g, "--model", "llama-3.1-8b", "--op", "npu_mrope"}, "launch flags"},
		{[]string{"check", "--gguf", g, "--model", "llama-3.1-8b", "--precision"}, "give one"},
		{[]string{"check", "--gguf", bad, "--model", "llama-3.1-8b"}, "tensor count"},
		{[]string{"check", "--gguf", vision, "--model", "qwen2-vl-7b"}, "vision"},
		{[]string{"check", "--gguf", dir, "--model", "llama-3.1-8b"}, "not a regular file"},
	} {
		code, out, errOut := runCLI(t, c.args...)
		if code != 2 || out != "" || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q: want 2 and one line mentioning %q", c.args, code, out, errOut, c.want)
		}
	}
}
