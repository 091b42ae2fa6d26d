package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/backend/cpu"
	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// runCLI runs one command line and returns exit code, stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeTensors(t *testing.T, dir, name string, ts ...safetensors.Tensor) string {
	t.Helper()
	var buf bytes.Buffer
	if err := safetensors.Write(&buf, ts, nil); err != nil {
		t.Fatal(err)
	}
	return writeFile(t, dir, name, buf.Bytes())
}

// toFile is a tensor as writeTensors takes it; a tensor a file cannot hold is the test's bug.
func toFile(name string, t tensor.Tensor) safetensors.Tensor {
	st, err := safetensors.FromTensor(name, t)
	if err != nil {
		panic(err)
	}
	return st
}

func presetConfig(t *testing.T, dir, name string) string {
	t.Helper()
	js, err := hf.PresetJSON(name)
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, dir, name+".json", js)
}

// randomHeads makes deterministic pseudo-random values in (-2, 2).
func randomHeads(n int, seed uint64) []float32 {
	v := make([]float32, n)
	x := seed*0x9E3779B97F4A7C15 + 1
	for i := range v {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		v[i] = float32(int64(x>>40)-(1<<23)) / (1 << 22)
	}
	return v
}

func encodeAs(d tensor.DType, name string, shape []int, v []float32) safetensors.Tensor {
	if d == tensor.F32 {
		return safetensors.FromFloat32s(name, shape, v)
	}
	bits := make([]uint16, len(v))
	for i, f := range v {
		bits[i] = tensor.FromFloat32(d, f)
	}
	return safetensors.FromUint16s(name, d.String(), shape, bits)
}

func decode(t *testing.T, st safetensors.Tensor) []float64 {
	t.Helper()
	tt, err := fromFile(st)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float64, tt.Len())
	for i := range out {
		out[i] = tt.Float64At(i)
	}
	return out
}

// TestApplyAccuracy drives `rotary apply` on real configs in every dtype and checks the result
// against float64 math from the model's inv_freq, as an outside check would.
func TestApplyAccuracy(t *testing.T) {
	for _, preset := range []string{"llama-3.1-8b", "qwen3-8b", "gpt-j-6b", "phi-3-mini-128k", "deepseek-v3", "gpt-neox-20b"} {
		for _, d := range []tensor.DType{tensor.F32, tensor.BF16, tensor.F16} {
			t.Run(preset+"/"+d.String(), func(t *testing.T) {
				dir := t.TempDir()
				cfg := presetConfig(t, dir, preset)
				m, err := hf.Preset(preset)
				if err != nil {
					t.Fatal(err)
				}
				spec := m.Spec
				const T, H, K = 5, 4, 2
				D := spec.HeadSize
				pos := []int64{0, 1, 4097, 65535, 1<<20 - 1}
				q := randomHeads(T*H*D, 1)
				k := randomHeads(T*K*D, 2)
				in := writeTensors(t, dir, "in.safetensors",
					safetensors.FromInt64s("positions", []int{T}, pos),
					encodeAs(d, "query", []int{T, H, D}, q),
					encodeAs(d, "key", []int{T, K * D}, k))
				out := filepath.Join(dir, "out.safetensors")
				if code, _, stderr := runCLI(t, "apply", "--config", cfg, "--in", in, "--out", out); code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				f, err := safetensors.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				// Reference: inputs as the file holds them (rounded to d), exact rotation.
				inF, _ := safetensors.ReadFile(in)
				for _, name := range []string{"query", "key"} {
					src, _ := inF.Get(name)
					got, _ := f.Get(name)
					if got.DType != src.DType || !slicesEqual(got.Shape, src.Shape) {
						t.Fatalf("%s: dtype/shape %s %v, want %s %v", name, got.DType, got.Shape, src.DType, src.Shape)
					}
					x, y := decode(t, src), decode(t, got)
					checkRotation(t, name, d, spec.HeadSize, spec.RotaryDim, spec.Style.String() == "gptj", pos, x, y, func(p int64) ([]float64, float64) {
						inv, attn := spec.Frequencies(int(maxOf(pos)))
						return inv, attn
					})
				}
			})
		}
	}
}

func maxOf(v []int64) int64 {
	m := v[0]
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

func slicesEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// checkRotation checks y = rotate(x) per the accuracy contract: 16-bit outputs within 1 ULP of
// the float64 result, f32 within 2^-20 of the pair's norm; pass-through elements bit-exact.
func checkRotation(t *testing.T, name string, d tensor.DType, D, rd int, gptj bool, pos []int64, x, y []float64, freqs func(int64) ([]float64, float64)) {
	t.Helper()
	T := len(pos)
	heads := len(x) / (T * D)
	half := rd / 2
	bad := 0
	for tok := range T {
		inv, attn := freqs(pos[tok])
		for h := range heads {
			base := (tok*heads + h) * D
			for i := range half {
				a, b := i, i+half
				if gptj {
					a, b = 2*i, 2*i+1
				}
				s, c := math.Sincos(float64(pos[tok]) * inv[i])
				c, s = float64(float32(c*attn)), float64(float32(s*attn)) // the cache's rounding
				x1, x2 := x[base+a], x[base+b]
				w1, w2 := x1*c-x2*s, x2*c+x1*s
				norm := math.Hypot(x1, x2)
				for _, e := range [][2]float64{{w1, y[base+a]}, {w2, y[base+b]}} {
					ok := false
					if d == tensor.F32 {
						ok = math.Abs(e[0]-e[1]) <= norm*0x1p-20
					} else {
						// 1 ULP of the exact result, or (catastrophic cancellation) an error below
						// the float32 cos/sin rounding the contract allows.
						ok = tensor.ULPDiff(d, e[0], e[1]) <= 1 || math.Abs(e[0]-e[1]) <= norm*0x1p-22
					}
					if !ok && bad < 5 {
						bad++
						t.Errorf("%s token %d head %d pair %d: got %v want %v", name, tok, h, i, e[1], e[0])
					}
				}
			}
			for j := rd; j < D; j++ {
				if math.Float64bits(x[base+j]) != math.Float64bits(y[base+j]) {
					t.Fatalf("%s: pass-through element %d changed", name, j)
				}
			}
		}
	}
}

func TestCache(t *testing.T) {
	dir := t.TempDir()
	for _, preset := range []string{"llama-3.1-8b", "phi-3-mini-128k", "gemma-3-4b"} {
		cfg := presetConfig(t, dir, preset)
		out := filepath.Join(dir, preset+".safetensors")
		if code, _, stderr := runCLI(t, "cache", "--config", cfg, "--out", out, "--positions", "100"); code != 0 {
			t.Fatalf("%s: exit %d: %s", preset, code, stderr)
		}
		f, err := safetensors.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := hf.Preset(preset)
		d := m.Spec.RotaryDim
		cache, ok := f.Get("cos_sin_cache")
		if !ok || cache.DType != "F32" || !slicesEqual(cache.Shape, []int{100, d}) {
			t.Fatalf("%s: cos_sin_cache %v", preset, cache.Shape)
		}
		inv, ok := f.Get("inv_freq")
		if !ok || inv.DType != "F64" || !slicesEqual(inv.Shape, []int{d / 2}) {
			t.Fatalf("%s: inv_freq %v", preset, inv.Shape)
		}
		invV, _ := inv.Float64s()
		c, _ := cache.Float32s()
		_, attn := m.Spec.Frequencies(-1)
		for p := range 100 {
			for i := range d / 2 {
				s, co := math.Sincos(float64(p) * invV[i])
				if c[p*d+i] != float32(co*attn) || c[p*d+d/2+i] != float32(s*attn) {
					t.Fatalf("%s: row %d pair %d: %v %v, want %v %v", preset, p, i, c[p*d+i], c[p*d+d/2+i], float32(co*attn), float32(s*attn))
				}
			}
		}
		_, hasLong := f.Get("cos_sin_cache_long")
		if hasLong != (preset == "phi-3-mini-128k") {
			t.Errorf("%s: cos_sin_cache_long present = %t", preset, hasLong)
		}
	}
}

func TestInspectEveryPreset(t *testing.T) {
	for _, name := range hf.PresetNames() {
		if code, out, stderr := runCLI(t, "inspect", "--model", name); code != 0 || !strings.Contains(out, "rotary dim") {
			t.Errorf("%s: exit %d: %s%s", name, code, out, stderr)
		}
		if code, out, _ := runCLI(t, "inspect", "--model", name, "--json"); code != 0 || !strings.HasPrefix(out, "{") {
			t.Errorf("%s --json: exit %d: %s", name, code, out)
		}
	}
}

func TestDiff(t *testing.T) {
	dir := t.TempDir()
	v := randomHeads(64, 3)
	a := writeTensors(t, dir, "a.safetensors", encodeAs(tensor.BF16, "query", []int{64}, v))
	if code, out, stderr := runCLI(t, "diff", a, a); code != 0 {
		t.Fatalf("same file: exit %d %s %s", code, out, stderr)
	}
	w := append([]float32(nil), v...)
	w[7] *= 1.5
	b := writeTensors(t, dir, "b.safetensors", encodeAs(tensor.BF16, "query", []int{64}, w))
	if code, out, _ := runCLI(t, "diff", a, b); code != 1 || !strings.Contains(out, "over tolerance") {
		t.Fatalf("perturbed: exit %d %s", code, out)
	}
	c := writeTensors(t, dir, "c.safetensors", encodeAs(tensor.BF16, "query", []int{64}, v), encodeAs(tensor.F32, "key", []int{2}, v[:2]))
	if code, _, _ := runCLI(t, "diff", a, c); code != 1 {
		t.Fatalf("tensor only in B: exit %d", code)
	}
}

// TestBadInput: every bad input is exit 2 with one line on stderr, and --out is not created.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	llama := presetConfig(t, dir, "llama-3.1-8b")
	qwenVL := presetConfig(t, dir, "qwen2-vl-7b")
	cfg := func(name, js string) string { return writeFile(t, dir, name, []byte(js)) }
	const D = 128
	q := func(T, H int) safetensors.Tensor {
		return encodeAs(tensor.F32, "query", []int{T, H, D}, randomHeads(T*H*D, 9))
	}
	pos := func(v ...int64) safetensors.Tensor { return safetensors.FromInt64s("positions", []int{len(v)}, v) }
	good := writeTensors(t, dir, "good.safetensors", pos(0, 1), q(2, 2))
	goodBytes, _ := os.ReadFile(good)

	absurd := append([]byte{}, goodBytes...)
	binary.LittleEndian.PutUint64(absurd, 1<<62)
	pastEnd := goodBytes[:len(goodBytes)-16] // the header still points at the last 16 bytes

	cases := []struct {
		name   string
		config string
		in     string
		want   string
	}{
		{"config not JSON", cfg("notjson.json", "{model_type: llama"), good, "config"},
		{"unknown rope type", cfg("unknown.json", `{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"rope_scaling":{"rope_type":"spiral","factor":2}}`), good, "spiral"},
		{"yarn without factor", cfg("yarn.json", `{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"rope_scaling":{"rope_type":"yarn"}}`), good, "factor"},
		{"odd rotary dim", cfg("odd.json", `{"model_type":"gptj","n_embd":4096,"n_head":32,"rotary_dim":63}`), good, "rotary"},
		{"rotary dim too large", cfg("large.json", `{"model_type":"gptj","n_embd":4096,"n_head":32,"rotary_dim":256}`), good, "rotary"},
		{"head size mismatch", llama, writeTensors(t, dir, "hs.safetensors", pos(0, 1), encodeAs(tensor.F32, "query", []int{2, 2, 64}, randomHeads(256, 1))), "head size"},
		{"positions length", llama, writeTensors(t, dir, "plen.safetensors", pos(0, 1, 2), q(2, 2)), "positions"},
		{"negative positions", llama, writeTensors(t, dir, "neg.safetensors", pos(0, -1), q(2, 2)), "negative"},
		{"float positions", llama, writeTensors(t, dir, "fpos.safetensors", safetensors.FromFloat32s("positions", []int{2}, []float32{0, 1}), q(2, 2)), "positions"},
		{"q/k dtype mismatch", llama, writeTensors(t, dir, "qk.safetensors", pos(0, 1), q(2, 2), encodeAs(tensor.BF16, "key", []int{2, 1, D}, randomHeads(D*2, 2))), "dtype"},
		{"missing query", llama, writeTensors(t, dir, "noq.safetensors", pos(0, 1)), "query"},
		{"mrope rows", qwenVL, writeTensors(t, dir, "rows.safetensors", safetensors.FromInt64s("positions", []int{2, 2}, []int64{0, 1, 0, 1}), q(2, 2)), "positions"},
		{"mrope sections", cfg("sections.json", `{"model_type":"qwen2_vl","hidden_size":3584,"num_attention_heads":28,"num_key_value_heads":4,"rope_scaling":{"type":"mrope","mrope_section":[16,24,16]}}`), good, "mrope_section"},
		{"truncated safetensors", llama, writeFile(t, dir, "trunc.safetensors", goodBytes[:20]), "safetensors"},
		{"offsets past end", llama, writeFile(t, dir, "past.safetensors", pastEnd), "past the end"},
		{"absurd header", llama, writeFile(t, dir, "absurd.safetensors", absurd), "header"},
		{"missing input", llama, filepath.Join(dir, "nope.safetensors"), "nope"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".out")
			code, stdout, stderr := runCLI(t, "apply", "--config", c.config, "--in", c.in, "--out", out)
			if code != 2 {
				t.Fatalf("exit %d, want 2 (stdout %q stderr %q)", code, stdout, stderr)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.Contains(strings.ToLower(stderr), strings.ToLower(c.want)) {
				t.Errorf("stderr %q: want one line mentioning %q", stderr, c.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("--out was created")
			}
		})
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"frobnicate"},
		{"apply"},
		{"apply", "--model", "llama-3.1-8b", "--in", "x", "--out", "y", "--custom-ops", "all,none"},
		{"apply", "--model", "llama-3.1-8b", "--in", "x", "--out", "y", "--backend", "tpu"},
		{"cache", "--model", "no-such-model", "--out", "x"},
		{"inspect"},
		{"diff", "a"},
		{"ops", "--custom-ops", "+no_such_op"},
	} {
		code, _, stderr := runCLI(t, args...)
		if code != 2 || stderr == "" || strings.Contains(stderr, "goroutine") {
			t.Errorf("%v: exit %d stderr %q", args, code, stderr)
		}
	}
}

func TestOps(t *testing.T) {
	code, out, _ := runCLI(t, "ops", "--custom-ops", "none,+rotary_embedding")
	if code != 0 || !strings.Contains(out, "rotary_embedding") || !strings.Contains(out, "native") {
		t.Fatalf("exit %d: %s", code, out)
	}
	// The table lines up however long an op's name (apply_rotary_emb_thd_backward): the
	// enabled column starts at one offset on every row.
	_, out, _ = runCLI(t, "ops")
	if want := "cpu kernel set " + cpu.Active() + " (this machine runs " + strings.Join(cpu.Implementations(), ", "); !strings.Contains(out, want) {
		t.Errorf("ops: no %q in\n%s", want, out)
	}
	col := -1
	for _, line := range strings.Split(out, "\n") {
		if line == "" {
			break
		}
		name := strings.Fields(line)[0]
		at := len(line) - len(strings.TrimLeft(line[len(name):], " "))
		if col < 0 {
			col = at
		} else if at != col {
			t.Errorf("ops: %q: second column at %d, want %d", line, at, col)
		}
	}
}

func TestBenchJSON(t *testing.T) {
	code, out, stderr := runCLI(t, "bench", "--json", "--quiet", "--op", "rotary_embedding", "--backend", "native,cpu", "--dtype", "F32", "--tokens", "1", "--time", "1ms")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 JSON lines (native, cpu), got %q", out)
	}
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"op", "backend", "dtype", "model", "tokens", "ns_per_call", "gbps", "copy_gbps", "ratio", "limit_gbps", "limit_ratio"} {
			if _, ok := m[k]; !ok {
				t.Errorf("line %s lacks %q", l, k)
			}
		}
	}
	if code, _, _ := runCLI(t, "bench", "--tokens", "0"); code != 2 {
		t.Errorf("--tokens 0: exit %d, want 2", code)
	}
}

// TestDiffF64OppositeSigns: 3 against -3 in F64 is as far apart as values get, not 0 ULP.
func TestDiffF64OppositeSigns(t *testing.T) {
	dir := t.TempDir()
	a := writeTensors(t, dir, "a.safetensors", safetensors.FromFloat64s("x", []int{1}, []float64{3}))
	b := writeTensors(t, dir, "b.safetensors", safetensors.FromFloat64s("x", []int{1}, []float64{-3}))
	if code, out, stderr := runCLI(t, "diff", a, b); code != 1 || !strings.Contains(out, "over tolerance") {
		t.Fatalf("3 vs -3: exit %d, want 1\n%s%s", code, out, stderr)
	}
	inf := writeTensors(t, dir, "inf.safetensors", safetensors.FromFloat64s("x", []int{1}, []float64{math.Inf(1)}))
	maxf := writeTensors(t, dir, "max.safetensors", safetensors.FromFloat64s("x", []int{1}, []float64{math.MaxFloat64}))
	if code, out, stderr := runCLI(t, "diff", maxf, inf, "--max-ulp", "1000"); code != 1 {
		t.Fatalf("MaxFloat64 vs +Inf: exit %d, want 1\n%s%s", code, out, stderr)
	}
}

// TestDiffBadTolerance: a tolerance that is NaN, infinite or negative would pass (or fail)
// every element silently, so it is a usage error naming the flag.
func TestDiffBadTolerance(t *testing.T) {
	dir := t.TempDir()
	a := writeTensors(t, dir, "a.safetensors", safetensors.FromFloat64s("x", []int{1}, []float64{3}))
	b := writeTensors(t, dir, "b.safetensors", safetensors.FromFloat64s("x", []int{1}, []float64{-3}))
	for _, c := range []struct{ flag, value string }{
		{"atol", "NaN"}, {"atol", "nan"}, {"atol", "Inf"}, {"atol", "+Inf"}, {"atol", "-Inf"}, {"atol", "-1"}, {"atol", "-1e-9"},
		{"max-ulp", "-1"},
	} {
		code, stdout, stderr := runCLI(t, "diff", a, b, "--"+c.flag, c.value)
		if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "--"+c.flag) {
			t.Errorf("--%s %s: exit %d, want 2 with one line naming --%s (stdout %q stderr %q)", c.flag, c.value, code, c.flag, stdout, stderr)
		}
	}
	for _, args := range [][]string{{"--atol", "0", "--max-ulp", "0"}, {"--atol", "-0"}} {
		if code, _, stderr := runCLI(t, append([]string{"diff", a, a}, args...)...); code != 0 {
			t.Errorf("%v: exit %d, want 0 (%s)", args, code, stderr)
		}
	}
}

// fromFile converts a safetensors tensor into a tensor view with its own memory.
func fromFile(t safetensors.Tensor) (tensor.Tensor, error) { return safetensors.ToTensor(t) }
