package safetensors

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/internal/fileio/fileiotest"
)

// mib of slack covers the header, the File and the error; a sparse file's apparent size
// is hundreds of times larger, so reading it whole would show.
const mib = 1 << 20

func TestReadFileNotRegular(t *testing.T) {
	fileiotest.NotRegular(t, func(t *testing.T, p string) {
		if _, err := ReadFile(p); err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("ReadFile(%s) = %v, want an error naming it and saying it is not a regular file", p, err)
		}
	})
}

// TestReadFileHeaderPastEnd: a header length longer than the file is refused from the
// file's size, before the header (or anything else) is read.
func TestReadFileHeaderPastEnd(t *testing.T) {
	prefix := make([]byte, 8)
	binary.LittleEndian.PutUint64(prefix, 80*mib)
	p := fileiotest.Sparse(t, t.TempDir(), "h.safetensors", append(prefix, '{', '}'), 64*mib)
	var err error
	if n := fileiotest.Allocated(func() { _, err = ReadFile(p) }); n > mib {
		t.Errorf("ReadFile allocated %d bytes for a 64 MiB sparse file", n)
	}
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "header length") || !strings.Contains(err.Error(), p) {
		t.Errorf("ReadFile = %v, want ErrInvalid naming the path and the header length", err)
	}
}

// TestReadFileOffsetsPastEnd: a tensor ending one byte past the end of a large sparse file
// is refused from the header alone.
func TestReadFileOffsetsPastEnd(t *testing.T) {
	const n = 256 * mib
	header := `{"t":{"dtype":"U8","shape":[268435456],"data_offsets":[0,268435456]}}`
	raw := file(header, nil)
	p := fileiotest.Sparse(t, t.TempDir(), "past.safetensors", raw, int64(len(raw))+n-1)
	var err error
	if got := fileiotest.Allocated(func() { _, err = ReadFile(p) }); got > mib {
		t.Errorf("ReadFile allocated %d bytes before refusing the offsets", got)
	}
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "past the end") {
		t.Errorf("ReadFile = %v, want ErrInvalid: offsets past the end", err)
	}
}

// TestReadFileReadsOnlyTensors: bytes that belong to no tensor (here a sparse tail of
// 256 MiB) are never read into memory.
func TestReadFileReadsOnlyTensors(t *testing.T) {
	raw := file(`{"a":{"dtype":"U8","shape":[2],"data_offsets":[1,3]},"b":{"dtype":"I16","shape":[1],"data_offsets":[5,7]}}`,
		[]byte{9, 1, 2, 9, 9, 3, 4, 9})
	p := fileiotest.Sparse(t, t.TempDir(), "tail.safetensors", raw, 256*mib)
	var f *File
	var err error
	if n := fileiotest.Allocated(func() { f, err = ReadFile(p) }); n > mib {
		t.Errorf("ReadFile allocated %d bytes for 4 bytes of tensors", n)
	}
	if err != nil {
		t.Fatal(err)
	}
	a, _ := f.Get("a")
	b, _ := f.Get("b")
	if !bytes.Equal(a.Data, []byte{1, 2}) || !bytes.Equal(b.Data, []byte{3, 4}) {
		t.Errorf("a = %v, b = %v", a.Data, b.Data)
	}
}

// TestReadFileAgreesWithParse: reading from a file and parsing the same bytes in memory
// accept and reject the same files and give the same tensors.
func TestReadFileAgreesWithParse(t *testing.T) {
	var good bytes.Buffer
	if err := Write(&good, []Tensor{
		FromFloat32s("w", []int{2, 2}, []float32{1, 2, 3, 4}),
		FromUint16s("h", "BF16", []int{}, []uint16{0x3f80}),
		{Name: "e", DType: "I64", Shape: []int{0}},
	}, map[string]string{"format": "pt"}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for i, raw := range [][]byte{
		good.Bytes(),
		file(`{"a":{"dtype":"U8","shape":[2],"data_offsets":[1,3]},"__metadata__":null}  `, []byte{9, 8, 7, 6}),
		file(`{"a":{"dtype":"I16","shape":[1],"data_offsets":[0,2]},"b":{"dtype":"BOOL","shape":[0],"data_offsets":[1,1]}}`, []byte{1, 2}),
		file(`{"b":{"dtype":"U8","shape":[1],"data_offsets":[3,4]},"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}}`, []byte{1, 2, 3, 4}),
		file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}`, make([]byte, 8)),
		file(`{"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},"b":{"dtype":"U8","shape":[4],"data_offsets":[2,6]}}`, make([]byte, 8)),
		file(`{"a":1,"a":2}`, nil),
		{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, '{', '}'},
		{2, 0, 0, 0, 0, 0, 0, 0, '{'},
		{1, 2, 3},
		{},
	} {
		p := filepath.Join(dir, "f.safetensors")
		if err := os.WriteFile(p, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		want, werr := Parse(raw)
		got, gerr := ReadFile(p)
		if (werr == nil) != (gerr == nil) {
			t.Errorf("file %d: Parse error %v, ReadFile error %v", i, werr, gerr)
			continue
		}
		if werr != nil {
			if !errors.Is(gerr, ErrInvalid) || !strings.Contains(gerr.Error(), werr.Error()) {
				t.Errorf("file %d: ReadFile error %q, want %q naming the path", i, gerr, werr)
			}
			continue
		}
		if len(got.Tensors) != len(want.Tensors) || !sameMetadata(got.Metadata, want.Metadata) {
			t.Errorf("file %d: ReadFile = %+v, Parse = %+v", i, got, want)
			continue
		}
		for j := range want.Tensors {
			g, w := got.Tensors[j], want.Tensors[j]
			if !sameTensor(g, w) || cap(g.Data) != len(g.Data) {
				t.Errorf("file %d tensor %d: ReadFile %+v (cap %d), Parse %+v", i, j, g, cap(g.Data), w)
			}
			if h, ok := got.Get(w.Name); !ok || !sameTensor(h, w) {
				t.Errorf("file %d: Get(%q) = %+v, %v", i, w.Name, h, ok)
			}
		}
	}
}

// TestWriteFileRefusesSpecialFiles: an existing path that is not a regular file (a
// symbolic link included, even to a regular file) is left exactly as it was.
func TestWriteFileRefusesSpecialFiles(t *testing.T) {
	tensors := []Tensor{FromFloat32s("w", []int{2}, []float32{1, 2})}
	type target struct {
		path  string
		check func(t *testing.T) // the target is unchanged
	}
	for _, c := range []struct {
		name string
		make func(t *testing.T, dir string) target
	}{
		{"symlink", func(t *testing.T, dir string) target {
			real := filepath.Join(dir, "real.safetensors")
			if err := os.WriteFile(real, []byte("keep"), 0o644); err != nil {
				t.Fatal(err)
			}
			link := filepath.Join(dir, "link.safetensors")
			if err := os.Symlink("real.safetensors", link); err != nil {
				t.Skipf("no symbolic links: %v", err)
			}
			return target{link, func(t *testing.T) {
				if to, err := os.Readlink(link); err != nil || to != "real.safetensors" {
					t.Errorf("link now %q, %v", to, err)
				}
				if b, _ := os.ReadFile(real); string(b) != "keep" {
					t.Errorf("link target now %q", b)
				}
			}}
		}},
		{"dangling symlink", func(t *testing.T, dir string) target {
			link := filepath.Join(dir, "dangling")
			if err := os.Symlink("nowhere", link); err != nil {
				t.Skipf("no symbolic links: %v", err)
			}
			return target{link, func(t *testing.T) {
				if to, err := os.Readlink(link); err != nil || to != "nowhere" {
					t.Errorf("link now %q, %v", to, err)
				}
				if _, err := os.Lstat(filepath.Join(dir, "nowhere")); !os.IsNotExist(err) {
					t.Errorf("the link's target was created")
				}
			}}
		}},
		{"named pipe", func(t *testing.T, dir string) target {
			p := fileiotest.FIFO(t)
			return target{p, func(t *testing.T) {
				if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
					t.Errorf("pipe now %v, %v", fi, err)
				}
				if entries, _ := os.ReadDir(filepath.Dir(p)); len(entries) != 1 {
					t.Errorf("the pipe's directory holds %d entries", len(entries))
				}
			}}
		}},
		{"directory", func(t *testing.T, dir string) target {
			sub := filepath.Join(dir, "sub")
			if err := os.Mkdir(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			return target{sub, func(t *testing.T) {
				if fi, err := os.Lstat(sub); err != nil || !fi.IsDir() {
					t.Errorf("directory now %v, %v", fi, err)
				}
			}}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			tg := c.make(t, dir)
			before, _ := os.ReadDir(dir)
			err := WriteFile(tg.path, tensors, nil)
			if err == nil || !strings.Contains(err.Error(), tg.path) || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("WriteFile(%s) = %v, want an error naming it and saying it is not a regular file", tg.path, err)
			}
			tg.check(t)
			if after, _ := os.ReadDir(dir); !reflect.DeepEqual(names(after), names(before)) {
				t.Errorf("directory held %q, now %q", names(before), names(after))
			}
		})
	}
}

func names(entries []os.DirEntry) []string {
	var s []string
	for _, e := range entries {
		s = append(s, e.Name())
	}
	return s
}

// recordingReader is a file of size bytes (zeros after data) that records the reads.
type recordingReader struct {
	data  []byte
	size  int64
	reads [][2]int64 // [off, off+len)
}

func (r *recordingReader) ReadAt(b []byte, off int64) (int, error) {
	r.reads = append(r.reads, [2]int64{off, off + int64(len(b))})
	clear(b)
	if off < int64(len(r.data)) {
		copy(b, r.data[off:])
	}
	if off+int64(len(b)) > r.size {
		return int(max(r.size-off, 0)), io.EOF
	}
	return len(b), nil
}

// TestReadAtReadsHeaderFirst: a bad range is found from the header alone, with no read
// of the data; a good file is read as its prefix, its header and one run per stretch of
// adjacent tensors, never the bytes between them.
func TestReadAtReadsHeaderFirst(t *testing.T) {
	header := `{"t":{"dtype":"U8","shape":[100],"data_offsets":[0,100]}}`
	r := &recordingReader{data: file(header, nil), size: int64(8 + len(header) + 99)}
	if _, err := readAt(r, r.size); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "past the end") {
		t.Errorf("readAt = %v, want offsets past the end", err)
	}
	for _, rd := range r.reads {
		if rd[1] > int64(8+len(header)) {
			t.Errorf("read [%d, %d) past the header before refusing", rd[0], rd[1])
		}
	}

	header = `{"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"b":{"dtype":"U8","shape":[2],"data_offsets":[2,4]},` +
		`"e":{"dtype":"U8","shape":[0],"data_offsets":[4,4]},"c":{"dtype":"U8","shape":[1],"data_offsets":[10,11]}}`
	raw := file(header, []byte{1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 5, 0, 0})
	r = &recordingReader{data: raw, size: int64(len(raw))}
	f, err := readAt(r, r.size)
	if err != nil {
		t.Fatal(err)
	}
	d := int64(8 + len(header))
	want := [][2]int64{{0, 8}, {8, d}, {d, d + 4}, {d + 10, d + 11}}
	if !reflect.DeepEqual(r.reads, want) {
		t.Errorf("reads %v, want %v", r.reads, want)
	}
	for name, want := range map[string][]byte{"a": {1, 2}, "b": {3, 4}, "e": {}, "c": {5}} {
		if got, ok := f.Get(name); !ok || !bytes.Equal(got.Data, want) || cap(got.Data) != len(want) {
			t.Errorf("%s = %v (cap %d), want %v", name, got.Data, cap(got.Data), want)
		}
	}

	// A file that shrinks after its size was taken is an error, not short data.
	r = &recordingReader{data: raw, size: int64(len(raw)) - 3}
	if _, err := readAt(r, int64(len(raw))); err == nil || !strings.Contains(err.Error(), "change") {
		t.Errorf("readAt of a shrunk file = %v", err)
	}
}
