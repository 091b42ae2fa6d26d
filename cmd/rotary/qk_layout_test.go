package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// TestApplyHFLayout: apply --layout BNSD takes Hugging Face's q/k [B,H,S,D] and position_ids
// [B,S] and writes q/k in that layout, equal bit for bit to the [T,H,D] run on the same tokens
// (BSND and SBND likewise); without --layout a 4-D query is refused saying which layout to give.
func TestApplyHFLayout(t *testing.T) {
	dir := t.TempDir()
	const B, S, H, Hk, D = 2, 3, 4, 2, 128
	pos := make([]int64, B*S)
	for i := range pos {
		pos[i] = int64(7*i + i%S) // distinct per batch row
	}
	q := tensor.FromF32(randomHeads(B*S*H*D, 1), B*S, H, D)
	k := tensor.FromF32(randomHeads(B*S*Hk*D, 2), B*S, Hk, D)
	file := func(name string, x tensor.Tensor) safetensors.Tensor {
		st, err := safetensors.FromTensor(name, x)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	flat := writeTensors(t, dir, "flat.safetensors", file("positions", tensor.FromI64(pos, B*S)), file("query", q), file("key", k))
	want := filepath.Join(dir, "want.safetensors")
	if code, _, stderr := runCLI(t, "apply", "--model", "llama-3.1-8b", "--in", flat, "--out", want); code != 0 {
		t.Fatalf("apply [T,H,D]: exit %d: %s", code, stderr)
	}
	wf, err := safetensors.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	// as lays a token-major [B·S,h,D] tensor out in layout (axes: the layout's dims as BSND's).
	as := func(x tensor.Tensor, h int, axes []int) tensor.Tensor {
		r, err := x.Reshape(B, S, h, D)
		if err != nil {
			t.Fatal(err)
		}
		inv := make([]int, 4)
		for i, a := range axes {
			inv[a] = i
		}
		v, err := r.Permute(inv...)
		if err != nil {
			t.Fatal(err)
		}
		return v.Clone()
	}
	for _, layout := range []string{"BNSD", "BSND", "SBND"} {
		axes := map[string][]int{"BNSD": {0, 2, 1, 3}, "BSND": {0, 1, 2, 3}, "SBND": {1, 0, 2, 3}}[layout]
		in := writeTensors(t, dir, layout+".safetensors", file("positions", tensor.FromI64(pos, B, S)), file("query", as(q, H, axes)), file("key", as(k, Hk, axes)))
		for _, op := range []string{"rotary_embedding", "rotary_embedding_gathered"} {
			out := filepath.Join(dir, layout+op+".safetensors")
			if code, _, stderr := runCLI(t, "apply", "--model", "llama-3.1-8b", "--op", op, "--layout", layout, "--in", in, "--out", out); code != 0 {
				t.Fatalf("apply --op %s --layout %s: exit %d: %s", op, layout, code, stderr)
			}
			got, err := safetensors.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			for name, h := range map[string]int{"query": H, "key": Hk} {
				w, _ := wf.Get(name)
				wt, _ := safetensors.ToTensor(w)
				e := file(name, as(wt, h, axes))
				g, _ := got.Get(name)
				if !slices.Equal(g.Shape, e.Shape) || string(g.Data) != string(e.Data) {
					t.Errorf("--op %s --layout %s: %s %v differs from the [T,H,D] run laid out as %v", op, layout, name, g.Shape, e.Shape)
				}
			}
		}
	}
	// A 4-D query without --layout: the refusal says which layout is wanted.
	hf := filepath.Join(dir, "BNSD.safetensors")
	code, _, stderr := runCLI(t, "apply", "--model", "llama-3.1-8b", "--in", hf, "--out", filepath.Join(dir, "x.safetensors"))
	if code != 2 || !strings.Contains(stderr, "--layout BNSD") || !strings.Contains(stderr, "[2,4,3,128]") {
		t.Errorf("apply of [B,H,S,D] without --layout: exit %d, %q: want 2 naming --layout BNSD and the shape", code, stderr)
	}
	code, _, stderr = runCLI(t, "apply", "--model", "llama-3.1-8b", "--layout", "BNSD", "--in", flat, "--out", filepath.Join(dir, "x.safetensors"))
	if code != 2 || !strings.Contains(stderr, "want 4-D BNSD") {
		t.Errorf("apply --layout BNSD of [T,H,D]: exit %d, %q: want 2 asking for 4-D", code, stderr)
	}
}

// TestGoldenHFLayout: golden --layout BNSD writes one sequence's q/k as [1,H,T,D] and positions
// [1,T] (MRoPE [rows,1,T]), and apply --in the bundle reproduces its outputs bit for bit.
func TestGoldenHFLayout(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args       []string
		query, pos []int
	}{
		{[]string{"--model", "llama-3.1-8b", "--layout", "BNSD"}, []int{1, 32, 3, 128}, []int{1, 3}},
		{[]string{"--model", "llama-3.1-8b", "--layout", "SBND", "--op", "rotary_embedding_gathered"}, []int{3, 1, 32, 128}, []int{1, 3}},
		{[]string{"--model", "qwen2.5-vl-7b", "--op", "rotary_embedding", "--layout", "BNSD"}, []int{1, 28, 3, 128}, []int{3, 1, 3}},
	} {
		out := filepath.Join(dir, "g.safetensors")
		goldenRun(t, append(c.args, "--tokens", "3", "--dtype", "BF16", "--out", out)...)
		b := goldenApply(t, out)
		q, _ := b.Get("query")
		p, _ := b.Get("positions")
		if !slices.Equal(q.Shape, c.query) || !slices.Equal(p.Shape, c.pos) {
			t.Errorf("golden %v: query %v, positions %v; want %v, %v", c.args, q.Shape, p.Shape, c.query, c.pos)
		}
		if !strings.Contains(b.Metadata["apply_args"], `"--layout"`) {
			t.Errorf("golden %v: apply_args %s lack --layout", c.args, b.Metadata["apply_args"])
		}
	}
}
