package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/golden"
	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// goldenLlama4 is a small Llama 4 text config: attn_temperature_tuning by default (the query
// scale of the NoPE layers: layer 3 here, which random positions up to 2^20 cross the steps of)
// and RoPE on layers 0..2.
const goldenLlama4 = `{"model_type": "llama4", "text_config": {"model_type": "llama4_text", "hidden_size": 512, "head_dim": 64,
	"num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 4, "max_position_embeddings": 1048576,
	"rope_theta": 500000.0, "no_rope_layers": [1, 1, 1, 0]}}`

// goldenRun runs `rotary golden` and fails the test unless it exits 0.
func goldenRun(t *testing.T, args ...string) string {
	t.Helper()
	code, stdout, stderr := runCLI(t, append([]string{"golden"}, args...)...)
	if code != 0 {
		t.Fatalf("golden %v: exit %d: %s%s", args, code, stdout, stderr)
	}
	return stderr
}

// goldenApply runs `rotary apply --in bundle` with the bundle's apply_args and checks that apply
// writes exactly the bundle's out.* tensors, bit for bit.
func goldenApply(t *testing.T, bundle string) *safetensors.File {
	t.Helper()
	b, err := safetensors.ReadFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	if err := json.Unmarshal([]byte(b.Metadata["apply_args"]), &args); err != nil {
		t.Fatalf("%s: apply_args %q: %v", bundle, b.Metadata["apply_args"], err)
	}
	goldenApplyWith(t, bundle, args...)
	return b
}

// goldenApplyWith runs `rotary apply --in bundle` with args and checks that apply writes exactly
// the bundle's out.* tensors, bit for bit. It returns apply's stderr.
func goldenApplyWith(t *testing.T, bundle string, args ...string) string {
	t.Helper()
	b, err := safetensors.ReadFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "applied.safetensors")
	code, _, stderr := runCLI(t, append([]string{"apply", "--in", bundle, "--out", out}, args...)...)
	if code != 0 {
		t.Fatalf("apply %v on %s: exit %d: %s", args, bundle, code, stderr)
	}
	a, err := safetensors.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, n := range b.Names() {
		if name, ok := strings.CutPrefix(n, "out."); ok {
			want = append(want, name)
		}
	}
	if got := a.Names(); !slices.Equal(got, want) || len(want) == 0 {
		t.Fatalf("%s: apply wrote %v, the bundle expects %v", bundle, got, want)
	}
	for _, n := range want {
		g, _ := a.Get(n)
		e, _ := b.Get("out." + n)
		if g.DType != e.DType || !slices.Equal(g.Shape, e.Shape) || !bytes.Equal(g.Data, e.Data) {
			t.Fatalf("%s: apply's %s (%s %v) differs from out.%s (%s %v)", bundle, n, g.DType, g.Shape, n, e.DType, e.Shape)
		}
	}
	return stderr
}

// goldenModel is the model each op's bundle is made from in TestGoldenEveryOp: the family the op
// comes from where it has one, else one whose pairing or partial rotary the op's flags must carry.
func goldenModel(t *testing.T, dir, op string) []string {
	switch op {
	case "query_scale":
		return []string{"--config", writeFile(t, dir, "llama4.json", []byte(goldenLlama4)), "--layer", "3"}
	case "mrope":
		return []string{"--model", "qwen2-vl-7b"}
	case "interleave_rope", "kv_rmsnorm_rope_cache":
		return []string{"--model", "deepseek-v3"}
	case "qk_rmsnorm_rope":
		return []string{"--model", "qwen3-8b"}
	case "apply_rotary_emb", "apply_rotary_emb_backward":
		return []string{"--model", "gpt-j-6b"} // GPT-J pairs: --rotary-mode interleave must reach apply
	case "apply_rotary_emb_thd", "apply_rotary_emb_thd_backward":
		return []string{"--model", "phi-2"} // partial rotary
	}
	return []string{"--model", "llama-3.1-8b"}
}

// TestGoldenEveryOp: every registered op (a new one is covered by being registered; golden's
// TestEveryOpMakesInputs checks that it declares its inputs) makes a bundle in F32 and BF16, which apply takes as its --in and reproduces bit for bit with the
// flags the bundle records; the outputs are not the inputs.
func TestGoldenEveryOp(t *testing.T) {
	for _, op := range ops.Names() {
		for _, d := range []string{"F32", "BF16"} {
			t.Run(op+"/"+d, func(t *testing.T) {
				dir := t.TempDir()
				out := filepath.Join(dir, "g.safetensors")
				args := append(goldenModel(t, dir, op), "--op", op, "--dtype", d, "--tokens", "5", "--positions", "random", "--out", out)
				goldenRun(t, args...)
				b := goldenApply(t, out)
				if b.Metadata["op"] != op || b.Metadata["dtype"] != d {
					t.Errorf("metadata op %q dtype %q, want %s %s", b.Metadata["op"], b.Metadata["dtype"], op, d)
				}
				changed := false
				for _, n := range b.Names() {
					name, isOut := strings.CutPrefix(n, "out.")
					if !isOut {
						continue
					}
					o, _ := b.Get(n)
					in, ok := b.Get(name)
					changed = changed || !ok || !bytes.Equal(in.Data, o.Data)
				}
				if !changed {
					t.Errorf("every out.X equals its input X: the op did nothing")
				}
			})
		}
	}
}

// TestGoldenSeed: the same command line gives the same bytes; another seed other values (inputs
// and outputs), at the same shapes.
func TestGoldenSeed(t *testing.T) {
	dir := t.TempDir()
	paths := map[string]string{}
	for _, name := range []string{"a", "b", "c"} {
		seed := "7"
		if name == "c" {
			seed = "8"
		}
		paths[name] = filepath.Join(dir, name+".safetensors")
		goldenRun(t, "--model", "llama-3.1-8b", "--dtype", "BF16", "--seed", seed, "--positions", "random", "--out", paths[name])
	}
	a, _ := os.ReadFile(paths["a"])
	b, _ := os.ReadFile(paths["b"])
	if !bytes.Equal(a, b) {
		t.Fatal("two runs with seed 7 wrote different bytes")
	}
	fa, _ := safetensors.ReadFile(paths["a"])
	fc, _ := safetensors.ReadFile(paths["c"])
	if !slices.Equal(fa.Names(), fc.Names()) {
		t.Fatalf("seeds 7 and 8: tensors %v and %v", fa.Names(), fc.Names())
	}
	for _, n := range fa.Names() {
		x, _ := fa.Get(n)
		y, _ := fc.Get(n)
		if !slices.Equal(x.Shape, y.Shape) || bytes.Equal(x.Data, y.Data) {
			t.Errorf("%s: seeds 7 and 8 give shapes %v, %v and equal data %t: want equal shapes, other values", n, x.Shape, y.Shape, bytes.Equal(x.Data, y.Data))
		}
	}
}

// TestGoldenValues: values lie in (−1, 1) in every dtype (16-bit rounding included), positions
// follow --positions, and the defaults are 16 tokens at 0..15.
func TestGoldenValues(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []tensor.DType{tensor.F32, tensor.BF16, tensor.F16} {
		out := filepath.Join(dir, d.String()+".safetensors")
		goldenRun(t, "--model", "qwen3-8b", "--dtype", d.String(), "--tokens", "300", "--out", out)
		in, err := readInputs(out)
		if err != nil {
			t.Fatal(err)
		}
		q := in["query"]
		if q.DType != d || q.Shape[0] != 300 {
			t.Fatalf("%v: query %v %v", d, q.DType, q.Shape)
		}
		lo, hi := 0.0, 0.0
		for i := range q.Len() {
			v := q.Float64At(i)
			if !(v > -1 && v < 1) {
				t.Fatalf("%v: query element %d = %v: want (−1, 1)", d, i, v)
			}
			lo, hi = min(lo, v), max(hi, v)
		}
		if lo > -0.99 || hi < 0.99 {
			t.Errorf("%v: values span [%v, %v] of 1.5M draws: want nearly (−1, 1)", d, lo, hi)
		}
		if p := in["positions"]; p.Int64At(0) != 0 || p.Int64At(299) != 299 {
			t.Errorf("%v: positions %v … %v: want 0..299", d, p.Int64At(0), p.Int64At(299))
		}
	}

	out := filepath.Join(dir, "default.safetensors")
	goldenRun(t, "--model", "llama-3.1-8b", "--out", out)
	in, _ := readInputs(out)
	if p := in["positions"]; !slices.Equal(p.Shape, []int{16}) || p.Int64At(15) != 15 {
		t.Errorf("default positions %v: want [16] = 0..15", p.Shape)
	}

	out = filepath.Join(dir, "start.safetensors")
	goldenRun(t, "--model", "llama-3.1-8b", "--positions", "range:131060", "--tokens", "12", "--out", out)
	in, _ = readInputs(out)
	if p := in["positions"]; p.Int64At(0) != 131060 || p.Int64At(11) != 131071 {
		t.Errorf("range:131060: positions %d … %d", p.Int64At(0), p.Int64At(11))
	}

	// random: within the cache length vLLM builds (131072 for Llama 3.1), and not all small.
	out = filepath.Join(dir, "random.safetensors")
	goldenRun(t, "--model", "llama-3.1-8b", "--positions", "random", "--tokens", "200", "--out", out)
	in, _ = readInputs(out)
	p, largest := in["positions"], int64(0)
	for i := range p.Len() {
		v := p.Int64At(i)
		if v < 0 || v >= 131072 {
			t.Fatalf("random position %d = %d: want 0..131071", i, v)
		}
		largest = max(largest, v)
	}
	if largest < 65536 {
		t.Errorf("200 random positions all below %d", largest+1)
	}

	out = filepath.Join(dir, "random100.safetensors")
	goldenRun(t, "--model", "llama-3.1-8b", "--positions", "random:100", "--tokens", "200", "--out", out)
	in, _ = readInputs(out)
	p, largest = in["positions"], 0
	for i := range p.Len() {
		largest = max(largest, p.Int64At(i))
	}
	if largest >= 100 || largest < 90 {
		t.Errorf("random:100: largest of 200 positions %d: want 90..99", largest)
	}

	// A positions file, as apply reads it, gives the bundle's positions and token count.
	pf := writeTensors(t, dir, "pos.safetensors", safetensors.FromInt64s("positions", []int{3, 4}, []int64{5, 6, 7, 8, 5, 5, 9, 9, 1, 2, 3, 4}))
	out = filepath.Join(dir, "file.safetensors")
	goldenRun(t, "--model", "qwen2-vl-7b", "--positions", pf, "--out", out)
	b := goldenApply(t, out)
	got, _ := b.Get("positions")
	want := safetensors.FromInt64s("positions", []int{3, 4}, []int64{5, 6, 7, 8, 5, 5, 9, 9, 1, 2, 3, 4})
	if !slices.Equal(got.Shape, want.Shape) || !bytes.Equal(got.Data, want.Data) || b.Metadata["tokens"] != "4" || b.Metadata["op"] != "mrope" {
		t.Errorf("positions file: bundle positions %v, tokens %s, op %s", got.Shape, b.Metadata["tokens"], b.Metadata["op"])
	}
}

// TestGoldenMetadata: the keys the issue names, with their values, for a preset and a config.
func TestGoldenMetadata(t *testing.T) {
	dir := t.TempDir()
	js, err := hf.PresetJSON("gemma-3-4b")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(js)
	cfg := writeFile(t, dir, "config.json", js)
	for _, c := range []struct {
		args  []string
		model string
	}{
		{[]string{"--model", "gemma-3-4b"}, "gemma-3-4b"},
		{[]string{"--config", cfg}, "gemma3"}, // the top-level model_type
	} {
		out := filepath.Join(dir, "g.safetensors")
		stderr := goldenRun(t, append(c.args, "--op", "npu_rotary_mul", "--dtype", "bf16", "--seed", "42", "--layer", "5", "--tokens", "3", "--out", out)...)
		if stderr != "" {
			t.Errorf("%v: stderr %q with --layer given", c.args, stderr)
		}
		b := goldenApply(t, out)
		d, err := ops.NewDispatcher("all", ops.Auto)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{
			"op": "apply_rotary_emb", "model": c.model, "config_sha256": hex.EncodeToString(sum[:]), "dtype": "BF16", "seed": "42",
			"layer": "5", "tokens": "3", "positions": "range", "backend": d.Which("apply_rotary_emb"),
		}
		for k, v := range want {
			if b.Metadata[k] != v {
				t.Errorf("%v: metadata %s = %q, want %q", c.args, k, b.Metadata[k], v)
			}
		}
		for _, k := range []string{"rotary_version", "layer_type", "generator", "apply_args"} {
			if b.Metadata[k] == "" {
				t.Errorf("%v: metadata %s missing", c.args, k)
			}
		}
	}

	// Without --layer on a model whose layers differ: one line naming the kind used and the others.
	out := filepath.Join(dir, "g0.safetensors")
	stderr := goldenRun(t, "--model", "gemma-3-4b", "--out", out)
	if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "--layer 5") {
		t.Errorf("gemma-3-4b without --layer: stderr %q: want one line naming --layer 5", stderr)
	}

	// MRoPE models default to mrope (npu_mrope), with the model's sections and cache mode.
	goldenRun(t, "--model", "qwen3-vl-8b", "--out", out)
	b := goldenApply(t, out)
	if b.Metadata["op"] != "mrope" || !strings.Contains(b.Metadata["apply_args"], `"--mrope-cache-mode","interleave"`) ||
		!strings.Contains(b.Metadata["apply_args"], `"--mrope-section","24,20,20"`) {
		t.Errorf("qwen3-vl-8b: op %q apply_args %s", b.Metadata["op"], b.Metadata["apply_args"])
	}
	if p, _ := b.Get("positions"); !slices.Equal(p.Shape, []int{3, 16}) {
		t.Errorf("qwen3-vl-8b: positions %v: want [3, 16]", p.Shape)
	}
}

// TestGoldenSuite: --suite writes bundles over dtypes, token counts, random and boundary
// positions and each layer kind, and an index.json whose entries exist, load, and say what the
// bundles' metadata says.
func TestGoldenSuite(t *testing.T) {
	l4 := writeFile(t, t.TempDir(), "llama4.json", []byte(goldenLlama4))
	pf := writeTensors(t, t.TempDir(), "pos.safetensors", safetensors.FromInt32s("positions", []int{3}, []int32{7, 1, 131071}))
	for _, c := range []struct {
		args      []string
		layers    []int
		dtypes    int
		positions []string // positions the suite must hold
		note      string   // in stderr
	}{
		// Gemma 3: sliding layers (local base, no scaling) and full ones (every 6th).
		{[]string{"--model", "gemma-3-4b", "--tokens", "3", "--dtype", "F16"}, []int{0, 5}, 1, []string{"range", "random", "range:131069"}, ""},
		// Llama 3.1: the llama3 scaling's original 8192 and the 131072 cache.
		{[]string{"--model", "llama-3.1-8b"}, []int{0}, 3, []string{"range", "random", "range:8184", "range:131056"}, ""},
		// Llama 4: the rotated layers and the NoPE ones (where rotary_embedding passes q and k through).
		{[]string{"--config", l4, "--tokens", "2", "--dtype", "BF16"}, []int{0, 3}, 1, []string{"range", "random", "range:1048574"}, ""},
		// An op that takes cos/sin leaves the NoPE layers out.
		{[]string{"--config", l4, "--op", "interleave_rope", "--tokens", "2", "--dtype", "BF16"}, []int{0}, 1, []string{"range"}, "layer 3 left out"},
		// A positions file: one bundle per layer kind and dtype, its token count the file's.
		{[]string{"--model", "gemma-3-4b", "--dtype", "BF16", "--positions", pf}, []int{0, 5}, 1, []string{"file:" + pf}, ""},
		// A table op holds cos/sin up to its largest position: the 131072-row table is left out,
		// random positions lie below 2^21 / 128 rows.
		{[]string{"--model", "llama-3.1-8b", "--op", "apply_rotary_emb_thd", "--dtype", "BF16", "--tokens", "4"}, []int{0}, 1,
			[]string{"range", "random:16384", "range:8190"}, "positions from 131068: left out"},
	} {
		dir := filepath.Join(t.TempDir(), "suite")
		stderr := goldenRun(t, append(c.args, "--suite", dir)...)
		if c.note != "" && !strings.Contains(stderr, c.note) {
			t.Errorf("%v: stderr %q: want %q", c.args, stderr, c.note)
		}
		js, err := os.ReadFile(filepath.Join(dir, "index.json"))
		if err != nil {
			t.Fatal(err)
		}
		var index []golden.IndexEntry
		if err := json.Unmarshal(js, &index); err != nil {
			t.Fatal(err)
		}
		layers, dtypes, positions, tokens := map[int]bool{}, map[string]bool{}, map[string]bool{}, map[int]bool{}
		for _, e := range index {
			path := filepath.Join(dir, e.File)
			b, err := safetensors.ReadFile(path)
			if err != nil {
				t.Fatalf("%v: index entry %s: %v", c.args, e.File, err)
			}
			m := b.Metadata
			if m["op"] != e.Op || m["dtype"] != e.DType || m["tokens"] != strconv.Itoa(e.Tokens) || m["positions"] != e.Positions || m["layer"] != strconv.Itoa(e.Layer) {
				t.Errorf("%s: metadata %v disagrees with its index entry %+v", e.File, m, e)
			}
			layers[e.Layer], dtypes[e.DType], positions[e.Positions], tokens[e.Tokens] = true, true, true, true
		}
		goldenApply(t, filepath.Join(dir, index[len(index)-1].File))
		entries, _ := os.ReadDir(dir)
		if len(entries) != len(index)+1 {
			t.Errorf("%v: %d files beside index.json, %d indexed", c.args, len(entries)-1, len(index))
		}
		for _, l := range c.layers {
			if !layers[l] {
				t.Errorf("%v: no bundle of layer %d (have %v)", c.args, l, layers)
			}
		}
		if len(layers) != len(c.layers) || len(dtypes) != c.dtypes {
			t.Errorf("%v: layers %v, dtypes %v: want %v and %d dtypes", c.args, layers, dtypes, c.layers, c.dtypes)
		}
		for _, p := range c.positions {
			if !positions[p] {
				t.Errorf("%v: no bundle at positions %s (have %v)", c.args, p, positions)
			}
		}
		if c.dtypes == 3 && len(tokens) < 3 {
			t.Errorf("%v: token counts %v: want several", c.args, tokens)
		}
	}
}

// TestGoldenBadInput: exit 2 with one line naming the argument, and nothing written.
func TestGoldenBadInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "g.safetensors")
	suite := filepath.Join(dir, "suite")
	noPositions := writeTensors(t, dir, "nopos.safetensors", safetensors.FromInt64s("ids", []int{2}, []int64{1, 2}))
	batchPositions := writeTensors(t, dir, "batch.safetensors", safetensors.FromInt64s("positions", []int{3, 2, 2}, make([]int64, 12)))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--model", "llama-3.1-8b", "--op", "rope_magic", "--out", out}, "--op \"rope_magic\": want one of apply_rotary_emb"},
		{[]string{"--model", "llama-3.1-8b", "--op", "Npu_Rotary_Mul", "--out", out}, "npu_rotary_mul"},
		{[]string{"--model", "llama-3.1-8b", "--tokens", "0", "--out", out}, "--tokens 0"},
		{[]string{"--model", "llama-3.1-8b", "--tokens", "-3", "--out", out}, "--tokens -3"},
		{[]string{"--model", "llama-3.1-8b", "--tokens", "99999999999", "--out", out}, "--tokens 99999999999"},
		{[]string{"--model", "deepseek-v3", "--tokens", "1000000", "--out", out}, "--tokens 1000000"},
		{[]string{"--model", "llama-3.1-8b"}, "--out: missing"},
		{[]string{"--model", "llama-3.1-8b", "--layer", "32", "--out", out}, "--layer 32"},
		{[]string{"--model", "llama-3.1-8b", "--layer", "-1", "--out", out}, "--layer"},
		{[]string{"--model", "llama-3.1-8b", "--layer", "-1", "--suite", suite}, "--layer"},
		{[]string{"--model", "llama-3.1-8b", "--dtype", "I8", "--out", out}, "--dtype \"I8\""},
		{[]string{"--model", "llama-3.1-8b", "--positions", "range:-4", "--out", out}, "--positions \"range:-4\""},
		{[]string{"--model", "llama-3.1-8b", "--positions", "random:0", "--out", out}, "--positions \"random:0\""},
		{[]string{"--model", "llama-3.1-8b", "--positions", noPositions, "--out", out}, "missing tensor \"positions\""},
		{[]string{"--model", "qwen2-vl-7b", "--positions", batchPositions, "--out", out}, "a batch of 2 sequences"},
		{[]string{"--model", "llama-3.1-8b", "--format", "csv", "--out", out}, "--format \"csv\""},
		{[]string{"--model", "deepseek-v3", "--op", "kv_rmsnorm_rope_cache", "--kv-quant", "int4", "--out", out}, "--kv-quant \"int4\""},
		{[]string{"--model", "deepseek-v3", "--kv-quant", "sym", "--out", out}, "--kv-quant sym: only --op kv_rmsnorm_rope_cache"},
		{[]string{"--model", "llama-3.1-8b", "--out", out, "--suite", suite}, "--out and --suite"},
		{[]string{"--model", "nope-7b", "--out", out}, "nope-7b"},
		{[]string{"--out", out}, "--config: missing"},
		{[]string{"--config", filepath.Join(dir, "absent.json"), "--out", out}, "absent.json"},
		{[]string{"--model", "llama-3.1-8b", "--op", "query_scale", "--out", out}, "query scale"},
		{[]string{"--config", writeFile(t, dir, "l4.json", []byte(goldenLlama4)), "--layer", "3", "--op", "apply_rotary_emb", "--out", out}, "no RoPE"},
		{[]string{"--model", "llama-3.1-8b", "--op", "apply_rotary_emb_thd", "--cp-size", "2", "--tokens", "3", "--out", out}, "--tokens 3"},
		{[]string{"--model", "llama-3.1-8b", "--op", "apply_rotary_emb_thd", "--cp-size", "65536", "--tokens", "65536", "--out", out}, "--cp-size 65536"},
		{[]string{"--model", "llama-3.1-8b", "--op", "kv_rmsnorm_rope_cache", "--cache-mode", "PB", "--out", out}, "--cache-mode"},
		{[]string{"--model", "llama-3.1-8b", "--out", out, "extra"}, "unexpected argument"},
		{[]string{"--model", "llama-3.1-8b", "--op", "mrope", "--positions", "range:2147483000", "--out", out}, "--positions range:2147483000: --op mrope would hold cos/sin tables"},
		{[]string{"--model", "qwen2.5-7b-instruct-1m", "--op", "apply_rotary_emb", "--out", out}, "--op apply_rotary_emb: dual-chunk"},
		{[]string{"--config", writeFile(t, dir, "l4s.json", []byte(goldenLlama4)), "--layer", "3", "--op", "interleave_rope", "--suite", suite}, "--layer 3"},
	} {
		code, stdout, stderr := runCLI(t, append([]string{"golden"}, c.args...)...)
		if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q: want exit 2 and one line naming %s", c.args, code, stdout, stderr, c.want)
		}
		for _, p := range []string{out, suite} {
			if _, err := os.Stat(p); !os.IsNotExist(err) {
				t.Fatalf("%v: %s was written by a failed run", c.args, p)
			}
		}
	}
}

// TestGoldenNPY: --format npy writes the safetensors bundle's tensors, bit for bit, one .npy per
// tensor with the metadata beside, and apply takes the directory as its --in.
func TestGoldenNPY(t *testing.T) {
	dir := t.TempDir()
	st := filepath.Join(dir, "g.safetensors")
	npy := filepath.Join(dir, "g")
	args := []string{"--model", "deepseek-v3", "--op", "kv_rmsnorm_rope_cache", "--dtype", "BF16", "--tokens", "4", "--seed", "3", "--output-kv"}
	goldenRun(t, append(args, "--out", st)...)
	goldenRun(t, append(args, "--format", "npy", "--out", npy)...)
	want, err := readInputSet(st)
	if err != nil {
		t.Fatal(err)
	}
	got, err := readInputSet(npy)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Tensors) != len(want.Tensors) {
		t.Fatalf("npy: %d tensors, safetensors %d", len(got.Tensors), len(want.Tensors))
	}
	for n, w := range want.Tensors {
		g, ok := got.Tensors[n]
		if !ok {
			t.Fatalf("npy: no %s", n)
		}
		extraSame(t, n, g, w)
	}
	stBundle, _ := safetensors.ReadFile(st)
	for k, v := range stBundle.Metadata {
		if got.Metadata[k] != v {
			t.Errorf("npy metadata %s = %q, want %q", k, got.Metadata[k], v)
		}
	}
	var applyArgs []string
	_ = json.Unmarshal([]byte(stBundle.Metadata["apply_args"]), &applyArgs)
	out := filepath.Join(dir, "applied.safetensors")
	if code, _, stderr := runCLI(t, append([]string{"apply", "--in", npy, "--out", out}, applyArgs...)...); code != 0 {
		t.Fatalf("apply --in %s: exit %d: %s", npy, code, stderr)
	}
	applied, _ := readInputs(out)
	for n, a := range applied {
		extraSame(t, n, a, want.Tensors["out."+n])
	}
	if len(applied) != 4 || !strings.Contains(stBundle.Metadata["apply_args"], `"--output-kv=true"`) {
		t.Errorf("--output-kv: apply wrote %d tensors (want k_cache, ckv_cache, k_rope, c_kv); apply_args %s", len(applied), stBundle.Metadata["apply_args"])
	}

	// A suite in npy: each indexed bundle is a directory the readers take.
	suite := filepath.Join(dir, "suite")
	goldenRun(t, "--model", "qwen3-8b", "--op", "qk_rmsnorm_rope", "--dtype", "F32", "--tokens", "2", "--format", "npy", "--suite", suite)
	js, err := os.ReadFile(filepath.Join(suite, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var index []golden.IndexEntry
	if err := json.Unmarshal(js, &index); err != nil || len(index) < 3 {
		t.Fatalf("index.json: %d entries, %v", len(index), err)
	}
	for _, e := range index {
		s, err := readInputSet(filepath.Join(suite, e.File))
		if err != nil {
			t.Fatal(err)
		}
		if s.Metadata["positions"] != e.Positions || s.Tensors["out.query"].IsZero() {
			t.Errorf("%s: metadata positions %q (index %q), out.query present %t", e.File, s.Metadata["positions"], e.Positions, !s.Tensors["out.query"].IsZero())
		}
	}
}

// TestGoldenCosSinAsTheModel: the explicit-cos/sin ops' bundles hold the model's cos/sin in their
// layout and pairing: in F32 (cos/sin unrounded) and with the same draws, their outputs equal
// rotary_embedding's out.query bit for bit, for NeoX, GPT-J and partial-rotary models.
func TestGoldenCosSinAsTheModel(t *testing.T) {
	dir := t.TempDir()
	for _, model := range []string{"llama-3.1-8b", "gpt-j-6b", "phi-2"} {
		for _, positions := range []string{"range", "range:8190"} {
			bundle := func(op string, extra ...string) *safetensors.File {
				out := filepath.Join(dir, op+".safetensors")
				goldenRun(t, append([]string{"--model", model, "--op", op, "--tokens", "5", "--positions", positions, "--seed", "9", "--out", out}, extra...)...)
				f, err := safetensors.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				return f
			}
			ref := bundle("rotary_embedding")
			want, _ := ref.Get("out.query")
			for _, c := range []struct {
				op    string
				extra []string
				out   string
			}{
				{"apply_rotary_emb", nil, "out.out"},
				{"apply_rotary_emb", []string{"--layout", "THD"}, "out.out"},
				{"apply_rotary_emb_thd", nil, "out.out"},
				{"mrope", nil, "out.query"},
				{"rotary_embedding_gathered", nil, "out.query"},
			} {
				got, _ := bundle(c.op, c.extra...).Get(c.out)
				if !bytes.Equal(got.Data, want.Data) || got.NumElements() != want.NumElements() {
					t.Errorf("%s %s %v at %s: %s differs from rotary_embedding's out.query", model, c.op, c.extra, positions, c.out)
				}
			}
		}
	}
}

// pcgDXSM is PCG with 128-bit state and the DXSM output (numpy's PCG64DXSM multiplier, Go
// math/rand/v2's fixed increment and state seeding), written from the definition: what a reader
// in another language implements to redraw a bundle's inputs from its generator metadata.
type pcgDXSM struct{ hi, lo uint64 }

func (p *pcgDXSM) next() uint64 {
	const mulHi, mulLo = 0x2360ed051fc65da4, 0x4385df649fccf645
	const incHi, incLo = 6364136223846793005, 1442695040888963407
	hi, lo := bits.Mul64(p.lo, mulLo)
	hi += p.hi*mulLo + p.lo*mulHi
	lo, c := bits.Add64(lo, incLo, 0)
	hi, _ = bits.Add64(hi, incHi, c)
	p.hi, p.lo = hi, lo
	hi ^= hi >> 32
	hi *= 0xda942042e4dd58b5
	hi ^= hi >> 48
	return hi * (lo | 1)
}

// TestGoldenGenerator: the values are the generator metadata's formula over PCG-DXSM seeded
// (seed, 0x726f74617279), one draw per value in tensor order; random positions are u mod the
// cache length.
func TestGoldenGenerator(t *testing.T) {
	out := filepath.Join(t.TempDir(), "g.safetensors")
	goldenRun(t, "--model", "qwen3-8b", "--seed", "12345", "--tokens", "3", "--positions", "random", "--out", out)
	in, err := readInputs(out)
	if err != nil {
		t.Fatal(err)
	}
	p := pcgDXSM{12345, 0x726f74617279}
	pos := in["positions"]
	for i := range pos.Len() {
		if want := int64(p.next() % 40960); pos.Int64At(i) != want { // qwen3-8b: max_position_embeddings 40960
			t.Fatalf("position %d = %d, want %d", i, pos.Int64At(i), want)
		}
	}
	for _, name := range []string{"query", "key"} {
		x := in[name]
		for i := range x.Len() {
			u := p.next() >> 40
			want := float32((float64(2*u+1) - (1 << 24)) / (1 << 24))
			if got := x.F32[i]; got != want {
				t.Fatalf("%s element %d = %v, want %v", name, i, got, want)
			}
		}
	}
}

// TestGoldenModelFlags: the model flags apply shares (--style, --rope, --longrope-factor, ...) reach
// the bundle's apply_args, so apply reproduces bundles made under them.
func TestGoldenModelFlags(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--model", "llama-3.1-8b", "--style", "gptj"},
		{"--model", "phi-3-mini-128k", "--longrope-factor", "lengths", "--positions", "range:4090"},
		{"--model", "deepseek-v3.2-exp", "--rope", "indexer", "--op", "qk_rmsnorm_rope"},
	} {
		out := filepath.Join(dir, "g.safetensors")
		goldenRun(t, append(args, "--out", out)...)
		b := goldenApply(t, out)
		if !strings.Contains(b.Metadata["apply_args"], `"`+args[2]+`","`+args[3]+`"`) {
			t.Errorf("%v: apply_args %s lacks %s %s", args, b.Metadata["apply_args"], args[2], args[3])
		}
	}
}

// TestGoldenOpFlags: bundles made under an op's own flags (cache modes, int8 caches, layouts,
// context parallelism, a query-scale rule without the model's) are valid apply inputs under the
// flags they record.
func TestGoldenOpFlags(t *testing.T) {
	dir := t.TempDir()
	var cases [][]string
	for _, mode := range []string{"Norm", "PA", "PA_BNSD", "PA_NZ", "PA_BLK_BNSD", "PA_BLK_NZ"} {
		cases = append(cases, []string{"--model", "deepseek-v3", "--op", "npu_kv_rmsnorm_rope_cache", "--cache-mode", mode, "--output-kv", "--tokens", "37", "--dtype", "BF16", "--positions", "random"})
		for _, q := range []string{"sym", "asym"} {
			cases = append(cases, []string{"--model", "deepseek-v3", "--op", "kv_rmsnorm_rope_cache", "--cache-mode", mode, "--kv-quant", q, "--tokens", "21", "--dtype", "F16"})
		}
	}
	for _, layout := range []string{"BNSD", "SBND", "THD"} {
		cases = append(cases, []string{"--model", "gpt-j-6b", "--op", "apply_rotary_emb", "--layout", layout, "--dtype", "F16"},
			[]string{"--model", "llama-3.1-8b", "--op", "apply_rotary_emb_backward", "--layout", layout, "--rotary-mode", "interleave"})
	}
	cases = append(cases,
		[]string{"--model", "phi-2", "--op", "apply_rotary_emb_thd", "--cp-size", "2", "--cp-rank", "1", "--tokens", "6", "--positions", "random"},
		[]string{"--model", "phi-2", "--op", "apply_rotary_emb_thd_backward", "--positions", "range:100"},
		[]string{"--model", "qwen2-vl-7b", "--op", "npu_mrope", "--positions", "random", "--dtype", "BF16"},
		[]string{"--model", "llama-3.1-8b", "--op", "query_scale", "--query-scale", "beta", "--beta", "0.25", "--original-max", "16", "--positions", "random"},
	)
	for _, args := range cases {
		out := filepath.Join(dir, "g.safetensors")
		goldenRun(t, append(args, "--out", out)...)
		b := goldenApply(t, out)
		if slices.Contains(args, "--kv-quant") {
			// int8 caches with their scales (and offsets for asym), and some slots saturated.
			kc, _ := b.Get("out.k_cache")
			_, hasOffset := b.Get("c_kv_offset")
			_, hasScale := b.Get("k_rope_scale")
			saturated := bytes.Count(kc.Data, []byte{0x7f}) + bytes.Count(kc.Data, []byte{0x80})
			if kc.DType != "I8" || !hasScale || hasOffset != slices.Contains(args, "asym") || saturated == 0 {
				t.Errorf("%v: k_cache %s, k_rope_scale %t, c_kv_offset %t, %d saturated", args, kc.DType, hasScale, hasOffset, saturated)
			}
		}
	}
}

// TestGoldenInterleaveAsTheModel: interleave_rope's bundle holds DeepSeek-V3's cos/sin (YaRN past
// the original length) in the op's NeoX order: with one token its x is rotary_embedding's query
// (the same draws), and its out is rotary_embedding's out.query de-interleaved, bit for bit; the
// kv_rmsnorm_rope_cache bundle holds the same cos/sin.
func TestGoldenInterleaveAsTheModel(t *testing.T) {
	dir := t.TempDir()
	read := func(op string) map[string]tensor.Tensor {
		out := filepath.Join(dir, op+".safetensors")
		goldenRun(t, "--model", "deepseek-v3", "--op", op, "--tokens", "1", "--positions", "range:5000", "--out", out)
		in, err := readInputs(out)
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	ref, got := read("rotary_embedding"), read("interleave_rope")
	q, x, want, out := ref["query"].F32, got["x"].F32, ref["out.query"].F32, got["out.out"].F32
	const D = 64 // qk_rope_head_dim: the head is the rotary dim
	if len(x) != len(q) || len(out) != len(want) || !slices.Equal(x, q) {
		t.Fatalf("x (%d values) is not rotary_embedding's query (%d)", len(x), len(q))
	}
	for h := range len(q) / D {
		for i := range D / 2 {
			if out[h*D+i] != want[h*D+2*i] || out[h*D+D/2+i] != want[h*D+2*i+1] {
				t.Fatalf("head %d pair %d: out %v, %v; rotary_embedding %v, %v", h, i, out[h*D+i], out[h*D+D/2+i], want[h*D+2*i], want[h*D+2*i+1])
			}
		}
	}
	// kv_rmsnorm_rope_cache takes cos/sin in the same order (its rope part rotates GPT-J pairs
	// into NeoX order, as interleave_rope does).
	kv := read("kv_rmsnorm_rope_cache")
	for _, n := range []string{"cos", "sin"} {
		if !slices.Equal(kv[n].F32, got[n].F32) {
			t.Errorf("kv_rmsnorm_rope_cache's %s differs from interleave_rope's", n)
		}
	}
}

// TestGoldenConfigEpsilon: the norms' ε comes from the config's rms_norm_eps, and apply is given it.
func TestGoldenConfigEpsilon(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ preset, op, flag string }{
		{"qwen3-8b", "qk_rmsnorm_rope", "--epsilon-qk"},
		{"deepseek-v3", "kv_rmsnorm_rope_cache", "--epsilon"},
	} {
		js, err := hf.PresetJSON(c.preset)
		if err != nil {
			t.Fatal(err)
		}
		var cfg map[string]any
		if err := json.Unmarshal(js, &cfg); err != nil {
			t.Fatal(err)
		}
		cfg["rms_norm_eps"] = 0.25 // large enough that a missed ε shows in every output
		js, _ = json.Marshal(cfg)
		out := filepath.Join(dir, "g.safetensors")
		goldenRun(t, "--config", writeFile(t, dir, c.preset+".json", js), "--op", c.op, "--tokens", "2", "--out", out)
		b := goldenApply(t, out)
		if !strings.Contains(b.Metadata["apply_args"], `"`+c.flag+`","0.25"`) {
			t.Errorf("%s: apply_args %s: want %s 0.25", c.op, b.Metadata["apply_args"], c.flag)
		}
	}
}

// TestGoldenCosSinRounded: in a 16-bit bundle, cos/sin and the tables are the F32 bundle's
// rounded to nearest even: a cos just below 1 becomes 1, as any framework's cast gives it (the
// random values' rule, which keeps them below 1, is not theirs).
func TestGoldenCosSinRounded(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ op, tensor string }{
		{"apply_rotary_emb", "cos"}, {"apply_rotary_emb_thd", "cos"}, {"mrope", "cos_sin_cache"}, {"kv_rmsnorm_rope_cache", "cos"},
	} {
		read := func(d tensor.DType) tensor.Tensor {
			out := filepath.Join(dir, c.op+d.String()+".safetensors")
			goldenRun(t, "--model", "deepseek-v3", "--op", c.op, "--dtype", d.String(), "--positions", "range:3", "--out", out)
			in, err := readInputs(out)
			if err != nil {
				t.Fatal(err)
			}
			return in[c.tensor]
		}
		f32 := read(tensor.F32)
		ones := 0
		for _, d := range []tensor.DType{tensor.BF16, tensor.F16} {
			h := read(d)
			if h.Len() != f32.Len() {
				t.Fatalf("%s %s: %d values, F32 %d", c.op, d, h.Len(), f32.Len())
			}
			for i := range f32.Len() {
				if want := tensor.FromFloat32(d, f32.F32[i]); h.Bits[i] != want {
					t.Fatalf("%s %s %s[%d] = %#x, want %#x (%v rounded)", c.op, d, c.tensor, i, h.Bits[i], want, f32.F32[i])
				}
				if f32.F32[i] < 1 && tensor.ToFloat32(d, h.Bits[i]) == 1 {
					ones++
				}
			}
		}
		if ones == 0 {
			t.Errorf("%s: no cos below 1 rounds to 1: the case does not test the rounding", c.op)
		}
	}
}

// TestGoldenHelp: -h is the usage on stdout with exit 0: golden's flags, then the ops' flags by name.
func TestGoldenHelp(t *testing.T) {
	code, stdout, stderr := runCLI(t, "golden", "-h")
	if code != 0 || stderr != "" || !strings.HasPrefix(stdout, "usage: rotary golden (--model PRESET | --config C.json)") ||
		!strings.Contains(stdout, "-suite DIR") || !strings.Contains(stdout, "--cache-mode, --cp-rank") || strings.Contains(stdout, "-cache-mode MODE") {
		t.Errorf("golden -h: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
}

// TestGoldenHeads: --heads and --kv-heads replace the model's head counts in the inputs (a
// tensor-parallel shard; MLA's one shared k_pe head), the metadata records the counts, apply
// --in the bundle reproduces its outputs bit for bit, and a bad count is refused naming its flag.
func TestGoldenHeads(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args  []string
		shape map[string][]int
	}{
		{[]string{"--model", "deepseek-v3", "--kv-heads", "1"}, map[string][]int{"query": {3, 128, 64}, "key": {3, 1, 64}}},
		{[]string{"--model", "llama-3.1-8b", "--heads", "8", "--kv-heads", "2"}, map[string][]int{"query": {3, 8, 128}, "key": {3, 2, 128}}},
		{[]string{"--model", "qwen2.5-vl-7b", "--heads", "7", "--kv-heads", "1"}, map[string][]int{"query": {3, 7 * 128}, "key": {3, 128}}},
		{[]string{"--model", "llama-3.1-8b", "--heads", "4", "--op", "npu_rotary_mul", "--layout", "BNSD"}, map[string][]int{"x": {1, 4, 3, 128}}},
	} {
		out := filepath.Join(dir, "g.safetensors")
		goldenRun(t, append(c.args, "--tokens", "3", "--dtype", "BF16", "--out", out)...)
		b := goldenApply(t, out)
		for name, want := range c.shape {
			if g, ok := b.Get(name); !ok || !slices.Equal(g.Shape, want) {
				t.Errorf("%v: %s shape %v, want %v", c.args, name, g.Shape, want)
			}
		}
		hq, hk := c.shape["query"], c.shape["key"]
		if hq != nil && hk != nil && len(hq) == 3 && (b.Metadata["heads"] != strconv.Itoa(hq[1]) || b.Metadata["kv_heads"] != strconv.Itoa(hk[1])) {
			t.Errorf("%v: metadata heads %q, kv_heads %q, want %d and %d", c.args, b.Metadata["heads"], b.Metadata["kv_heads"], hq[1], hk[1])
		}
		goldenApplyWith(t, out) // the recorded apply_args alone
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--heads", "0"}, "--heads 0"},
		{[]string{"--kv-heads", "-1"}, "--kv-heads -1"},
		{[]string{"--heads", "100000"}, "--heads 100000"},
		{[]string{"--op", "kv_rmsnorm_rope_cache", "--heads", "2"}, "no heads"},
	} {
		code, _, stderr := runCLI(t, append([]string{"golden", "--model", "deepseek-v3", "--tokens", "2", "--out", filepath.Join(dir, "bad.safetensors")}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("golden %v: exit %d, %q: want 2 naming %q", c.args, code, stderr, c.want)
		}
	}
}
