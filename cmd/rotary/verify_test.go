package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/compare"
	"github.com/rotary-go/rotary/npy"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// bundle is a small golden bundle as `rotary golden` lays one out: the inputs under the names
// apply reads, the expected outputs under out.X, the op in the metadata.
type bundle struct {
	path       string
	query, key []float32 // the expected outputs, BF16-exact
}

const bT, bH, bK, bD = 4, 3, 2, 8

func writeBundle(t *testing.T, dir string) bundle {
	t.Helper()
	q := bf16Exact(randomHeads(bT*bH*bD, 11))
	k := bf16Exact(randomHeads(bT*bK*bD, 12))
	st := []safetensors.Tensor{
		safetensors.FromInt64s("positions", []int{bT}, []int64{0, 1, 2, 3}),
		encodeAs(tensor.BF16, "query", []int{bT, bH, bD}, randomHeads(bT*bH*bD, 13)),
		encodeAs(tensor.BF16, "key", []int{bT, bK, bD}, randomHeads(bT*bK*bD, 14)),
		encodeAs(tensor.BF16, "out.query", []int{bT, bH, bD}, q),
		encodeAs(tensor.BF16, "out.key", []int{bT, bK, bD}, k),
	}
	p := filepath.Join(dir, "golden.safetensors")
	md := map[string]string{"op": "rotary_embedding", "model": "llama-3.1-8b", "dtype": "BF16"}
	if err := safetensors.WriteFile(p, st, md); err != nil {
		t.Fatal(err)
	}
	return bundle{p, q, k}
}

// bf16Exact rounds v to BF16 values, so that encodeAs stores them unchanged.
func bf16Exact(v []float32) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = tensor.Float32FromBF16(tensor.BF16FromFloat32(x))
	}
	return out
}

// wrongAt returns v with element (tok, head, dim) of a [T,H,D] tensor moved by 8 BF16 ULPs.
func wrongAt(v []float32, H, D, tok, head, dim int) ([]float32, float32, float32) {
	w := append([]float32(nil), v...)
	i := (tok*H+head)*D + dim
	bits := tensor.BF16FromFloat32(w[i]) + 8
	w[i] = tensor.Float32FromBF16(bits)
	return w, v[i], w[i]
}

// TestVerifyLocatesWrongElement: a candidate written by another program with one wrong
// element fails, and verify prints that element's token, head and dim and both values, in
// safetensors, in a .npy directory and in the [T,H·D] layout.
func TestVerifyLocatesWrongElement(t *testing.T) {
	dir := t.TempDir()
	g := writeBundle(t, dir)
	q, want, got := wrongAt(g.query, bH, bD, 2, 1, 5)
	cands := map[string]string{
		"safetensors": writeTensors(t, dir, "cand.safetensors",
			encodeAs(tensor.BF16, "query", []int{bT, bH, bD}, q),
			encodeAs(tensor.BF16, "key", []int{bT, bK, bD}, g.key)),
		"flat layout": writeTensors(t, dir, "flat.safetensors",
			encodeAs(tensor.BF16, "query", []int{bT, bH * bD}, q),
			encodeAs(tensor.BF16, "key", []int{bT, bK * bD}, g.key)),
	}
	npyDir := filepath.Join(dir, "npy")
	qt, _ := fromFile(encodeAs(tensor.BF16, "query", []int{bT, bH, bD}, q))
	kt, _ := fromFile(encodeAs(tensor.BF16, "key", []int{bT, bK, bD}, g.key))
	if err := npy.WriteDir(npyDir, map[string]tensor.Tensor{"query": qt, "key": kt}, nil, nil); err != nil {
		t.Fatal(err)
	}
	cands["npy"] = npyDir
	for name, cand := range cands {
		t.Run(name, func(t *testing.T) {
			code, out, stderr := runCLI(t, "verify", g.path, cand)
			if code != 1 {
				t.Fatalf("exit %d, want 1\n%s%s", code, out, stderr)
			}
			wantLine := "at token 2, head 1, dim 5: golden " + compare.FormatValue(tensor.BF16, float64(want)) + ", candidate " + compare.FormatValue(tensor.BF16, float64(got))
			if !strings.Contains(out, wantLine) || !strings.Contains(out, "1 elements over tolerance") {
				t.Errorf("stdout lacks %q:\n%s", wantLine, out)
			}
			if !strings.Contains(out, "op rotary_embedding") || !strings.Contains(stderr, "1 of 2 outputs fail") {
				t.Errorf("stdout %q stderr %q", out, stderr)
			}
			if name == "flat layout" && !strings.Contains(out, "shape [4,3,8] vs [4,24]: compared element by element") {
				t.Errorf("the layout note is missing:\n%s", out)
			}
			code, out, _ = runCLI(t, "verify", g.path, cand, "--json")
			if code != 1 {
				t.Fatalf("--json: exit %d", code)
			}
			var rows []map[string]any
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				var m map[string]any
				if err := json.Unmarshal([]byte(l), &m); err != nil {
					t.Fatalf("%v: %s", err, l)
				}
				rows = append(rows, m)
			}
			if len(rows) != 2 || rows[0]["name"] != "out.key" || rows[1]["name"] != "out.query" || rows[1]["candidate"] != "query" {
				t.Fatalf("rows %v", rows)
			}
			worst := rows[1]["worst"].([]any)[0].(map[string]any)
			if idx, _ := json.Marshal(worst["index"]); string(idx) != "[2,1,5]" || worst["a"] != float64(want) || worst["b"] != float64(got) {
				t.Errorf("worst %v, want index [2,1,5], a %v, b %v", worst, want, got)
			}
			if ax, _ := json.Marshal(worst["axes"]); string(ax) != `["token","head","dim"]` {
				t.Errorf("axes %s", ax)
			}
		})
	}
}

// TestVerifyPasses: the exact outputs pass, as X or as out.X; a bundle verified against
// itself compares out.X with out.X, not with the input X.
func TestVerifyPasses(t *testing.T) {
	dir := t.TempDir()
	g := writeBundle(t, dir)
	cand := writeTensors(t, dir, "cand.safetensors",
		encodeAs(tensor.BF16, "query", []int{bT, bH, bD}, g.query),
		encodeAs(tensor.BF16, "key", []int{bT, bK, bD}, g.key))
	for _, c := range []string{cand, g.path} {
		code, out, stderr := runCLI(t, "verify", g.path, c)
		if code != 0 || !strings.Contains(out, "all 2 outputs within tolerance") {
			t.Errorf("%s: exit %d\n%s%s", c, code, out, stderr)
		}
	}
	// Within --ulp: the element 8 ULPs off passes at --ulp 8, fails at 7.
	q, _, _ := wrongAt(g.query, bH, bD, 0, 0, 0)
	off := writeTensors(t, dir, "off.safetensors",
		encodeAs(tensor.BF16, "query", []int{bT, bH, bD}, q),
		encodeAs(tensor.BF16, "key", []int{bT, bK, bD}, g.key))
	if code, out, _ := runCLI(t, "verify", g.path, off, "--ulp", "8"); code != 0 {
		t.Errorf("--ulp 8: exit %d\n%s", code, out)
	}
	if code, _, _ := runCLI(t, "verify", g.path, off, "--ulp", "7"); code != 1 {
		t.Errorf("--ulp 7: exit %d", code)
	}
}

// TestVerifyMissingOrMisshapen: a missing output and one with another element count are
// failures naming them, printed without figures.
func TestVerifyMissingOrMisshapen(t *testing.T) {
	dir := t.TempDir()
	g := writeBundle(t, dir)
	cand := writeTensors(t, dir, "cand.safetensors",
		encodeAs(tensor.BF16, "query", []int{bT, bH, bD - 1}, g.query[:bT*bH*(bD-1)]))
	code, out, _ := runCLI(t, "verify", g.path, cand)
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, want := range []string{
		"out.key                  not compared: missing from the candidate (want key or out.key in " + cand + ")",
		"out.query (query)        not compared: shape [4,3,8] vs [4,3,7]: 96 vs 84 elements",
	} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
}

// TestVerifyBadInput: exit 2 with one line for inputs that are no bundle or no file, and
// for bad flags.
func TestVerifyBadInput(t *testing.T) {
	dir := t.TempDir()
	g := writeBundle(t, dir)
	plain := writeTensors(t, dir, "plain.safetensors", encodeAs(tensor.F32, "query", []int{2}, []float32{1, 2}))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"verify", plain, g.path}, "no expected outputs"},
		{[]string{"verify", g.path, filepath.Join(dir, "nope.safetensors")}, "nope.safetensors"},
		{[]string{"verify", g.path}, "want GOLDEN and CANDIDATE"},
		{[]string{"verify", g.path, g.path, "--ulp", "-1"}, "--ulp"},
		{[]string{"verify", g.path, g.path, "--atol", "NaN"}, "--atol"},
		{[]string{"verify", g.path, g.path, "--show", "-1"}, "--show"},
	} {
		code, out, stderr := runCLI(t, c.args...)
		if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d stderr %q stdout %q: want exit 2, one line with %q", c.args[1:], code, stderr, out, c.want)
		}
	}
}

// TestVerifyRaw: a hardware harness's raw dumps are the candidate.
func TestVerifyRaw(t *testing.T) {
	dir := t.TempDir()
	g := writeBundle(t, dir)
	raw := func(name string, v []float32) string {
		st := encodeAs(tensor.BF16, name, nil, v)
		return writeFile(t, dir, name+".bin", st.Data)
	}
	q, _, _ := wrongAt(g.query, bH, bD, 3, 2, 7)
	k := raw("k", g.key)
	args := []string{"verify", g.path, "--raw", "out.key=BF16:4,2,8:" + k}
	if code, out, stderr := runCLI(t, append(args, "--raw", "query=bf16:[4,3,8]:"+raw("q", g.query))...); code != 0 {
		t.Errorf("exact raw: exit %d\n%s%s", code, out, stderr)
	}
	code, out, _ := runCLI(t, append(args, "--raw", "query=BF16:4x3x8:"+raw("bad", q))...)
	if code != 1 || !strings.Contains(out, "at token 3, head 2, dim 7") {
		t.Errorf("wrong raw: exit %d\n%s", code, out)
	}
	// A raw tensor of a name the candidate file holds too is an error naming both.
	cand := writeTensors(t, dir, "cand.safetensors", encodeAs(tensor.BF16, "out.key", []int{bT, bK, bD}, g.key))
	code, _, stderr := runCLI(t, "verify", g.path, cand, "--raw", "out.key=BF16:4,2,8:"+k)
	if code != 2 || !strings.Contains(stderr, cand) || !strings.Contains(stderr, k) {
		t.Errorf("duplicate: exit %d stderr %q", code, stderr)
	}
	if _, err := os.Stat(k); err != nil {
		t.Fatal(err)
	}
}

// TestVerifyLayoutAxes: the coordinates of a bundle's explicit-cos/sin op follow its layout,
// which rotary golden records in apply_args.
func TestVerifyLayoutAxes(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		op, layout, want string
		at               []int
	}{
		{"npu_rotary_mul", "BSND", "at batch 0, seq 1, head 3, dim 7:", []int{0, 1, 3, 7}},
		{"apply_rotary_emb", "BNSD", "at batch 0, head 3, seq 1, dim 7:", []int{0, 3, 1, 7}},
		{"interleave_rope", "", "at batch 0, head 3, seq 1, dim 7:", []int{0, 3, 1, 7}},
	} {
		g := filepath.Join(dir, c.op+c.layout+".safetensors")
		args := []string{"golden", "--model", "llama-3.1-8b", "--op", c.op, "--tokens", "2", "--out", g}
		if c.layout != "" {
			args = append(args, "--layout", c.layout)
		}
		if code, _, stderr := runCLI(t, args...); code != 0 {
			t.Fatalf("%v: exit %d %s", args, code, stderr)
		}
		s, err := readInputSet(g)
		if err != nil {
			t.Fatal(err)
		}
		out := s.Tensors["out.out"].Clone()
		out.F32[out.Index(c.at...)] += 1
		cand := writeTensors(t, dir, "cand.safetensors", toFile("out", out))
		code, stdout, _ := runCLI(t, "verify", g, cand)
		if code != 1 || !strings.Contains(stdout, c.want) {
			t.Errorf("%s %s: exit %d, want %q in\n%s", c.op, c.layout, code, c.want, stdout)
		}
	}
}

// TestVerifyMRoPEHeads: mrope's query is [T,Hq·D]; the head size rotary golden records
// splits it, so the wrong element is still located by token, head and dim.
func TestVerifyMRoPEHeads(t *testing.T) {
	dir := t.TempDir()
	g := filepath.Join(dir, "g.safetensors")
	if code, _, stderr := runCLI(t, "golden", "--model", "qwen2-vl-7b", "--tokens", "3", "--out", g); code != 0 {
		t.Fatalf("exit %d %s", code, stderr)
	}
	s, err := readInputSet(g)
	if err != nil {
		t.Fatal(err)
	}
	if s.Metadata["op"] != "mrope" || s.Tensors["out.query"].Rank() != 2 {
		t.Fatalf("op %q, query %v", s.Metadata["op"], s.Tensors["out.query"].Shape)
	}
	q := s.Tensors["out.query"].Clone()
	q.F32[(2*28+5)*128+9] += 1 // token 2, head 5, dim 9 of Qwen2-VL-7B's 28 heads of 128
	cand := writeTensors(t, dir, "cand.safetensors", toFile("query", q), toFile("key", s.Tensors["out.key"]))
	code, out, _ := runCLI(t, "verify", g, cand)
	if code != 1 || !strings.Contains(out, "at token 2, head 5, dim 9:") {
		t.Errorf("exit %d\n%s", code, out)
	}
}

// TestVerifyDTypeNote: a candidate of a wider dtype is rounded to the bundle's, and the note
// names the sides as the table does (golden, candidate), not as diff's A and B.
// TestVerifyDTypeNote: a candidate in another dtype than the golden's outputs is a kernel
// writing the wrong dtype: verify fails on it, naming --any-dtype, which compares after
// rounding with a note, as diff always does.
func TestVerifyDTypeNote(t *testing.T) {
	dir := t.TempDir()
	g := writeBundle(t, dir)
	cand := writeTensors(t, dir, "cand.safetensors",
		encodeAs(tensor.F32, "query", []int{bT, bH, bD}, g.query),
		encodeAs(tensor.F32, "key", []int{bT, bK, bD}, g.key))
	code, out, stderr := runCLI(t, "verify", g.path, cand)
	if code != 1 || !strings.Contains(out, "dtype F32, but the golden's output is BF16") || !strings.Contains(out, "--any-dtype") {
		t.Errorf("a candidate in F32 for a BF16 golden: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = runCLI(t, "verify", "--any-dtype", g.path, cand)
	if code != 0 || !strings.Contains(out, "note: dtype BF16 vs F32: candidate rounded to BF16 (the narrower) before comparing") {
		t.Errorf("--any-dtype: exit %d\n%s%s", code, out, stderr)
	}
	if code, out, _ := runCLI(t, "diff", g.path, cand); strings.Contains(out, "--any-dtype") {
		t.Errorf("diff refuses by dtype: exit %d\n%s", code, out)
	}
}

// TestVerifyCacheAndGradAxes: kv_rmsnorm_rope_cache's caches are located by their mode's
// dimensions (torch_npu npu_kv_rmsnorm_rope_cache: Norm [batch, 1, cache_length, D], PA and
// PA_BNSD [block_num, block_size, 1, D]; the FRACTAL_NZ modes' memory order is no such
// shape, so they stay dim0…), and apply_rotary_emb_backward's dcos/dsin by the layout.
func TestVerifyCacheAndGradAxes(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args   []string
		output string
		at     []int
		want   string
	}{
		{[]string{"--model", "deepseek-v3", "--op", "kv_rmsnorm_rope_cache"}, "out.k_cache", []int{0, 0, 3, 5}, "at batch 0, head 0, slot 3, dim 5:"},
		{[]string{"--model", "deepseek-v3", "--op", "kv_rmsnorm_rope_cache", "--cache-mode", "PA_BNSD"}, "out.ckv_cache", []int{0, 7, 0, 9}, "at block 0, slot 7, head 0, dim 9:"},
		{[]string{"--model", "deepseek-v3", "--op", "kv_rmsnorm_rope_cache", "--cache-mode", "PA_NZ"}, "out.k_cache", []int{0, 7, 0, 9}, "at dim0 "},
		{[]string{"--model", "llama-3.1-8b", "--op", "apply_rotary_emb_backward", "--layout", "BSND"}, "out.dcos", []int{0, 1, 0, 7}, "at batch 0, seq 1, head 0, dim 7:"},
	} {
		g := filepath.Join(dir, "g.safetensors")
		if code, _, stderr := runCLI(t, append([]string{"golden", "--tokens", "3", "--out", g}, c.args...)...); code != 0 {
			t.Fatalf("%v: exit %d %s", c.args, code, stderr)
		}
		s, err := readInputSet(g)
		if err != nil {
			t.Fatal(err)
		}
		var cand []safetensors.Tensor
		for n, v := range s.Tensors {
			if !strings.HasPrefix(n, "out.") {
				continue
			}
			if n == c.output {
				v = v.Clone()
				v.F32[v.Index(c.at...)] += 1
			}
			cand = append(cand, toFile(n, v))
		}
		p := writeTensors(t, dir, "cand.safetensors", cand...)
		code, out, _ := runCLI(t, "verify", g, p)
		if code != 1 || !strings.Contains(out, c.want) {
			t.Errorf("%v: exit %d, want %q in\n%s", c.args, code, c.want, out)
		}
	}
}

// TestCompareNameColumn: the name column of verify and diff is as wide as the longest label,
// so "out.ckv_cache (ckv_cache)" or a checkpoint's long tensor name does not push its row's
// figures out from under the header's, and a refused row's "not compared" lines up too.
func TestCompareNameColumn(t *testing.T) {
	dir := t.TempDir()
	v := bf16Exact(randomHeads(16, 3))
	g := filepath.Join(dir, "g.safetensors")
	if err := safetensors.WriteFile(g, []safetensors.Tensor{
		encodeAs(tensor.BF16, "out.ckv_cache", []int{2, 8}, v),
		encodeAs(tensor.BF16, "out.k", []int{2, 8}, v),
		encodeAs(tensor.BF16, "out.missing_from_the_candidate", []int{2, 8}, v),
	}, map[string]string{"op": "kv_rmsnorm_rope_cache"}); err != nil {
		t.Fatal(err)
	}
	cand := writeTensors(t, dir, "cand.safetensors", encodeAs(tensor.BF16, "ckv_cache", []int{2, 8}, v), encodeAs(tensor.BF16, "k", []int{2, 8}, v))
	long := "model.layers.0.self_attn.rotary_emb.inv_freq"
	a := writeTensors(t, dir, "a.safetensors", encodeAs(tensor.F32, long, []int{4}, v[:4]), encodeAs(tensor.F32, "q", []int{4}, v[:4]))
	b := writeTensors(t, dir, "b.safetensors", encodeAs(tensor.F32, long, []int{4}, v[:4]), encodeAs(tensor.F32, "q", []int{4}, v[:4]), encodeAs(tensor.F32, "only_b", []int{4}, v[:4]))
	for _, args := range [][]string{{"verify", g, cand}, {"diff", a, b}} {
		_, out, _ := runCLI(t, args...)
		var head string
		rows := 0
		for _, l := range strings.Split(out, "\n") {
			switch {
			case strings.HasPrefix(l, "tensor "):
				head = l
			case head == "" || l == "" || strings.HasPrefix(l, " ") || strings.HasPrefix(l, "all "):
			case strings.Contains(l, "not compared"):
				rows++
				if strings.Index(l, "not compared") != strings.Index(head, "dtype") {
					t.Errorf("%v: %q: 'not compared' is not under the header's dtype in\n%s", args[0], l, out)
				}
			default:
				rows++
				// The dtype starts where the header's does, after the label and a space, and
				// the figures (elements to nmse) end where the header's do.
				i := strings.Index(head, "dtype")
				hs, ls := fieldSpans(head[i:]), fieldSpans(l[i:])
				ok := len(l) > i && l[i-1] == ' ' && l[i] != ' ' && len(ls) >= 5 && ls[0][0] == 0
				for k := 1; ok && k < 5; k++ {
					ok = ls[k][1] == hs[k][1]
				}
				if !ok {
					t.Errorf("%v: %q is out of line with the header %q", args[0], l, head)
				}
			}
		}
		if rows != 3 {
			t.Errorf("%v: %d rows, want 3:\n%s", args[0], rows, out)
		}
	}
}

// TestDiffRefusesGoldenAgainstCandidate: diff of a golden bundle and a candidate would compare
// the bundle's inputs with the candidate's outputs of the same names; it is refused, pointing
// at verify. Two bundles still compare.
func TestDiffRefusesGoldenAgainstCandidate(t *testing.T) {
	dir := t.TempDir()
	g := writeBundle(t, dir)
	cand := writeTensors(t, dir, "cand.safetensors",
		encodeAs(tensor.BF16, "query", []int{bT, bH, bD}, g.query),
		encodeAs(tensor.BF16, "key", []int{bT, bK, bD}, g.key))
	for _, args := range [][]string{{"diff", g.path, cand}, {"diff", cand, g.path}} {
		if code, out, errOut := runCLI(t, args...); code != 2 || out != "" || !strings.Contains(errOut, "rotary verify") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q: want exit 2 pointing at verify", args, code, out, errOut)
		}
	}
	if code, _, errOut := runCLI(t, "diff", g.path, g.path); code != 0 {
		t.Errorf("a bundle against itself: exit %d, %s", code, errOut)
	}
}

// TestULPSpellings: diff and verify each take --ulp and --max-ulp.
func TestULPSpellings(t *testing.T) {
	dir := t.TempDir()
	g := writeBundle(t, dir)
	cand := writeTensors(t, dir, "cand.safetensors",
		encodeAs(tensor.BF16, "query", []int{bT, bH, bD}, g.query),
		encodeAs(tensor.BF16, "key", []int{bT, bK, bD}, g.key))
	for _, args := range [][]string{
		{"verify", "--max-ulp", "2", g.path, cand}, {"verify", "--ulp", "2", g.path, cand},
		{"diff", "--ulp", "2", cand, cand}, {"diff", "--max-ulp", "2", cand, cand},
	} {
		if code, out, errOut := runCLI(t, append(args, "--json")...); code != 0 || !strings.Contains(out, `"ulp_tolerance":2`) {
			t.Errorf("%v: exit %d\n%s%s", args, code, out, errOut)
		}
	}
	if code, _, errOut := runCLI(t, "verify", "--max-ulp", "-1", g.path, cand); code != 2 || !strings.Contains(errOut, "--max-ulp") {
		t.Errorf("verify --max-ulp -1: exit %d, %q", code, errOut)
	}
}

// TestWorstByULP: the listing shows the element with the most ULPs when the worst by absolute
// error leave it out: many ULPs next to tiny values can hide behind a large value's error.
func TestWorstByULP(t *testing.T) {
	dir := t.TempDir()
	a := writeTensors(t, dir, "a.safetensors", safetensors.FromFloat32s("x", []int{4}, []float32{1000, 1, 2, 1e-30}))
	b := writeTensors(t, dir, "b.safetensors", safetensors.FromFloat32s("x", []int{4}, []float32{1000.5, 1, 2, 3e-30}))
	code, out, errOut := runCLI(t, "diff", "--atol", "0", "--show", "1", a, b)
	if code != 1 || !strings.Contains(out, "  at dim0 0:") || !strings.Contains(out, "  most ulp at dim0 3:") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
	// When the worst by absolute error is also the one with the most ULPs, it is listed once.
	c := writeTensors(t, dir, "c.safetensors", safetensors.FromFloat32s("x", []int{4}, []float32{1000, 1, 2, 1e-30}))
	d := writeTensors(t, dir, "d.safetensors", safetensors.FromFloat32s("x", []int{4}, []float32{-1000, 1, 2, 1e-30}))
	if _, out, _ := runCLI(t, "diff", "--show", "1", c, d); strings.Contains(out, "most ulp") {
		t.Errorf("listed twice:\n%s", out)
	}
}
