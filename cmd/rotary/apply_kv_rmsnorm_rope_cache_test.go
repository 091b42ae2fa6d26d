package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// kvcInputs writes a PA_BLK_NZ call (BF16 kv, int8 ckv_cache, BF16 k_cache) with the given index.
func kvcInputs(t *testing.T, dir, name string, index []int64) string {
	const B, S, Dv, Dk, blocks, bs = 2, 3, 32, 16, 4, 2
	gamma := make([]float32, Dv)
	for i := range gamma {
		gamma[i] = 1 + float32(i)/Dv
	}
	cos, sin := make([]float32, B*S*Dk), make([]float32, B*S*Dk)
	for i := range cos {
		th := float64(i%(Dk/2)) * 0.3
		cos[i], sin[i] = float32(math.Cos(th)), float32(math.Sin(th))
	}
	ckvScale := make([]float32, Dv)
	for i := range ckvScale {
		ckvScale[i] = 20
	}
	return writeTensors(t, dir, name,
		encodeAs(tensor.BF16, "kv", []int{B, 1, S, Dv + Dk}, randomHeads(B*S*(Dv+Dk), 3)),
		encodeAs(tensor.BF16, "gamma", []int{Dv}, gamma),
		encodeAs(tensor.BF16, "cos", []int{B, 1, S, Dk}, cos),
		encodeAs(tensor.BF16, "sin", []int{B, 1, S, Dk}, sin),
		safetensors.FromInt64s("index", []int{len(index)}, index),
		encodeAs(tensor.BF16, "k_cache", []int{blocks, bs, 1, Dk}, make([]float32, blocks*bs*Dk)),
		safetensors.FromInt8s("ckv_cache", []int{blocks, bs, 1, Dv}, make([]int8, blocks*bs*Dv)),
		safetensors.FromFloat32s("c_kv_scale", []int{Dv}, ckvScale),
	)
}

func TestApplyKVRMSNormRoPECache(t *testing.T) {
	dir := t.TempDir()
	// ceil(S/BlockSize) = 2 entries per batch; batch 1's second block is skipped.
	in := kvcInputs(t, dir, "in.safetensors", []int64{6, 0, 2, -1})
	out := filepath.Join(dir, "out.safetensors")
	code, stdout, stderr := runCLI(t, "apply", "--op", "kv_rmsnorm_rope_cache", "--cache-mode", "PA_BLK_NZ",
		"--epsilon", "1e-6", "--output-kv", "--in", in, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	f, err := safetensors.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]safetensors.Tensor{}
	for _, st := range f.Tensors {
		got[st.Name] = st
	}
	for _, n := range []string{"k_cache", "ckv_cache", "k_rope", "c_kv"} {
		if _, ok := got[n]; !ok {
			t.Fatalf("output lacks %s (has %d tensors)", n, len(f.Tensors))
		}
	}
	if got["ckv_cache"].DType != "I8" || got["k_cache"].DType != "BF16" {
		t.Fatalf("cache dtypes %s, %s: want BF16, I8", got["k_cache"].DType, got["ckv_cache"].DType)
	}
	// Token (b=1, s=2) falls in batch 1's second block (index −1): k_rope has it, no cache does.
	// Token (b=0, s=0) goes to block 3, slot 0: k_cache's NZ groups of 16 are [4, 1, 2, 1, 16],
	// so its row is elements 3·32 .. 3·32+15, equal to k_rope's first row.
	kc, kr := decode(t, got["k_cache"]), decode(t, got["k_rope"])
	for c := range 16 {
		if kc[3*32+c] != kr[c] {
			t.Fatalf("k_cache block 3 slot 0 channel %d = %v, k_rope[0,0,0] = %v", c, kc[3*32+c], kr[c])
		}
	}
	nonzero := 0
	for _, v := range kc {
		if v != 0 {
			nonzero++
		}
	}
	if nonzero > 5*16 || nonzero < 4*16 { // 5 tokens written, a few values may round to 0
		t.Errorf("k_cache: %d nonzero elements, want those of 5 tokens", nonzero)
	}
	// c_kv quantised by 20: every written value is round(20·c_kv).
	ckv, cq := decode(t, got["c_kv"]), decode(t, got["ckv_cache"])
	for c := range 32 {
		want := math.Max(-128, math.Min(127, math.RoundToEven(20*ckv[c])))
		// c_kv is BF16-rounded while the cache is quantised from float32: allow one step.
		if q := cq[3*64+c]; math.Abs(q-want) > 1 {
			t.Fatalf("ckv_cache token 0 channel %d = %v, want ≈ %v", c, q, want)
		}
	}
}

func TestApplyKVRMSNormRoPECacheBadIndex(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.safetensors")
	for _, c := range []struct {
		name  string
		index []int64
		want  string
	}{
		{"out of range", []int64{6, 0, 8, -1}, "index[2] = 8"},
		{"same block", []int64{6, 0, 7, -1}, "block 3"},
	} {
		in := kvcInputs(t, dir, strings.ReplaceAll(c.name, " ", "_")+".safetensors", c.index)
		code, _, stderr := runCLI(t, "apply", "--op", "kv_rmsnorm_rope_cache", "--cache-mode", "PA_BLK_NZ", "--in", in, "--out", out)
		if code != 2 {
			t.Fatalf("%s: exit %d, want 2 (stderr %q)", c.name, code, stderr)
		}
		if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: stderr %q: want one line mentioning %q", c.name, stderr, c.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Fatalf("%s: --out was created", c.name)
		}
	}
	in := kvcInputs(t, dir, "good.safetensors", []int64{6, 0, 2, -1})
	if code, _, stderr := runCLI(t, "apply", "--op", "kv_rmsnorm_rope_cache", "--cache-mode", "PA_XYZ", "--in", in, "--out", out); code != 2 || !strings.Contains(stderr, "--cache-mode") {
		t.Errorf("unknown mode: exit %d, stderr %q", code, stderr)
	}
}
