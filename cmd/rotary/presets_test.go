package main

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// TestApplyEveryPreset drives `rotary apply --model NAME --layer L` on every embedded config, on
// one layer of each kind the model has (each distinct per-layer RoPE, and a layer without
// RoPE): applyEveryLayerKind.
func TestApplyEveryPreset(t *testing.T) {
	for _, name := range hf.PresetNames() {
		m, err := hf.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		applyEveryLayerKind(t, name, m, "--model", name)
	}
}

// TestApplyFamiliesWithoutPresets: the same for the families whose published config.json no
// preset holds, on configs shaped like theirs (transformers' config classes at the mirror's
// decba1d): DeepSeek-V4's two RoPEs over the rope slice, Mistral 4's MLA YaRN.
func TestApplyFamiliesWithoutPresets(t *testing.T) {
	dir := t.TempDir()
	for name, cfg := range map[string]string{
		"deepseek_v4": `{"model_type": "deepseek_v4", "hidden_size": 4096, "num_hidden_layers": 4, "num_attention_heads": 64,
			"num_key_value_heads": 1, "head_dim": 512, "qk_rope_head_dim": 64, "max_position_embeddings": 1048576, "rope_theta": 10000,
			"compress_rope_theta": 160000, "compress_ratios": [0, 0, 4, 128],
			"rope_scaling": {"type": "yarn", "factor": 16, "original_max_position_embeddings": 65536, "beta_fast": 32, "beta_slow": 1}}`,
		"mistral4": `{"model_type": "mistral4", "hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": 2,
			"qk_rope_head_dim": 64, "qk_nope_head_dim": 64}`,
	} {
		path := writeFile(t, dir, name+".json", []byte(cfg))
		m, err := hf.LoadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		applyEveryLayerKind(t, name, m, "--config", path)
	}
}

// applyEveryLayerKind runs apply on one layer of each kind of model m (the model flags in
// model), F32 and BF16, and checks the result against float64 math from that layer's inv_freq:
// rotated pairs per the accuracy contract, pass-through elements (and frequency-0 pairs, whose
// exact result is the input) bit for bit, layers without RoPE unchanged.
func applyEveryLayerKind(t *testing.T, name string, m *hf.Model, model ...string) {
	t.Helper()
	pos := []int64{0, 1, 4097, 65535, 1<<20 - 1}
	const T, H, K = 5, 2, 1
	for _, layer := range distinctLayers(t, m) {
		spec, err := m.Spec.ForLayer(layer)
		if err != nil {
			t.Fatal(err)
		}
		D := spec.HeadSize
		for _, d := range []tensor.DType{tensor.F32, tensor.BF16} {
			label := fmt.Sprintf("%s layer %d %v", name, layer, d)
			dir := t.TempDir()
			in := writeTensors(t, dir, "in.safetensors",
				safetensors.FromInt64s("positions", []int{T}, pos),
				encodeAs(d, "query", []int{T, H, D}, randomHeads(T*H*D, 3)),
				encodeAs(d, "key", []int{T, K * D}, randomHeads(T*K*D, 4)))
			out := filepath.Join(dir, "out.safetensors")
			args := append([]string{"apply", "--layer", strconv.Itoa(layer), "--in", in, "--out", out}, model...)
			if code, _, stderr := runCLI(t, args...); code != 0 {
				t.Fatalf("%s: exit %d: %s", label, code, stderr)
			}
			inF, err := safetensors.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			outF, err := safetensors.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			for _, tn := range []string{"query", "key"} {
				src, _ := inF.Get(tn)
				got, ok := outF.Get(tn)
				if !ok || got.DType != src.DType || !slicesEqual(got.Shape, src.Shape) {
					t.Fatalf("%s: %s missing or reshaped", label, tn)
				}
				if spec.NoRoPE {
					if !bytes.Equal(got.Data, src.Data) {
						t.Errorf("%s: %s changed on a layer without RoPE", label, tn)
					}
					continue
				}
				at := pos
				if c := spec.DualChunk; c != nil {
					// Keys and intra-chunk queries rotate at p mod (chunk − local).
					at = make([]int64, len(pos))
					for i, p := range pos {
						at[i] = p % int64(c.ChunkSize-c.LocalSize)
					}
				}
				checkRotation(t, label+" "+tn, d, D, spec.RotaryDim, spec.Style == rotary.GPTJ, at, decode(t, src), decode(t, got),
					func(int64) ([]float64, float64) { return spec.Frequencies(int(maxOf(pos))) })
			}
		}
	}
}

// distinctLayers is the first layer of each kind of per-layer RoPE the model has.
func distinctLayers(t *testing.T, m *hf.Model) []int {
	t.Helper()
	n := max(m.NumLayers, 1)
	seen := map[string]bool{}
	var out []int
	for l := range n {
		s, err := m.Spec.ForLayer(l)
		if err != nil {
			t.Fatalf("%s: ForLayer(%d): %v", m.ModelType, l, err)
		}
		key := fmt.Sprintf("%t %d %d %v %+v", s.NoRoPE, s.HeadSize, s.RotaryDim, s.Base, s.Scaling)
		if !seen[key] {
			seen[key] = true
			out = append(out, l)
		}
	}
	return out
}

// TestGemma4CacheAndInspect: on Gemma 4's full layers, cache writes the 512-wide table whose
// pairs past the 64 rotated ones are cos 1, sin 0 at every position (HF
// _compute_proportional_rope_parameters pads inv_freq with zeros), and inspect says which dims
// rotate; its sliding layers get a 256-wide default table.
func TestGemma4CacheAndInspect(t *testing.T) {
	dir := t.TempDir()
	const rows = 1 << 10
	for _, c := range []struct {
		layer         string
		width, pairs  int
		base          float64
		inspectSaysIt string
	}{
		{"5", 512, 64, 1e6, "pairs 0..63 rotate (dims 0..63 with 256..319); the other 192 pairs have frequency 0"},
		{"0", 256, 128, 1e4, "sliding_attention (its own RoPE"},
	} {
		out := filepath.Join(dir, "cache"+c.layer+".safetensors")
		if code, _, stderr := runCLI(t, "cache", "--model", "gemma-4-31b", "--layer", c.layer, "--out", out, "--positions", strconv.Itoa(rows)); code != 0 {
			t.Fatalf("layer %s: exit %d: %s", c.layer, code, stderr)
		}
		f, err := safetensors.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		cache, _ := f.Get("cos_sin_cache")
		inv, _ := f.Get("inv_freq")
		if !slicesEqual(cache.Shape, []int{rows, c.width}) || !slicesEqual(inv.Shape, []int{c.width / 2}) {
			t.Fatalf("layer %s: cos_sin_cache %v, inv_freq %v: want [%d %d], [%d]", c.layer, cache.Shape, inv.Shape, rows, c.width, c.width/2)
		}
		cs, _ := cache.Float32s()
		iv, _ := inv.Float64s()
		h := c.width / 2
		for i := range h {
			want := 0.0
			if i < c.pairs {
				want = 1 / math.Pow(c.base, float64(2*i)/float64(c.width))
			}
			if math.Abs(iv[i]-want) > 1e-15*want || (want == 0) != (iv[i] == 0) {
				t.Fatalf("layer %s: inv_freq[%d] = %v, want %v", c.layer, i, iv[i], want)
			}
			for p := range rows {
				s, co := math.Sincos(float64(p) * iv[i])
				if cs[p*c.width+i] != float32(co) || cs[p*c.width+h+i] != float32(s) {
					t.Fatalf("layer %s: row %d pair %d: cos %v sin %v, want %v %v", c.layer, p, i, cs[p*c.width+i], cs[p*c.width+h+i], float32(co), float32(s))
				}
			}
		}
		if code, stdout, _ := runCLI(t, "inspect", "--model", "gemma-4-31b", "--layer", c.layer); code != 0 || !strings.Contains(stdout, c.inspectSaysIt) || !strings.Contains(stdout, fmt.Sprintf("head size:             %d", c.width)) {
			t.Errorf("layer %s: inspect exit %d:\n%s\nwant %q and head size %d", c.layer, code, stdout, c.inspectSaysIt, c.width)
		}
	}
}

// TestPresetsListing: `rotary presets` lines up its columns however long a preset's name is, and
// names each per-layer model's actual rules, never a local base of 0 for models that have none
// (Gemma 4's layer types, Llama 4's and SmolLM3's layers without RoPE).
func TestPresetsListing(t *testing.T) {
	code, out, errOut := runCLI(t, "presets")
	if code != 0 {
		t.Fatalf("presets: exit %d, stderr %q", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(hf.PresetNames()) {
		t.Fatalf("%d lines, want one per preset (%d)", len(lines), len(hf.PresetNames()))
	}
	// The third column (the scaling) starts at one offset on every line.
	col := -1
	for _, line := range lines {
		f := strings.Fields(line)
		if len(f) < 3 {
			t.Fatalf("line %q: want name, model_type, scaling", line)
		}
		at := strings.Index(line[len(f[0]):], " "+f[2]) + len(f[0]) + 1
		if col < 0 {
			col = at
		} else if at != col {
			t.Errorf("line %q: scaling starts at column %d, want %d", line, at, col)
		}
		if strings.Contains(line, "base 0") {
			t.Errorf("line %q names a base of 0", line)
		}
	}
	for name, want := range map[string]string{
		"gemma-3-4b":            "per-layer local base 10000",
		"gemma-4-e2b":           "per-layer sliding_attention base 10000",
		"llama-4-scout-17b-16e": "per-layer 12 of 48 layers without RoPE",
		"smollm3-3b":            "per-layer 9 of 36 layers without RoPE",
	} {
		found := false
		for _, line := range lines {
			if strings.HasPrefix(line, name+" ") {
				found = true
				if !strings.HasSuffix(line, want) {
					t.Errorf("%s: %q, want it to end in %q", name, line, want)
				}
			}
		}
		if !found {
			t.Errorf("%s: not listed", name)
		}
	}
}
