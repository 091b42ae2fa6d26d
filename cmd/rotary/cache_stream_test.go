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
)

// TestCacheStreams: cache writes its table in chunks of rows, so memory does not grow with
// --positions (a 2^20-row table of 96 MiB costs a few chunks), and the rows on both sides of
// every chunk boundary are the table's, LongRoPE's long table included.
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
	}{{"llama-3.1-8b", 3*cacheChunkRows + 5}, {"phi-3-mini-128k", cacheChunkRows + 1}} {
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
