package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// TestApplyEveryPreset drives `rotary apply --model NAME --layer L` on every embedded config, in
// F32 and BF16, on one layer of each kind the model has (each distinct per-layer RoPE, and a
// layer without RoPE), and checks the result against float64 math from that layer's inv_freq:
// rotated pairs per the accuracy contract, pass-through elements (and frequency-0 pairs, whose
// exact result is the input) bit for bit, layers without RoPE unchanged.
func TestApplyEveryPreset(t *testing.T) {
	pos := []int64{0, 1, 4097, 65535, 1<<20 - 1}
	const T, H, K = 5, 2, 1
	for _, name := range hf.PresetNames() {
		m, err := hf.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
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
				if code, _, stderr := runCLI(t, "apply", "--model", name, "--layer", strconv.Itoa(layer), "--in", in, "--out", out); code != 0 {
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
