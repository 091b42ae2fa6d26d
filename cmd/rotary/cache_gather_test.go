package main

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// toSafetensors turns a test tensor back into a file tensor under name.
func toSafetensors(t *testing.T, name string, x tensor.Tensor) safetensors.Tensor {
	t.Helper()
	st, err := safetensors.FromTensor(name, x)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestCacheGatherFeedsApplyRotaryEmb: the cos/sin `cache --gather` writes are what
// apply_rotary_emb (torch_npu npu_rotary_mul) takes: applied to the query and to the key they
// give exactly what `apply --op rotary_embedding` writes for the same positions, for a NeoX
// model and a GPT-J model with partial rotary (gpt-j-6b: 64 of 256 dims), with F32 and BF16
// query and key. --dtype BF16 writes the F32 rows rounded once; each layout holds the same rows.
func TestCacheGatherFeedsApplyRotaryEmb(t *testing.T) {
	dir := t.TempDir()
	pos := []int64{0, 5, 1000, 3, 70000}
	T := len(pos)
	posFile := writeTensors(t, dir, "pos.safetensors", safetensors.FromInt64s("positions", []int{T}, pos))
	for _, c := range []struct {
		model, mode string
		hq, hk, D   int
	}{
		{"qwen2.5-7b", "half", 4, 2, 128},
		{"gpt-j-6b", "interleave", 2, 2, 256},
	} {
		for _, d := range []tensor.DType{tensor.F32, tensor.BF16} {
			q := encodeAs(d, "query", []int{T, c.hq, c.D}, randomHeads(T*c.hq*c.D, 1))
			k := encodeAs(d, "key", []int{T, c.hk, c.D}, randomHeads(T*c.hk*c.D, 2))
			in := writeTensors(t, dir, "in.safetensors", safetensors.FromInt64s("positions", []int{T}, pos), q, k)
			want := filepath.Join(dir, "want.safetensors")
			if code, _, stderr := runCLI(t, "apply", "--model", c.model, "--in", in, "--out", want); code != 0 {
				t.Fatalf("%s %v apply: exit %d: %s", c.model, d, code, stderr)
			}
			wantT, err := readInputs(want)
			if err != nil {
				t.Fatal(err)
			}
			cs := filepath.Join(dir, "cs.safetensors")
			if code, _, stderr := runCLI(t, "cache", "--model", c.model, "--gather", posFile, "--layout", "BSND", "--rotary-mode", c.mode, "--out", cs); code != 0 {
				t.Fatalf("%s cache --gather: exit %d: %s", c.model, code, stderr)
			}
			cos, err := readInputs(cs)
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"query", "key"} {
				x := wantT[name] // only for its shape; the input is the unrotated one
				orig, err := readInputs(in)
				if err != nil {
					t.Fatal(err)
				}
				heads := x.Shape[1]
				xin, err := orig[name].Reshape(1, T, heads, c.D)
				if err != nil {
					t.Fatal(err)
				}
				got, code, stderr := extraOpRun(t, []safetensors.Tensor{toSafetensors(t, "x", xin), toSafetensors(t, "cos", cos["cos"]), toSafetensors(t, "sin", cos["sin"])},
					"--op", "npu_rotary_mul", "--layout", "BSND", "--rotary-mode", c.mode)
				if code != 0 {
					t.Fatalf("%s %v apply_rotary_emb: exit %d: %s", c.model, d, code, stderr)
				}
				w, err := wantT[name].Reshape(1, T, heads, c.D)
				if err != nil {
					t.Fatal(err)
				}
				extraSame(t, c.model+" "+d.String()+" "+name, got["out"], w)
			}
		}
		// --dtype BF16 is the F32 rows rounded once, and every layout holds the same rows.
		f32 := filepath.Join(dir, "f32.safetensors")
		if code, _, stderr := runCLI(t, "cache", "--model", c.model, "--gather", "range:7", "--out", f32); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		ref, _ := readInputs(f32)
		for _, l := range []struct {
			layout string
			shape  []int
		}{{"BSND", []int{1, 7, 1, 0}}, {"BNSD", []int{1, 1, 7, 0}}, {"SBND", []int{7, 1, 1, 0}}, {"THD", []int{7, 1, 0}}, {"TND", []int{7, 1, 0}}} {
			out := filepath.Join(dir, l.layout+".safetensors")
			if code, _, stderr := runCLI(t, "cache", "--model", c.model, "--gather", "range:7", "--layout", l.layout, "--dtype", "BF16", "--out", out); code != 0 {
				t.Fatalf("%s: exit %d: %s", l.layout, code, stderr)
			}
			got, _ := readInputs(out)
			for _, name := range []string{"cos", "sin"} {
				g, r := got[name], ref[name]
				shape := append([]int(nil), l.shape...)
				shape[len(shape)-1] = r.Shape[3]
				if g.DType != tensor.BF16 || !slicesEqual(g.Shape, shape) {
					t.Fatalf("%s %s: %v%v, want BF16%v", l.layout, name, g.DType, g.Shape, shape)
				}
				for i := range r.Len() {
					if g.Bits[i] != tensor.BF16FromFloat32(r.F32[i]) || math.IsNaN(float64(r.F32[i])) {
						t.Fatalf("%s %s element %d: %#04x, want %v rounded", l.layout, name, i, g.Bits[i], r.F32[i])
					}
				}
			}
		}
	}
}

// TestCacheGatherBadUsage: bad --gather arguments are one line, exit 2, and no --out.
func TestCacheGatherBadUsage(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.safetensors")
	noPos := writeTensors(t, dir, "nopos.safetensors", safetensors.FromInt64s("index", []int{1}, []int64{0}))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--gather", "range:-1"}, "--gather"},
		{[]string{"--gather", "range:x"}, "--gather"},
		{[]string{"--gather", "range:99999999"}, "--gather"},
		{[]string{"--gather", filepath.Join(dir, "missing.safetensors")}, "missing.safetensors"},
		{[]string{"--gather", noPos}, "positions"},
		{[]string{"--gather", "range:4", "--layout", "THDX"}, "--layout"},
		{[]string{"--gather", "range:4", "--layout", "bsnd"}, "--layout"},
		{[]string{"--gather", "range:4", "--dtype", "I32"}, "--dtype"},
		{[]string{"--gather", "range:4", "--dtype", "F64"}, "--dtype"},
		{[]string{"--gather", "range:4", "--rotary-mode", "neox"}, "--rotary-mode"},
		{[]string{"--gather", "range:4", "--positions", "4"}, "--positions"},
		{[]string{"--layout", "BNSD"}, "--gather"},
	} {
		wantUsageLine(t, append([]string{"cache", "--model", "llama-3.1-8b", "--out", out}, c.args...), c.want)
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%v: wrote --out", c.args)
		}
	}
}
