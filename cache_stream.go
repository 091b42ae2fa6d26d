package rotary

import (
	"encoding/binary"
	"errors"
	"io"
	"math"
)

// streamChunk is how many rows a stream computes, encodes and writes at a time (table rows for
// WriteCosSinCache, tokens for a FullWidthStream): its memory is a chunk's, whatever the count.
const streamChunk = 16384

var errNilWriter = errors.New("w: a nil io.Writer: want somewhere to write the rows")

// WriteCosSinCache writes rows 0..n−1 of the table CosSinCache gives (long: LongRoPE's long
// one) to w, as little-endian float32 [n, RotaryDim], computed and written a chunk of rows at a
// time: a table too large to hold costs a chunk's memory. It is what rotary cache --positions
// writes. n, the table and w are checked before anything is written (CosSinCache's limits and
// refusals); a failed write of w ends it.
func (e *Embedding) WriteCosSinCache(w io.Writer, n int, long bool) error {
	if err := e.CosSinCacheAt(0, nil, long); err != nil {
		return err
	}
	d := e.spec.RotaryDim
	if err := checkCacheRows("n", n, d); err != nil {
		return err
	}
	if w == nil {
		return errNilWriter
	}
	rows := make([]float32, min(n, streamChunk)*d)
	buf := make([]byte, 0, 4*len(rows))
	for first := 0; first < n; first += streamChunk {
		k := min(streamChunk, n-first)
		if err := e.CosSinCacheAt(first, rows[:k*d], long); err != nil {
			return err
		}
		if _, err := w.Write(appendF32s(buf[:0], rows[:k*d])); err != nil {
			return err
		}
	}
	return nil
}

// appendF32s appends v in little-endian order.
func appendF32s(b []byte, v []float32) []byte {
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}
