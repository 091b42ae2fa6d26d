package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// extraOpRun runs `rotary apply` with args on the given inputs and returns the output file's
// tensors (nil when the command failed) with the exit code and stderr.
func extraOpRun(t *testing.T, inputs []safetensors.Tensor, args ...string) (map[string]tensor.Tensor, int, string) {
	t.Helper()
	dir := t.TempDir()
	in := writeTensors(t, dir, "in.safetensors", inputs...)
	out := filepath.Join(dir, "out.safetensors")
	code, stdout, stderr := runCLI(t, append([]string{"apply", "--in", in, "--out", out}, args...)...)
	if code != 0 {
		if stdout != "" || strings.Count(stderr, "\n") != 1 || strings.Contains(stderr, "goroutine") {
			t.Errorf("%v: exit %d: stdout %q stderr %q: want one line on stderr", args, code, stdout, stderr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%v: --out was created by a failed run", args)
		}
		return nil, code, stderr
	}
	m, err := readInputs(out)
	if err != nil {
		t.Fatal(err)
	}
	return m, code, stderr
}

// extraSame fails unless got holds exactly want's dtype, shape and bits.
func extraSame(t *testing.T, name string, got, want tensor.Tensor) {
	t.Helper()
	if got.DType != want.DType || !slicesEqual(got.Shape, want.Shape) {
		t.Fatalf("%s: %v%v, want %v%v", name, got.DType, got.Shape, want.DType, want.Shape)
	}
	for i := range want.Len() {
		a, b := got.Float64At(i), want.Float64At(i)
		if math.Float64bits(a) != math.Float64bits(b) {
			t.Fatalf("%s: element %d is %v, want %v", name, i, a, b)
		}
	}
}

func extraF32(name string, shape []int, seed uint64) (safetensors.Tensor, tensor.Tensor) {
	n := tensor.NumElements(shape)
	v := randomHeads(n, seed)
	return safetensors.FromFloat32s(name, shape, v), tensor.FromF32(append([]float32(nil), v...), shape...)
}

func TestApplyRotaryEmbTHDCommand(t *testing.T) {
	const H, D, d, S = 2, 16, 8, 32
	// Two ranks of a cp_size 2 batch of full lengths 8 and 4: 6 local tokens each.
	cu := []int32{0, 8, 12}
	starts := []int64{3, 0}
	for _, mode := range []string{"half", "interleave"} {
		for rank := range 2 {
			xf, x := extraF32("x", []int{6, H, D}, uint64(1+rank))
			cf, cos := extraF32("cos", []int{S, d}, 3)
			sf, sin := extraF32("sin", []int{S, d}, 4)
			inputs := []safetensors.Tensor{xf, cf, sf, safetensors.FromInt32s("cu_seqlens", []int{3}, cu), safetensors.FromInt64s("start_positions", []int{2}, starts)}
			got, code, stderr := extraOpRun(t, inputs, "--op", "apply_rotary_emb_thd", "--rotary-mode", mode, "--cp-size", "2", "--cp-rank", string(rune('0'+rank)))
			if code != 0 {
				t.Fatalf("%s rank %d: exit %d: %s", mode, rank, code, stderr)
			}
			style := rotary.NeoX
			if mode == "interleave" {
				style = rotary.GPTJ
			}
			seqs := ops.PackedSeqs{CuSeqlens: tensor.FromI32(cu, 3), StartPositions: tensor.FromI64(starts, 2), CPSize: 2, CPRank: rank}
			want := tensor.Zeros(tensor.F32, 6, H, D)
			if err := rotary.ApplyRotaryEmbTHD(nil, rotary.ApplyRotaryEmbTHDParams{X: x, Cos: cos, Sin: sin, Out: want, Seqs: seqs, Style: style}); err != nil {
				t.Fatal(err)
			}
			extraSame(t, "out", got["out"], want)

			dyf, dy := extraF32("dy", []int{6, H, D}, 5)
			got, code, stderr = extraOpRun(t, []safetensors.Tensor{dyf, cf, sf, inputs[3], inputs[4]}, "--op", "apply_rotary_emb_thd_backward", "--rotary-mode", mode, "--cp-size", "2", "--cp-rank", string(rune('0'+rank)))
			if code != 0 {
				t.Fatalf("backward %s rank %d: exit %d: %s", mode, rank, code, stderr)
			}
			wantDX := tensor.Zeros(tensor.F32, 6, H, D)
			if err := rotary.ApplyRotaryEmbTHDBackward(nil, rotary.ApplyRotaryEmbTHDBackwardParams{DY: dy, Cos: cos, Sin: sin, DX: wantDX, Seqs: seqs, Style: style}); err != nil {
				t.Fatal(err)
			}
			extraSame(t, "dx", got["dx"], wantDX)
		}
	}
	// Bad input: exit 2, one line naming the problem.
	xf, _ := extraF32("x", []int{6, H, D}, 1)
	cf, _ := extraF32("cos", []int{S, d}, 3)
	sf, _ := extraF32("sin", []int{S, d}, 4)
	base := []safetensors.Tensor{xf, cf, sf, safetensors.FromInt32s("cu_seqlens", []int{3}, cu)}
	for _, c := range []struct {
		name   string
		inputs []safetensors.Tensor
		args   []string
		want   string
	}{
		{"rank = size", base, []string{"--cp-size", "2", "--cp-rank", "2"}, "cp_rank"},
		{"length not a multiple", base, []string{"--cp-size", "4"}, "multiple"},
		{"cu_seqlens short", []safetensors.Tensor{xf, cf, sf, safetensors.FromInt32s("cu_seqlens", []int{2}, []int32{0, 5})}, nil, "cu_seqlens"},
		{"no cu_seqlens", []safetensors.Tensor{xf, cf, sf}, nil, "cu_seqlens"},
		{"bad mode", base, []string{"--cp-size", "2", "--rotary-mode", "neox"}, "rotary-mode"},
		{"with a model", base, []string{"--cp-size", "2", "--model", "llama-3.1-8b"}, "--config"},
	} {
		_, code, stderr := extraOpRun(t, c.inputs, append([]string{"--op", "apply_rotary_emb_thd"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d stderr %q: want 2 and %q", c.name, code, stderr, c.want)
		}
	}
}

func TestQKRMSNormRoPECommand(t *testing.T) {
	m, err := hf.Preset("qwen3-8b")
	if err != nil {
		t.Fatal(err)
	}
	spec := m.Spec
	D := spec.HeadSize
	const T = 4
	pos := []int64{0, 7, 4096, 40000}
	for _, d := range []tensor.DType{tensor.F32, tensor.BF16} {
		inputs := []safetensors.Tensor{
			safetensors.FromInt64s("positions", []int{T}, pos),
			encodeAs(d, "query", []int{T, 4, D}, randomHeads(T*4*D, 1)),
			encodeAs(d, "key", []int{T, D}, randomHeads(T*D, 2)),
			encodeAs(d, "q_weight", []int{D}, randomHeads(D, 3)),
			encodeAs(d, "k_weight", []int{D}, randomHeads(D, 4)),
		}
		got, code, stderr := extraOpRun(t, inputs, "--op", "qk_rmsnorm_rope", "--model", "qwen3-8b", "--epsilon-qk", "1e-5")
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", d, code, stderr)
		}
		var in [5]tensor.Tensor
		for i, st := range inputs {
			if in[i], err = fromFile(st); err != nil {
				t.Fatal(err)
			}
		}
		emb, err := rotary.New(spec)
		if err != nil {
			t.Fatal(err)
		}
		if err := emb.ForwardQKNorm(in[0], in[1], in[2], in[3], in[4], 1e-5); err != nil {
			t.Fatal(err)
		}
		extraSame(t, "query", got["query"], in[1])
		extraSame(t, "key", got["key"], in[2])
	}
	inputs := []safetensors.Tensor{
		safetensors.FromInt64s("positions", []int{T}, pos),
		encodeAs(tensor.F32, "query", []int{T, 4, D}, randomHeads(T*4*D, 1)),
		encodeAs(tensor.F32, "key", []int{T, D}, randomHeads(T*D, 2)),
		encodeAs(tensor.F32, "q_weight", []int{D}, randomHeads(D, 3)),
	}
	for _, c := range []struct {
		name   string
		inputs []safetensors.Tensor
		args   []string
		want   string
	}{
		{"no k_weight", inputs, nil, "k_weight"},
		{"no q_weight", inputs[:3], nil, "q_weight"},
		{"negative epsilon", append(inputs, encodeAs(tensor.F32, "k_weight", []int{D}, randomHeads(D, 4))), []string{"--epsilon-qk", "-1"}, "epsilon"},
		{"short weight", append(inputs, encodeAs(tensor.F32, "k_weight", []int{D / 2}, randomHeads(D/2, 4))), nil, "k_weight"},
	} {
		_, code, stderr := extraOpRun(t, c.inputs, append([]string{"--op", "qk_rmsnorm_rope", "--model", "qwen3-8b"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d stderr %q: want 2 and %q", c.name, code, stderr, c.want)
		}
	}
	if _, code, stderr := extraOpRun(t, inputs, "--op", "qk_rmsnorm_rope"); code != 2 || !strings.Contains(stderr, "config") {
		t.Errorf("no model: exit %d stderr %q", code, stderr)
	}
}

func TestInterleaveRoPECommand(t *testing.T) {
	for _, d := range []tensor.DType{tensor.F32, tensor.F16} {
		inputs := []safetensors.Tensor{
			encodeAs(d, "x", []int{2, 3, 4, 64}, randomHeads(2*3*4*64, 1)),
			encodeAs(d, "cos", []int{2, 1, 4, 64}, randomHeads(2*4*64, 2)),
			encodeAs(d, "sin", []int{2, 1, 4, 64}, randomHeads(2*4*64, 3)),
		}
		got, code, stderr := extraOpRun(t, inputs, "--op", "interleave_rope")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var in [3]tensor.Tensor
		for i, st := range inputs {
			in[i], _ = fromFile(st)
		}
		want := tensor.Zeros(d, 2, 3, 4, 64)
		if err := rotary.InterleaveRoPE(nil, rotary.InterleaveRoPEParams{X: in[0], Cos: in[1], Sin: in[2], Out: want}); err != nil {
			t.Fatal(err)
		}
		extraSame(t, "out", got["out"], want)
	}
	bad := []safetensors.Tensor{
		encodeAs(tensor.F32, "x", []int{2, 3, 4, 64}, randomHeads(2*3*4*64, 1)),
		encodeAs(tensor.F32, "cos", []int{2, 1, 4, 32}, randomHeads(2*4*32, 2)),
		encodeAs(tensor.F32, "sin", []int{2, 1, 4, 32}, randomHeads(2*4*32, 3)),
	}
	if _, code, stderr := extraOpRun(t, bad, "--op", "interleave_rope"); code != 2 || !strings.Contains(stderr, "cos") {
		t.Errorf("half-width cos: exit %d stderr %q", code, stderr)
	}
}

func TestNPUMRoPECommand(t *testing.T) {
	const T, P, D = 5, 64, 128
	emb, err := rotary.New(rotary.Spec{HeadSize: D, RotaryDim: D, Base: 5e6, MaxPositions: P})
	if err != nil {
		t.Fatal(err)
	}
	cacheData, _ := emb.CosSinCache(P, false)
	p := make([]int64, 3*T)
	for i := range p {
		p[i] = int64(i*13) % P
	}
	for _, c := range []struct {
		name      string
		positions safetensors.Tensor
		args      []string
		sections  []int
		mode      string
		cacheMode string
	}{
		{"qwen3-vl", safetensors.FromInt64s("positions", []int{3, T}, p), []string{"--mrope-section", "24,20,20", "--mrope-cache-mode", "interleave"}, []int{24, 20, 20}, "half", "interleave"},
		{"qwen2-vl gptj", safetensors.FromInt64s("positions", []int{3, T}, p), []string{"--mrope-section", "[16, 24, 24]", "--rotary-mode", "interleave"}, []int{16, 24, 24}, "interleave", "default"},
		{"plain", safetensors.FromInt32s("positions", []int{T}, []int32{0, 1, 2, 60, 63}), []string{"--mrope-section", "0,0,0"}, []int{0, 0, 0}, "half", "default"},
	} {
		inputs := []safetensors.Tensor{
			c.positions,
			encodeAs(tensor.BF16, "query", []int{T, 2 * D}, randomHeads(T*2*D, 1)),
			encodeAs(tensor.BF16, "key", []int{T, D}, randomHeads(T*D, 2)),
			safetensors.FromFloat32s("cos_sin_cache", []int{P, D}, cacheData),
		}
		got, code, stderr := extraOpRun(t, inputs, append([]string{"--op", "npu_mrope", "--head-size", "128"}, c.args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, stderr)
		}
		var in [4]tensor.Tensor
		for i, st := range inputs {
			in[i], _ = fromFile(st)
		}
		style, err := rope.ParseRotaryMode(c.mode)
		if err != nil {
			t.Fatal(err)
		}
		interleaved, err := ops.ParseMRoPECacheMode(c.cacheMode)
		if err != nil {
			t.Fatal(err)
		}
		p := rotary.NPUMRoPEParams{Positions: in[0], Query: in[1], Key: in[2], CosSinCache: in[3], HeadSize: D, Sections: c.sections, Style: style, Interleaved: interleaved}
		if err := rotary.NPUMRoPE(nil, p); err != nil {
			t.Fatal(err)
		}
		extraSame(t, c.name+" query", got["query"], in[1])
		extraSame(t, c.name+" key", got["key"], in[2])
	}
	inputs := []safetensors.Tensor{
		safetensors.FromInt64s("positions", []int{3, T}, p),
		encodeAs(tensor.F32, "query", []int{T, 2 * D}, randomHeads(T*2*D, 1)),
		safetensors.FromFloat32s("cos_sin_cache", []int{P, D}, cacheData),
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no head size", []string{"--mrope-section", "24,20,20"}, "--head-size"},
		{"rows differ", []string{"--head-size", "128", "--mrope-section", "16,16,16,16"}, "rows"},
		{"sum", []string{"--head-size", "128", "--mrope-section", "24,20,21"}, "sums to"},
		{"four with interleave", []string{"--head-size", "128", "--mrope-section", "16,16,16,16", "--mrope-cache-mode", "interleave"}, "4 sections"},
		{"not numbers", []string{"--head-size", "128", "--mrope-section", "a,b,c"}, "--mrope-section"},
		{"bad cache mode", []string{"--head-size", "128", "--mrope-section", "24,20,20", "--mrope-cache-mode", "chunked"}, "cache_mode"},
	} {
		_, code, stderr := extraOpRun(t, inputs, append([]string{"--op", "npu_mrope"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d stderr %q: want 2 and %q", c.name, code, stderr, c.want)
		}
	}
}
