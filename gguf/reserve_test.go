package gguf

import (
	"encoding/binary"
	"io"
	"runtime"
	"testing"
)

// zeros is a reader of size bytes: the header given, then zeros, which read as empty keys.
type zeros struct{ head []byte }

func (z zeros) ReadAt(p []byte, off int64) (int, error) {
	for i := range p {
		p[i] = 0
		if j := off + int64(i); j < int64(len(z.head)) {
			p[i] = z.head[j]
		}
	}
	return len(p), nil
}

// TestHeaderCountsDoNotReserve: the metadata and tensor counts a header claims cost nothing
// before entries are read: a file that claims millions of key/values and holds none (a sparse
// file of the right size) is refused at its first entry having allocated a few kilobytes, not
// a slice and a map sized by the claim.
func TestHeaderCountsDoNotReserve(t *testing.T) {
	const size = 64 << 20
	for _, c := range []struct {
		name    string
		nt, nkv uint64
	}{
		{"metadata", 0, size / minKVSize / 2},
		{"tensors", size / minTensorSize / 2, 0},
	} {
		head := []byte(Magic)
		head = binary.LittleEndian.AppendUint32(head, 3)
		head = binary.LittleEndian.AppendUint64(head, c.nt)
		head = binary.LittleEndian.AppendUint64(head, c.nkv)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := readAt(io.ReaderAt(zeros{head}), size)
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Fatalf("%s: a file of zeros parsed", c.name)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
			t.Errorf("%s: claiming %d key/values and %d tensors allocated %d bytes before the first entry failed", c.name, c.nkv, c.nt, got)
		}
	}
}
