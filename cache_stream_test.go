package rotary

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/hf"
)

// TestWriteCosSinCache: the rows written on both sides of every chunk boundary are
// CosSinCache's, rows past the built cache and LongRoPE's long table included.
func TestWriteCosSinCache(t *testing.T) {
	for _, c := range []struct {
		preset string
		rows   int
	}{{"llama-3.1-8b", 3*streamChunk + 5}, {"phi-3-mini-128k", streamChunk + 1}} {
		m, err := hf.Preset(c.preset)
		if err != nil {
			t.Fatal(err)
		}
		emb, err := New(m.Spec, WithCacheLen(0))
		if err != nil {
			t.Fatal(err)
		}
		for _, long := range []bool{false, true} {
			if long && m.Spec.Scaling.Type != ScalingLongRoPE {
				continue
			}
			var got bytes.Buffer
			if err := emb.WriteCosSinCache(&got, c.rows, long); err != nil {
				t.Fatal(err)
			}
			want, err := emb.CosSinCache(c.rows, long)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), appendF32s(nil, want)) {
				t.Errorf("%s long=%v: the streamed table differs from CosSinCache", c.preset, long)
			}
		}
	}
}

// TestWriteCosSinCacheBounded: writing a table costs a chunk's memory, not the table's.
func TestWriteCosSinCacheBounded(t *testing.T) {
	const d = 32
	emb, err := New(Spec{HeadSize: d, RotaryDim: d, Base: 10000, MaxPositions: 64}, WithCacheLen(0))
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := emb.WriteCosSinCache(io.Discard, 1<<20, false); err != nil { // 128 MiB of rows
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	// A chunk's rows and their bytes: 2 chunks of F32 rows, whatever n.
	if got := after.TotalAlloc - before.TotalAlloc; got > 3*streamChunk*d*4 {
		t.Errorf("128 MiB of rows allocated %d bytes, want at most 3 chunks' (%d)", got, 3*streamChunk*d*4)
	}
}

// TestWriteCosSinCacheRefuses: a bad count, a long table without LongRoPE, a layer without
// RoPE, a nil embedding or writer are refused before any byte; a writer's error ends the write.
func TestWriteCosSinCacheRefuses(t *testing.T) {
	emb, err := New(Spec{HeadSize: 8, RotaryDim: 8, Base: 10000, MaxPositions: 64}, WithCacheLen(0))
	if err != nil {
		t.Fatal(err)
	}
	nope, err := New(Spec{HeadSize: 8, MaxPositions: 64, NoRoPE: true})
	if err != nil {
		t.Fatal(err)
	}
	var nilEmb *Embedding
	for _, c := range []struct {
		name string
		emb  *Embedding
		w    io.Writer
		n    int
		long bool
		want string
	}{
		{"negative", emb, io.Discard, -1, false, "n -1: want 0.."},
		{"too many", emb, io.Discard, MaxCacheLen(8) + 1, false, "want 0.."},
		{"long", emb, io.Discard, 0, true, "longrope"},
		{"no rope", nope, io.Discard, 1, false, "no RoPE"},
		{"nil embedding", nilEmb, io.Discard, 1, false, "rotary"},
		{"nil writer", emb, nil, 1, false, "w: a nil io.Writer"},
	} {
		if err := c.emb.WriteCosSinCache(c.w, c.n, c.long); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	var w failingWriter
	if err := emb.WriteCosSinCache(&w, 3, false); err == nil || err.Error() != "disk full" {
		t.Errorf("failing writer: error %v", err)
	}
	var empty bytes.Buffer
	if err := emb.WriteCosSinCache(&empty, 0, false); err != nil || empty.Len() != 0 {
		t.Errorf("no rows: error %v, %d bytes", err, empty.Len())
	}
}
