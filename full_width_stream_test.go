package rotary

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/tensor"
)

// oneGather is the full-width cos and sin of one Gather and FullWidth over every position, as
// little-endian bytes of d: what a FullWidthStream writes in chunks.
func oneGather(t *testing.T, emb *Embedding, positions tensor.Tensor, style Style, d tensor.DType) (cos, sin []byte) {
	t.Helper()
	var cs CosSin
	if err := emb.Gather(positions, &cs); err != nil {
		t.Fatal(err)
	}
	T := positions.Shape[positions.Rank()-1]
	c, s := tensor.Zeros(d, T, emb.Spec().RotaryDim), tensor.Zeros(d, T, emb.Spec().RotaryDim)
	if err := cs.FullWidth(style, c, s); err != nil {
		t.Fatal(err)
	}
	return appendElements(nil, c), appendElements(nil, s)
}

func streamed(t *testing.T, s *FullWidthStream) (cos, sin []byte) {
	t.Helper()
	var c, sn bytes.Buffer
	if err := s.WriteCos(&c); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteSin(&sn); err != nil {
		t.Fatal(err)
	}
	return c.Bytes(), sn.Bytes()
}

// TestStreamFullWidth: the rows streamed across chunk boundaries, from a strided MRoPE positions
// view and from a range, in both pairings and every dtype, are those of one Gather and FullWidth.
func TestStreamFullWidth(t *testing.T) {
	const T = 2*streamChunk + 3
	mrope, err := New(Spec{HeadSize: 16, RotaryDim: 16, Base: 10000, MaxPositions: 64, MRoPE: &MRoPE{Sections: []int{2, 3, 3}}}, WithCacheLen(0))
	if err != nil {
		t.Fatal(err)
	}
	// [3, T] held transposed, so that every window is a strided view.
	raw := make([]int64, 3*T)
	for i := range T {
		raw[3*i], raw[3*i+1], raw[3*i+2] = int64(i), int64(i%97), int64(i%13)
	}
	view := tensor.Tensor{DType: tensor.I64, Shape: []int{3, T}, Strides: []int{1, 3}, I64: raw}
	for _, d := range []tensor.DType{tensor.F32, tensor.BF16, tensor.F16} {
		for _, style := range []Style{NeoX, GPTJ} {
			s, err := mrope.StreamFullWidth(view, style, d)
			if err != nil {
				t.Fatal(err)
			}
			if s.Tokens() != T {
				t.Errorf("Tokens %d, want %d", s.Tokens(), T)
			}
			gotCos, gotSin := streamed(t, s)
			wantCos, wantSin := oneGather(t, mrope, view, style, d)
			if !bytes.Equal(gotCos, wantCos) || !bytes.Equal(gotSin, wantSin) {
				t.Errorf("%v %v: the streamed rows differ from one Gather's", d, style)
			}
		}
	}
	plain, err := New(Spec{HeadSize: 8, RotaryDim: 6, Base: 500000, MaxPositions: 64, Style: GPTJ}, WithCacheLen(0))
	if err != nil {
		t.Fatal(err)
	}
	seq := make([]int64, T)
	for i := range seq {
		seq[i] = int64(i)
	}
	s, err := plain.StreamFullWidthRange(T, NeoX, tensor.BF16)
	if err != nil {
		t.Fatal(err)
	}
	gotCos, gotSin := streamed(t, s)
	wantCos, wantSin := oneGather(t, plain, tensor.FromI64(seq, T), NeoX, tensor.BF16)
	if !bytes.Equal(gotCos, wantCos) || !bytes.Equal(gotSin, wantSin) {
		t.Error("range: the streamed rows differ from one Gather's")
	}
	empty, err := plain.StreamFullWidthRange(0, NeoX, tensor.F32)
	if err != nil {
		t.Fatal(err)
	}
	if c, sn := streamed(t, empty); len(c) != 0 || len(sn) != 0 {
		t.Errorf("no tokens: wrote %d and %d bytes", len(c), len(sn))
	}
}

// TestStreamFullWidthBounded: a stream's memory is a chunk's, not its token count's.
func TestStreamFullWidthBounded(t *testing.T) {
	const d = 32
	emb, err := New(Spec{HeadSize: d, RotaryDim: d, Base: 10000, MaxPositions: 64}, WithCacheLen(0))
	if err != nil {
		t.Fatal(err)
	}
	const T = 1 << 20 // 128 MiB of F32 cos rows
	s, err := emb.StreamFullWidthRange(T, NeoX, tensor.F32)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := s.WriteCos(io.Discard); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	// A chunk's cos and sin rows, its bytes and the gathered half-width rows: 5 chunks of F32
	// rows, whatever T.
	if got := after.TotalAlloc - before.TotalAlloc; got > 6*streamChunk*d*4 {
		t.Errorf("128 MiB of rows allocated %d bytes, want at most 6 chunks' (%d)", got, 6*streamChunk*d*4)
	}
}

type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	return 0, errors.New("disk full")
}

// TestStreamFullWidthRefuses: bad positions are refused when the stream is made, naming them;
// a dual-chunk embedding when it is written, before any byte; a writer's error ends the write.
func TestStreamFullWidthRefuses(t *testing.T) {
	emb, err := New(Spec{HeadSize: 8, RotaryDim: 8, Base: 10000, MaxPositions: 64}, WithCacheLen(0))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		positions tensor.Tensor
		style     Style
		d         tensor.DType
		want      string
	}{
		{"negative", tensor.FromI64([]int64{0, -1, 2}, 3), NeoX, tensor.F32, "negative"},
		{"past a chunk", tensor.FromI64(append(make([]int64, streamChunk+1), -5), streamChunk+2), NeoX, tensor.F32, "negative"},
		{"rows for a plain model", tensor.FromI64(make([]int64, 6), 3, 2), NeoX, tensor.F32, "non-MRoPE"},
		{"rank 3", tensor.FromI64(make([]int64, 2), 1, 1, 2), NeoX, tensor.F32, "want [T] or [rows,T]"},
		{"scalar", tensor.FromI64([]int64{1}), NeoX, tensor.F32, "want [T] or [rows,T]"},
		{"floats", tensor.FromF32([]float32{1, 2}, 2), NeoX, tensor.F32, "positions"},
		{"absent", tensor.Tensor{}, NeoX, tensor.F32, "positions"},
		{"short buffer", tensor.Tensor{DType: tensor.I64, Shape: []int{4}, I64: make([]int64, 2)}, NeoX, tensor.F32, "positions"},
		{"style", tensor.FromI64([]int64{0}, 1), Style(9), tensor.F32, "style"},
		{"dtype", tensor.FromI64([]int64{0}, 1), NeoX, tensor.F64, "dtype F64"},
	} {
		if _, err := emb.StreamFullWidth(c.positions, c.style, c.d); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := emb.StreamFullWidthRange(-1, NeoX, tensor.F32); err == nil || !strings.Contains(err.Error(), "n -1") {
		t.Errorf("range -1: error %v", err)
	}
	var nilEmb *Embedding
	if _, err := nilEmb.StreamFullWidthRange(1, NeoX, tensor.F32); err == nil {
		t.Error("nil Embedding: no error")
	}
	var nilStream *FullWidthStream
	if err := nilStream.WriteCos(io.Discard); err == nil || nilStream.Tokens() != 0 {
		t.Errorf("nil stream: error %v, %d tokens", err, nilStream.Tokens())
	}
	if err := (&FullWidthStream{}).WriteSin(io.Discard); err == nil {
		t.Error("zero stream: no error")
	}
	if s, err := emb.StreamFullWidthRange(1, NeoX, tensor.F32); err != nil || s.WriteCos(nil) == nil {
		t.Errorf("nil writer: no error (%v)", err)
	}

	dual, err := New(Spec{HeadSize: 8, RotaryDim: 8, Base: 10000, MaxPositions: 64, DualChunk: &DualChunk{ChunkSize: 16, LocalSize: 4}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := dual.StreamFullWidthRange(4, NeoX, tensor.F32)
	if err != nil {
		t.Fatal(err)
	}
	var w failingWriter
	if err := s.WriteCos(&w); err == nil || !strings.Contains(err.Error(), "dual-chunk") || w.n != 0 {
		t.Errorf("dual-chunk: error %v after %d bytes", err, w.n)
	}
	s, err = emb.StreamFullWidthRange(4, NeoX, tensor.F32)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.WriteSin(&w); err == nil || err.Error() != "disk full" {
		t.Errorf("failing writer: error %v", err)
	}
}

// TestAppendElements: F32 and 16-bit bits in little-endian order.
func TestAppendElements(t *testing.T) {
	f := appendElements([]byte{9}, tensor.FromF32([]float32{1, -2}, 2))
	want := binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32([]byte{9}, math.Float32bits(1)), math.Float32bits(-2))
	if !bytes.Equal(f, want) {
		t.Errorf("F32: % x, want % x", f, want)
	}
	if b := appendElements(nil, tensor.FromBits(tensor.BF16, []uint16{0x3f80, 0x1234}, 2)); !bytes.Equal(b, []byte{0x80, 0x3f, 0x34, 0x12}) {
		t.Errorf("BF16: % x", b)
	}
}

// TestStreamFullWidthOneCall: the frequencies a stream writes are those of one call over all its
// positions, as Gather picks them by the call's largest position (LongRoPE's long factors, dynamic
// NTK per call), not each chunk's: a later chunk holding a position past the original length
// changes every row, the first chunk's too.
func TestStreamFullWidthOneCall(t *testing.T) {
	const T = streamChunk + 5
	const orig = streamChunk + 2 // past the first chunk's positions of a range, within the second's
	short, long := []float64{1, 1.5}, []float64{2, 4}
	specs := map[string]Spec{
		"longrope": {HeadSize: 4, RotaryDim: 4, Base: 10000, MaxPositions: 4 * orig,
			Scaling: Scaling{Type: ScalingLongRoPE, OriginalMaxPositions: orig, ShortFactor: short, LongFactor: long}},
		"dynamic per call": {HeadSize: 4, RotaryDim: 4, Base: 10000, MaxPositions: orig,
			Scaling: Scaling{Type: ScalingDynamic, Factor: 4, Dynamic: DynamicPerCall}},
	}
	for name, spec := range specs {
		emb, err := New(spec, WithCacheLen(0))
		if err != nil {
			t.Fatal(err)
		}
		// Positions below the original length, then one past it in the second chunk.
		p := make([]int64, T)
		for i := range p {
			p[i] = int64(i % 7)
		}
		p[T-1] = orig + 1
		seq := make([]int64, T)
		for i := range seq {
			seq[i] = int64(i)
		}
		for _, c := range []struct {
			what      string
			positions tensor.Tensor
			stream    func() (*FullWidthStream, error)
		}{
			{"positions", tensor.FromI64(p, T), func() (*FullWidthStream, error) { return emb.StreamFullWidth(tensor.FromI64(p, T), NeoX, tensor.F32) }},
			{"range", tensor.FromI64(seq, T), func() (*FullWidthStream, error) { return emb.StreamFullWidthRange(T, NeoX, tensor.F32) }},
		} {
			s, err := c.stream()
			if err != nil {
				t.Fatal(err)
			}
			gotCos, gotSin := streamed(t, s)
			wantCos, wantSin := oneGather(t, emb, c.positions, NeoX, tensor.F32)
			if !bytes.Equal(gotCos, wantCos) || !bytes.Equal(gotSin, wantSin) {
				t.Errorf("%s, %s: the streamed rows differ from one Gather's over every position", name, c.what)
			}
		}
	}
}
