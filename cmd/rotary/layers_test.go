package main

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// noRoPEConfigs are small configs shaped like the real ones, each with a layer that has no RoPE
// and a layer that has.
var noRoPEConfigs = []struct {
	name, cfg       string
	nope, rotated   string // --layer values
	headSize, heads int
}{
	{"llama4", `{"model_type": "llama4", "text_config": {"model_type": "llama4_text", "hidden_size": 512, "head_dim": 64,
		"num_attention_heads": 8, "num_key_value_heads": 2, "num_hidden_layers": 4, "max_position_embeddings": 8192,
		"rope_theta": 500000.0, "no_rope_layers": [1, 1, 1, 0]}}`, "3", "2", 64, 8},
	{"smollm3", `{"model_type": "smollm3", "hidden_size": 512, "num_attention_heads": 8, "num_key_value_heads": 2,
		"num_hidden_layers": 8, "max_position_embeddings": 65536, "rope_theta": 5000000.0, "no_rope_layer_interval": 4}`, "7", "6", 64, 8},
	{"cohere2", `{"model_type": "cohere2", "hidden_size": 512, "num_attention_heads": 8, "num_key_value_heads": 2,
		"num_hidden_layers": 8, "max_position_embeddings": 8192, "rope_theta": 50000, "sliding_window": 4096,
		"sliding_window_pattern": 4}`, "3", "0", 64, 8},
	{"exaone4", `{"model_type": "exaone4", "hidden_size": 512, "head_dim": 64, "num_attention_heads": 8, "num_key_value_heads": 2,
		"num_hidden_layers": 4, "max_position_embeddings": 131072, "rope_theta": 1000000, "sliding_window": 4096,
		"layer_types": ["sliding_attention", "sliding_attention", "sliding_attention", "full_attention"]}`, "3", "1", 64, 8},
}

// TestApplyNoRoPELayer: apply --layer on a layer without RoPE writes query and key bit for bit
// as read (NaN payloads, signed zeros, infinities), through both rotary_embedding and the
// hoisted gather, and says so in one stderr line; the model's RoPE layers still rotate; inspect
// says the layer has none and cache refuses.
func TestApplyNoRoPELayer(t *testing.T) {
	specials := []float32{float32(math.NaN()), math.Float32frombits(0x7fa00001), float32(math.Copysign(0, -1)), float32(math.Inf(-1)), 1e-40}
	for _, c := range noRoPEConfigs {
		dir := t.TempDir()
		cfg := writeFile(t, dir, "config.json", []byte(c.cfg))
		for _, d := range []tensor.DType{tensor.F32, tensor.BF16, tensor.F16} {
			const T = 3
			q := randomHeads(T*c.heads*c.headSize, 5)
			k := randomHeads(T*2*c.headSize, 6)
			copy(q[7:], specials)
			copy(k[c.headSize-len(specials):], specials)
			in := writeTensors(t, dir, "in.safetensors",
				safetensors.FromInt64s("positions", []int{T}, []int64{0, 5, 1 << 30}),
				encodeAs(d, "query", []int{T, c.heads, c.headSize}, q),
				encodeAs(d, "key", []int{T, 2 * c.headSize}, k))
			inF, err := safetensors.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			for _, op := range []string{"rotary_embedding", "rotary_embedding_gathered"} {
				out := filepath.Join(dir, "out.safetensors")
				code, stdout, stderr := runCLI(t, "apply", "--config", cfg, "--in", in, "--out", out, "--layer", c.nope, "--op", op)
				if code != 0 {
					t.Fatalf("%s %v %s: exit %d: %s", c.name, d, op, code, stderr)
				}
				if lines := strings.Split(strings.TrimSpace(stderr), "\n"); len(lines) != 1 || !strings.Contains(stderr, "layer "+c.nope+" has no RoPE") || stdout != "" {
					t.Errorf("%s %v %s: stderr %q, want one line saying the layer has no RoPE", c.name, d, op, stderr)
				}
				outF, err := safetensors.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				for _, name := range []string{"query", "key"} {
					src, _ := inF.Get(name)
					got, ok := outF.Get(name)
					if !ok || got.DType != src.DType || !slicesEqual(got.Shape, src.Shape) || !bytes.Equal(got.Data, src.Data) {
						t.Errorf("%s %v %s: %s not written bit for bit unchanged", c.name, d, op, name)
					}
				}
			}
			// A RoPE layer of the same model does rotate (and warns about the position past
			// max_position_embeddings, which the layer without RoPE has no table to look up).
			out := filepath.Join(dir, "rotated.safetensors")
			code, _, stderr := runCLI(t, "apply", "--config", cfg, "--in", in, "--out", out, "--layer", c.rotated)
			if code != 0 || strings.Contains(stderr, "no RoPE") {
				t.Fatalf("%s layer %s: exit %d: %q", c.name, c.rotated, code, stderr)
			}
			outF, _ := safetensors.ReadFile(out)
			src, _ := inF.Get("query")
			if got, _ := outF.Get("query"); bytes.Equal(got.Data, src.Data) {
				t.Errorf("%s layer %s: query unchanged, want it rotated", c.name, c.rotated)
			}
		}
		if code, out, stderr := runCLI(t, "inspect", cfg, "--layer", c.nope); code != 0 || !strings.Contains(out, "no RoPE on this layer") || strings.Contains(out, "inv_freq") {
			t.Errorf("%s inspect: exit %d: %s%s", c.name, code, out, stderr)
		}
		if code, out, _ := runCLI(t, "inspect", cfg, "--layer", c.nope, "--json"); code != 0 || !strings.Contains(out, `"no_rope": true`) || !strings.Contains(out, `"cache_len": 0`) {
			t.Errorf("%s inspect --json: exit %d: %s", c.name, code, out)
		}
		if code, out, _ := runCLI(t, "inspect", cfg, "--layer", c.rotated); code != 0 || strings.Contains(out, "no RoPE") || !strings.Contains(out, "inv_freq") {
			t.Errorf("%s inspect of a RoPE layer: exit %d: %s", c.name, code, out)
		}
		out := filepath.Join(dir, "cache.safetensors")
		if code, _, stderr := runCLI(t, "cache", "--config", cfg, "--out", out, "--layer", c.nope); code != 2 || !strings.Contains(stderr, "no RoPE") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%s cache of a layer without RoPE: exit %d: %q", c.name, code, stderr)
		}
		if code, _, stderr := runCLI(t, "cache", "--config", cfg, "--out", out, "--layer", c.rotated, "--positions", "4"); code != 0 {
			t.Errorf("%s cache of a RoPE layer: exit %d: %s", c.name, code, stderr)
		}
	}
}

// TestOlmo3LayersFloat64: apply --layer on OLMo 3 rotates sliding layers with plain RoPE at
// 500000 and full layers with YaRN, each checked against a float64 evaluation written from
// HF's formulas (_compute_default_rope_parameters and _compute_yarn_parameters in
// modeling_rope_utils.py), not from the library.
func TestOlmo3LayersFloat64(t *testing.T) {
	const (
		D                = 128
		base             = 500000.0
		factor           = 8.0
		original         = 8192
		attentionFactor  = 1.2079441541679836
		betaFast, betaSl = 32.0, 1.0
	)
	cfg := `{"model_type": "olmo3", "hidden_size": 512, "num_attention_heads": 4, "num_key_value_heads": 4,
		"num_hidden_layers": 4, "max_position_embeddings": 65536, "rope_theta": 500000, "sliding_window": 4096,
		"rope_scaling": {"rope_type": "yarn", "factor": 8.0, "original_max_position_embeddings": 8192,
		"attention_factor": 1.2079441541679836, "beta_fast": 32.0, "beta_slow": 1.0}}`
	plain := make([]float64, D/2)
	for i := range plain {
		plain[i] = 1 / math.Pow(base, float64(2*i)/D)
	}
	// YaRN: blend the interpolated (inv/factor) and extrapolated (inv) frequencies with a ramp
	// over the dims between the beta_fast and beta_slow correction dims.
	corr := func(rot float64) float64 { return D * math.Log(original/(rot*2*math.Pi)) / (2 * math.Log(base)) }
	low, high := max(math.Floor(corr(betaFast)), 0), min(math.Ceil(corr(betaSl)), D-1)
	if low == high {
		high += 0.001
	}
	yarn := make([]float64, D/2)
	for i := range yarn {
		ramp := min(max((float64(i)-low)/(high-low), 0), 1)
		extrapolation := 1 - ramp
		yarn[i] = plain[i]/factor*(1-extrapolation) + plain[i]*extrapolation
	}
	dir := t.TempDir()
	path := writeFile(t, dir, "olmo3.json", []byte(cfg))
	pos := []int64{0, 1, 4095, 8191, 60000}
	T, H := len(pos), 4
	x := randomHeads(T*H*D, 9)
	for _, d := range []tensor.DType{tensor.F32, tensor.BF16} {
		in := writeTensors(t, dir, "in.safetensors", safetensors.FromInt64s("positions", []int{T}, pos), encodeAs(d, "query", []int{T, H, D}, x))
		inF, _ := safetensors.ReadFile(in)
		src, _ := inF.Get("query")
		for _, c := range []struct {
			layer string
			inv   []float64
			attn  float64
		}{{"0", plain, 1}, {"2", plain, 1}, {"3", yarn, attentionFactor}} {
			out := filepath.Join(dir, "out.safetensors")
			if code, _, stderr := runCLI(t, "apply", "--config", path, "--in", in, "--out", out, "--layer", c.layer); code != 0 {
				t.Fatalf("layer %s: exit %d: %s", c.layer, code, stderr)
			}
			f, _ := safetensors.ReadFile(out)
			got, _ := f.Get("query")
			checkRotation(t, "olmo3 layer "+c.layer+" "+d.String(), d, D, D, false, pos, decode(t, src), decode(t, got),
				func(int64) ([]float64, float64) { return c.inv, c.attn })
		}
	}
}
