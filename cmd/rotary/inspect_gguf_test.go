package main

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/gguf"
)

// writeGGUF writes a metadata-only GGUF file (and the tensors given) for arch: the context
// length, embedding length, layer and head counts every model has, then extra.
func writeGGUF(t *testing.T, dir, name, arch string, ctx, embd, layers, heads, kvHeads uint32, extra []gguf.KV, tensors ...gguf.Tensor) string {
	t.Helper()
	kvs := []gguf.KV{
		{Key: "general.architecture", Value: gguf.Str(arch)},
		{Key: arch + ".context_length", Value: gguf.U32(ctx)},
		{Key: arch + ".embedding_length", Value: gguf.U32(embd)},
		{Key: arch + ".block_count", Value: gguf.U32(layers)},
		{Key: arch + ".attention.head_count", Value: gguf.U32(heads)},
		{Key: arch + ".attention.head_count_kv", Value: gguf.U32(kvHeads)},
	}
	b, err := gguf.Write(append(kvs, extra...), tensors)
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, dir, name, b)
}

// llama31Factors is convert_hf_to_gguf.py LlamaModel.generate_extra_tensors's rope_freqs for
// Llama 3.1 (base 500000, 128 dims, factor 8, low 1, high 4, original 8192), as float32 bytes.
func llama31Factors() []byte {
	out := make([]byte, 4*64)
	for i := range 64 {
		freq := 1 / math.Pow(500000, float64(2*i)/128)
		wavelen := 2 * math.Pi / freq
		f := 1.0
		switch {
		case wavelen < 8192/4.0:
		case wavelen > 8192/1.0:
			f = 8
		default:
			smooth := (8192/wavelen - 1) / (4 - 1)
			f = 1 / ((1-smooth)/8 + smooth)
		}
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(float32(f)))
	}
	return out
}

func llama31GGUF(t *testing.T, dir string, base float32) string {
	return writeGGUF(t, dir, "llama31.gguf", "llama", 131072, 4096, 32, 32, 8, []gguf.KV{
		{Key: "llama.rope.dimension_count", Value: gguf.U32(128)},
		{Key: "llama.rope.freq_base", Value: gguf.F32(base)},
	}, gguf.Tensor{Name: gguf.TensorRopeFreqs, Shape: []int64{64}, Type: gguf.TypeF32, Data: llama31Factors()})
}

// qwen35GGUF is Qwen3.5-35B-A3B's RoPE keys as the converter writes them, under arch: qwen35moe
// (llama.cpp: IMRoPE) or, for the mix-up of llama.cpp#19443, an arch llama.cpp reads as MRoPE.
func qwen35GGUF(t *testing.T, dir, arch string) string {
	return writeGGUF(t, dir, arch+".gguf", arch, 262144, 2048, 40, 16, 2, []gguf.KV{
		{Key: arch + ".attention.key_length", Value: gguf.U32(256)},
		{Key: arch + ".rope.dimension_count", Value: gguf.U32(64)},
		{Key: arch + ".rope.freq_base", Value: gguf.F32(1e7)},
		{Key: arch + ".rope.dimension_sections", Value: gguf.I32s(11, 11, 10, 0)},
	})
}

// qwen3VLGGUF is Qwen3-VL-8B's RoPE keys as the converter writes them: mrope_section
// [24, 20, 20] padded with a 0, which llama.cpp's IMROPE reads with pairs 61 and 62 on its
// fourth position row.
func qwen3VLGGUF(t *testing.T, dir string) string {
	return writeGGUF(t, dir, "qwen3vl.gguf", "qwen3vl", 262144, 4096, 36, 32, 8, []gguf.KV{
		{Key: "qwen3vl.attention.key_length", Value: gguf.U32(128)},
		{Key: "qwen3vl.rope.dimension_count", Value: gguf.U32(128)},
		{Key: "qwen3vl.rope.freq_base", Value: gguf.F32(5e6)},
		{Key: "qwen3vl.rope.dimension_sections", Value: gguf.I32s(24, 20, 20, 0)},
	})
}

// TestInspectGGUFIMRoPEFourth: a Qwen3-VL GGUF, which inspect refused ("ggml rotates pair 61 by
// the fourth position"), is shown as llama.cpp's layout: the four sections, the pairs on the
// fourth row, and what llama.cpp feeds that row.
func TestInspectGGUFIMRoPEFourth(t *testing.T) {
	g := qwen3VLGGUF(t, t.TempDir())
	code, out, errOut := runCLI(t, "inspect", g)
	for _, want := range []string{
		"llama.cpp rope type imrope",
		"mrope interleaved [24 20 20 0], pairs 61, 62 on llama.cpp's fourth position row",
		"llm_graph_input_pos::set_input",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("exit %d, want %q in\n%s%s", code, want, out, errOut)
		}
	}
	code, out, _ = runCLI(t, "inspect", g, "--json")
	var r struct {
		MRoPE struct {
			Sections    []int `json:"sections"`
			Interleaved bool  `json:"interleaved"`
			GGMLFourth  bool  `json:"ggml_fourth"`
		} `json:"mrope"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != 0 {
		t.Fatalf("--json: exit %d, %v\n%s", code, err, out)
	}
	if !r.MRoPE.Interleaved || !r.MRoPE.GGMLFourth || len(r.MRoPE.Sections) != 4 {
		t.Errorf("--json mrope %+v\n%s", r.MRoPE, out)
	}
}

// TestInspectGGUF: inspect reads a GGUF file (by extension or by its magic) as llama.cpp does
// and prints the spec as it does a config's, with how the file said it.
func TestInspectGGUF(t *testing.T) {
	dir := t.TempDir()
	g := llama31GGUF(t, dir, 500000)
	code, out, errOut := runCLI(t, "inspect", g)
	for _, want := range []string{
		"general.architecture llama, llama.cpp rope type norm (adjacent pairs 2i, 2i+1)",
		"frequency factors:     rope_freqs.weight",
		"style:                 gptj",
		"base (rope_theta):     500000",
		"max positions:         131072",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("exit %d, want %q in\n%s%s", code, want, out, errOut)
		}
	}
	// Detected by the magic whatever the name.
	renamed := writeFile(t, dir, "model.bin", mustRead(t, g))
	code, out, _ = runCLI(t, "inspect", renamed, "--json")
	var r struct {
		Style     string  `json:"style"`
		RotaryDim int     `json:"rotary_dim"`
		Base      float64 `json:"base"`
		GGUF      struct {
			Architecture  string   `json:"architecture"`
			RopeType      string   `json:"rope_type"`
			FactorTensors []string `json:"factor_tensors"`
		} `json:"gguf"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != 0 {
		t.Fatalf("--json: exit %d, %v\n%s", code, err, out)
	}
	if r.Style != "gptj" || r.RotaryDim != 128 || r.Base != 500000 || r.GGUF.Architecture != "llama" || r.GGUF.RopeType != "norm" || len(r.GGUF.FactorTensors) != 1 {
		t.Errorf("--json: %+v", r)
	}
	code, out, _ = runCLI(t, "inspect", qwen35GGUF(t, dir, "qwen35moe"))
	if code != 0 || !strings.Contains(out, "llama.cpp rope type imrope") || !strings.Contains(out, "mrope interleaved [11 11 10]") {
		t.Errorf("qwen35moe: exit %d\n%s", code, out)
	}
}

func TestInspectGGUFErrors(t *testing.T) {
	dir := t.TempDir()
	g := llama31GGUF(t, dir, 500000)
	whole := mustRead(t, g)
	truncated := writeFile(t, dir, "cut.gguf", whole[:len(whole)-3])
	vision := writeGGUF(t, dir, "mmproj.gguf", "clip", 1, 1, 1, 1, 1, []gguf.KV{{Key: "clip.projector_type", Value: gguf.Str("qwen2.5vl_merger")}})
	unknown := writeGGUF(t, dir, "unknown.gguf", "nosuch", 4096, 4096, 1, 32, 32, nil)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"inspect", truncated}, `"rope_freqs.weight"`},
		{[]string{"inspect", vision}, "GGML_ROPE_TYPE_VISION"},
		{[]string{"inspect", unknown}, `"nosuch"`},
		{[]string{"inspect", g, "--layer", "32"}, "--layer 32"},
		{[]string{"inspect", g, "--rope", "indexer"}, "one RoPE"},
		{[]string{"inspect", g, "--style", "neox"}, "llama.cpp's"},
		{[]string{"inspect", writeFile(t, dir, "empty.gguf", nil)}, "magic"},
	} {
		code, out, errOut := runCLI(t, c.args...)
		if code != 2 || out != "" || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q: want 2 and one line mentioning %q", c.args, code, out, errOut, c.want)
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestInspectGGUFRefusesAPreset: a GGUF file is the model, so --model beside it (or --as, a
// framework's reading of a config) is refused rather than ignored, with nothing printed.
func TestInspectGGUFRefusesAPreset(t *testing.T) {
	dir := t.TempDir()
	path := writeGGUF(t, dir, "m.gguf", "llama", 4096, 4096, 2, 32, 8, []gguf.KV{{Key: "llama.rope.freq_base", Value: gguf.F32(10000)}})
	for _, args := range [][]string{
		{"inspect", path, "--model", "qwen3-8b"},
		{"inspect", "--model", "qwen3-8b", path},
		{"inspect", path, "--as", "vllm"},
	} {
		code, out, errOut := runCLI(t, args...)
		if code != 2 || out != "" || errOut == "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q: want exit 2", args, code, out, errOut)
		}
	}
	if code, out, errOut := runCLI(t, "inspect", path); code != 0 || !strings.Contains(out, "source:") {
		t.Errorf("inspect FILE.gguf: exit %d\n%s%s", code, out, errOut)
	}
}
