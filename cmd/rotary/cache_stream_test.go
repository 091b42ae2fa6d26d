package main

import (
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// TestCacheStreams: cache streams its table (Embedding.WriteCosSinCache, whose chunk boundaries
// the root package tests), so memory does not grow with --positions (a 2^20-row table of 96 MiB
// costs a few chunks), and the rows written are the table's, LongRoPE's long table included.
func TestCacheStreams(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "big.safetensors")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if code, _, errOut := runCLI(t, "cache", "--model", "gpt-neox-20b", "--positions", "1048576", "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 48<<20 {
		t.Errorf("a 96 MiB table allocated %d bytes", got)
	}

	for _, c := range []struct {
		preset string
		rows   int
	}{{"llama-3.1-8b", 5000}, {"phi-3-mini-128k", 5000}} {
		out := filepath.Join(dir, c.preset+".safetensors")
		if code, _, errOut := runCLI(t, "cache", "--model", c.preset, "--positions", strconv.Itoa(c.rows), "--out", out); code != 0 {
			t.Fatalf("%s: exit %d: %s", c.preset, code, errOut)
		}
		f, err := safetensors.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		m, err := hf.Preset(c.preset)
		if err != nil {
			t.Fatal(err)
		}
		emb, err := rotary.New(m.Spec, rotary.WithCacheLen(0))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"cos_sin_cache", "cos_sin_cache_long"} {
			ten, ok := f.Get(name)
			if !ok {
				if name == "cos_sin_cache_long" && m.Spec.Scaling.Type != rotary.ScalingLongRoPE {
					continue
				}
				t.Fatalf("%s: no %s", c.preset, name)
			}
			got, err := ten.Float32s()
			if err != nil {
				t.Fatal(err)
			}
			want, err := emb.CosSinCache(c.rows, name == "cos_sin_cache_long")
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s %s: the streamed table differs from CosSinCache", c.preset, name)
			}
		}
	}
}

// TestCacheGatherStreams: cache --gather streams its rows (rotary.FullWidthStream, whose chunk
// boundaries the root package tests), so range:N of 2^20 tokens, 96 MiB of BF16 rows, costs a
// few chunks, and rows from a strided MRoPE positions file are what one Gather and FullWidth
// give.
func TestCacheGatherStreams(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "g.safetensors")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if code, _, errOut := runCLI(t, "cache", "--model", "gpt-neox-20b", "--gather", "range:1048576", "--dtype", "BF16", "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 48<<20 {
		t.Errorf("96 MiB of gathered rows allocated %d bytes", got)
	}

	// Qwen2-VL positions [3, T] held transposed in the file, so the windows are strided views.
	const T = 5000
	raw := make([]int64, 3*T)
	for t := range T {
		raw[3*t], raw[3*t+1], raw[3*t+2] = int64(t), int64(t%97), int64(t%13)
	}
	stored := tensor.FromI64(raw, T, 3)
	posFile := writeTensors(t, dir, "pos.safetensors", toSafetensors(t, "positions", stored))
	m, err := hf.Preset("qwen2-vl-7b")
	if err != nil {
		t.Fatal(err)
	}
	view := tensor.Tensor{DType: tensor.I64, Shape: []int{3, T}, Strides: []int{1, 3}, I64: raw}
	if code, _, errOut := runCLI(t, "cache", "--model", "qwen2-vl-7b", "--gather", posFile, "--out", out); code == 0 {
		t.Fatalf("a [T, 3] positions tensor was accepted as [3, T]")
	} else if errOut == "" {
		t.Fatal("no error")
	}
	transposed := writeTensors(t, dir, "posT.safetensors", toSafetensors(t, "positions", view.Clone()))
	if code, _, errOut := runCLI(t, "cache", "--model", "qwen2-vl-7b", "--gather", transposed, "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	f, err := safetensors.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	emb, err := rotary.New(m.Spec, rotary.WithCacheLen(0))
	if err != nil {
		t.Fatal(err)
	}
	var cs rotary.CosSin
	if err := emb.Gather(view, &cs); err != nil {
		t.Fatal(err)
	}
	d := m.Spec.RotaryDim
	cos, sin := tensor.Zeros(tensor.F32, 1, T, 1, d), tensor.Zeros(tensor.F32, 1, T, 1, d)
	if err := cs.FullWidth(m.Spec.Style, cos, sin); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]float32{"cos": cos.F32, "sin": sin.F32} {
		ten, _ := f.Get(name)
		got, err := ten.Float32s()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: the streamed rows differ from one Gather's", name)
		}
	}
}
