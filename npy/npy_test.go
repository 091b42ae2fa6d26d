package npy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/internal/fileio/fileiotest"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// npyFile assembles a version 1.0 .npy file from a raw header dict and data.
func npyFile(dict string, data []byte) []byte {
	b := []byte(magic + "\x01\x00")
	b = binary.LittleEndian.AppendUint16(b, uint16(len(dict)))
	b = append(b, dict...)
	return append(b, data...)
}

func f32Bytes(v ...float32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

func writeFile(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// npySet is one tensor of every dtype the format carries here, with edge values.
func npySet() map[string]tensor.Tensor {
	return map[string]tensor.Tensor{
		"out.query": tensor.FromBits(tensor.BF16, []uint16{0x3f80, 0xffc1, 0x0001, 0x8000, 0x7f80, 0x4049}, 2, 3),
		"half":      tensor.FromBits(tensor.F16, []uint16{0x3c00, 0x7e01, 0x0001, 0xfc00}, 4, 1),
		"f32":       tensor.FromF32([]float32{1, -2.5, math.Float32frombits(0x7fc00001), float32(math.Inf(-1))}, 2, 2),
		"f64":       tensor.FromF64([]float64{math.Pi, math.MaxFloat64}, 2),
		"positions": tensor.FromI64([]int64{0, 1, math.MaxInt64}, 3),
		"i32":       tensor.FromI32([]int32{math.MinInt32, 7}, 1, 2),
		"i8":        tensor.FromI8([]int8{-128, 127}, 2),
		"u8":        {DType: tensor.U8, Shape: []int{2}, U8: []uint8{0, 255}},
		"empty":     tensor.FromF32(nil, 0, 4),
		"scalar":    tensor.FromF32([]float32{42}),
	}
}

// sameBits reports whether a and b hold the same dtype, shape and element bits.
func sameBits(t *testing.T, name string, got, want tensor.Tensor) {
	t.Helper()
	gs, _ := safetensors.FromTensor(name, got)
	ws, _ := safetensors.FromTensor(name, want)
	if !reflect.DeepEqual(gs, ws) {
		t.Errorf("%s: got %v %v %x, want %v %v %x", name, gs.DType, gs.Shape, gs.Data, ws.DType, ws.Shape, ws.Data)
	}
}

// TestRoundTrip: WriteDir then ReadDir gives every tensor back bit for bit, with the metadata;
// BF16 is stored as '<u2' and read back as BF16; the files are np.save's bytes, and Write
// writes each file's bytes alone.
func TestRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bundle")
	want := npySet()
	md := map[string]string{"op": "rotary_embedding", "seed": "1"}
	if err := WriteDir(dir, want, nil, md); err != nil {
		t.Fatal(err)
	}
	d, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Tensors) != len(want) || len(d.Names) != len(want) || !reflect.DeepEqual(d.Metadata, md) {
		t.Fatalf("read %d tensors (%v), metadata %v", len(d.Tensors), d.Names, d.Metadata)
	}
	for name, w := range want {
		sameBits(t, name, d.Tensors[name], w)
	}
	b, err := os.ReadFile(filepath.Join(dir, "out.query.npy"))
	if err != nil {
		t.Fatal(err)
	}
	// The header numpy writes for np.save of a (2, 3) uint16 array.
	hdr := "{'descr': '<u2', 'fortran_order': False, 'shape': (2, 3), }"
	if len(b) != 128+12 || string(b[:10]) != magic+"\x01\x00\x76\x00" || string(b[10:10+len(hdr)]) != hdr || b[127] != '\n' {
		t.Errorf("header %q", b[:min(len(b), 128)])
	}
	if hs := encodeHeader(tensor.F32, []int{5}); !strings.Contains(string(hs), "'shape': (5,), }") || len(hs)%64 != 0 {
		t.Errorf("1-D header %q", hs)
	}
	if hs := encodeHeader(tensor.F32, nil); !strings.Contains(string(hs), "'shape': (), }") {
		t.Errorf("scalar header %q", hs)
	}
	for name, w := range want {
		var buf bytes.Buffer
		if err := Write(&buf, w); err != nil {
			t.Fatalf("Write %s: %v", name, err)
		}
		file, err := os.ReadFile(filepath.Join(dir, name+".npy"))
		if err != nil || !bytes.Equal(buf.Bytes(), file) {
			t.Errorf("Write %s: %d bytes, not the %d of %s.npy (%v)", name, buf.Len(), len(file), name, err)
		}
	}
	// A reversed view is written in the row-major order of its shape.
	rev := tensor.Tensor{DType: tensor.F32, Shape: []int{3}, Strides: []int{-1}, Offset: 2, F32: []float32{1, 2, 3}}
	var buf bytes.Buffer
	if err := Write(&buf, rev); err != nil {
		t.Fatal(err)
	}
	if got, err := Read(bytes.NewReader(buf.Bytes()), int64(buf.Len())); err != nil || !reflect.DeepEqual(got.F32, []float32{3, 2, 1}) {
		t.Errorf("reversed view: %v %v", got.F32, err)
	}
	if err := Write(&buf, tensor.Tensor{}); err == nil || !strings.Contains(err.Error(), "no .npy type") {
		t.Errorf("Write of the absent tensor: %v", err)
	}
	// Writing the same set again replaces the files.
	if err := WriteDir(dir, want, nil, md); err != nil {
		t.Errorf("rewrite: %v", err)
	}
}

// TestReadForms: Fortran order, big-endian data and a version 2.0 header read as numpy reads
// them.
func TestReadForms(t *testing.T) {
	dir := t.TempDir()
	// np.asfortranarray([[1, 2, 3], [4, 5, 6]]): column-major data.
	fortran := npyFile("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }\n", f32Bytes(1, 4, 2, 5, 3, 6))
	big := []byte(nil)
	for _, x := range []float32{1, 2} {
		big = binary.BigEndian.AppendUint32(big, math.Float32bits(x))
	}
	bigEndian := npyFile("{'shape': (2,), 'descr': '>f4', 'fortran_order': False}", big)
	v2dict := "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }\n"
	v2 := binary.LittleEndian.AppendUint32([]byte(magic+"\x02\x00"), uint32(len(v2dict)))
	v2 = append(append(v2, v2dict...), f32Bytes(7, 8)...)
	for _, c := range []struct {
		name  string
		file  []byte
		shape []int
		want  []float32
	}{
		{"fortran", fortran, []int{2, 3}, []float32{1, 2, 3, 4, 5, 6}},
		{"big", bigEndian, []int{2}, []float32{1, 2}},
		{"v2", v2, []int{1, 2}, []float32{7, 8}},
	} {
		p := writeFile(t, dir, c.name+".npy", c.file)
		got, err := ReadFile(p)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !reflect.DeepEqual(got.F32, c.want) || !reflect.DeepEqual(got.Shape, c.shape) || !got.Contiguous() {
			t.Errorf("%s: %v %v, want %v %v", c.name, got.F32, got.Shape, c.want, c.shape)
		}
	}
}

// TestBadFiles: every malformed .npy is an error naming the file and what is wrong, read alone
// or in its directory.
func TestBadFiles(t *testing.T) {
	good := "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n"
	data := f32Bytes(1, 2)
	huge := []byte(magic + "\x02\x00\xff\xff\xff\xff{}")
	cases := []struct {
		name string
		file []byte
		want string
	}{
		{"magic", append([]byte("\x93NUMPZ\x01\x00"), 0, 0), "not a .npy file"},
		{"short", []byte(magic), "shorter than its 10-byte preamble"},
		{"version", append([]byte(magic+"\x04\x00"), 0, 0), "version 4.0"},
		{"header limit", huge, "more than numpy's limit of 10000"},
		{"header past end", npyFile(good, data)[:40], "only"},
		{"no dict", npyFile("'descr'", data), "want a dict"},
		{"missing key", npyFile("{'descr': '<f4', 'shape': (2,), }", data), "missing key 'fortran_order'"},
		{"extra key", npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", data), "unexpected key"},
		{"duplicate key", npyFile("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", data), "twice"},
		{"negative dim", npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", data), "non-negative integer"},
		{"not a tuple", npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2), }", data), "(n) is no tuple"},
		{"huge dim", npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", data), "too large"},
		{"overflow", npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4611686018427387904), }", data), "overflows"},
		{"complex", npyFile("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", data), "descr \"<c8\""},
		{"native order", npyFile("{'descr': '=f4', 'fortran_order': False, 'shape': (2,), }", data), "byte order"},
		{"structured", npyFile("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", data), "structured"},
		{"fortran value", npyFile("{'descr': '<f4', 'fortran_order': 0, 'shape': (2,), }", data), "True or False"},
		{"short data", npyFile(good, data[:7]), "needs 8 bytes of data, but the file has 7"},
		{"long data", npyFile(good, append(data, 0)), "needs 8 bytes of data, but the file has 9"},
		{"trailing junk", npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } x", data), "after the dict"},
		{"unterminated", npyFile("{'descr': '<f4", data), "unterminated"},
		{"non-ASCII", npyFile("{'descr': '<f\xc3\xa9', 'fortran_order': False, 'shape': (2,), }", data), "byte 0xc3"},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sub := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_"))
			if err := os.Mkdir(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			p := writeFile(t, sub, "x.npy", c.file)
			if _, err := ReadFile(p); err == nil || !strings.HasPrefix(err.Error(), p+": ") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("ReadFile: %v, want an error naming %s and mentioning %q", err, p, c.want)
			}
			if d, err := ReadDir(sub); d != nil || err == nil || !strings.HasPrefix(err.Error(), p+": ") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("ReadDir: %v, want an error naming %s and mentioning %q", err, p, c.want)
			}
		})
	}
}

// TestDirRefusals: a directory without .npy files, a .npy that is no regular file and a
// broken metadata file are refused; WriteDir refuses what it cannot write faithfully and
// leaves nothing.
func TestDirRefusals(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	writeFile(t, empty, "notes.txt", []byte("x"))
	if _, err := ReadDir(empty); !errors.Is(err, ErrNoFiles) || !strings.Contains(err.Error(), empty) {
		t.Errorf("no .npy files: %v, want ErrNoFiles naming %s", err, empty)
	}

	badMD := filepath.Join(dir, "badmd")
	os.Mkdir(badMD, 0o755)
	writeFile(t, badMD, "q.npy", npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n", f32Bytes(1, 2)))
	writeFile(t, badMD, MetadataFile, []byte(`{"op": 1}`))
	if _, err := ReadDir(badMD); err == nil || !strings.Contains(err.Error(), filepath.Join(badMD, MetadataFile)+": want a JSON object of strings") {
		t.Errorf("metadata of a number: %v", err)
	}

	pipes := filepath.Join(dir, "pipes")
	os.Mkdir(pipes, 0o755)
	fifo := fileiotest.FIFO(t)
	if err := os.Symlink(fifo, filepath.Join(pipes, "q.npy")); err != nil {
		t.Skipf("no symbolic links: %v", err)
	}
	fileiotest.Returns(t, 5e9, fifo, func() {
		if _, err := ReadDir(pipes); err == nil || !strings.Contains(err.Error(), "q.npy") || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("a pipe: %v", err)
		}
	})

	set := map[string]tensor.Tensor{"a": tensor.FromF32([]float32{1}, 1), "b": tensor.FromF32([]float32{2}, 1)}
	stale := filepath.Join(dir, "stale")
	os.Mkdir(stale, 0o755)
	writeFile(t, stale, "old.npy", []byte("x"))
	for _, c := range []struct {
		name  string
		dir   string
		set   map[string]tensor.Tensor
		order []string
		want  string
	}{
		{"stale file", stale, set, nil, "old.npy"},
		{"slash", filepath.Join(dir, "n1"), map[string]tensor.Tensor{"a/b": set["a"]}, nil, "slash"},
		{"dot", filepath.Join(dir, "n2"), map[string]tensor.Tensor{"..": set["a"]}, nil, "'.'"},
		{"metadata name", filepath.Join(dir, "n3"), map[string]tensor.Tensor{"__metadata__": set["a"]}, nil, "kept for the metadata"},
		{"order misses one", filepath.Join(dir, "n4"), set, []string{"a"}, `"b" is missing from the order`},
		{"order unknown", filepath.Join(dir, "n5"), set, []string{"a", "b", "c"}, `"c"`},
		{"order twice", filepath.Join(dir, "n6"), set, []string{"a", "a", "b"}, "twice"},
		{"absent tensor", filepath.Join(dir, "n7"), map[string]tensor.Tensor{"a": {}}, nil, "no .npy type"},
		{"no parent", filepath.Join(dir, "none", "sub"), set, nil, "no such file"},
	} {
		before := fileiotest.DirNames(t, dir)
		err := WriteDir(c.dir, c.set, c.order, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error mentioning %q", c.name, err, c.want)
		}
		if after := fileiotest.DirNames(t, dir); !reflect.DeepEqual(after, before) {
			t.Errorf("%s: %v became %v", c.name, before, after)
		}
	}
	if names := fileiotest.DirNames(t, stale); !reflect.DeepEqual(names, []string{"old.npy"}) {
		t.Errorf("stale directory now holds %v", names)
	}
	notDir := writeFile(t, dir, "file", []byte("x"))
	if err := WriteDir(notDir, set, nil, nil); err == nil || !strings.Contains(err.Error(), "want a directory") || strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a file as dir: %v (want it called a file, not a directory)", err)
	}
}

// FuzzReadNPY: no input makes the reader panic or allocate past the file's own size, and
// what it accepts holds exactly the bytes the file has after its header.
func FuzzReadNPY(f *testing.F) {
	f.Add(npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n", f32Bytes(1, 2)))
	f.Add(npyFile("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 1, 2), }\n", f32Bytes(1, 2, 3, 4)))
	f.Add(npyFile("{'descr': '>u2', 'fortran_order': False, 'shape': (), }", []byte{1, 2}))
	f.Add(npyFile("{'descr': '|u1', 'fortran_order': False, 'shape': (0, 3), }", nil))
	f.Add(npyFile("{'descr': '<i8', 'fortran_order': False, 'shape': (4611686018427387904, 2), }", nil))
	f.Add([]byte(magic + "\x02\x00\x10\x27\x00\x00{}"))
	f.Add([]byte(magic + "\x03\x00\x05\x00\x00\x00{'a':"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := Read(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		h, herr := readHeader(bytes.NewReader(b), int64(len(b)))
		if herr != nil {
			t.Fatalf("accepted a file whose header fails: %v", herr)
		}
		if n := int64(got.Len()) * int64(got.DType.Size()); n != int64(len(b))-h.dataStart {
			t.Fatalf("%d bytes of elements from %d bytes of data", n, int64(len(b))-h.dataStart)
		}
		if err := got.Check("fuzz"); err != nil || !got.Contiguous() {
			t.Fatalf("malformed result: %v", err)
		}
	})
}

// TestBoundedMemory: a header that claims more data than the file has, or a file past
// tensor.MaxBytes, is refused before anything of that size is allocated.
func TestBoundedMemory(t *testing.T) {
	dir := t.TempDir()
	claims := writeFile(t, dir, "claims.npy", npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776,), }", f32Bytes(1, 2)))
	hdr := npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776,), }\n", nil)
	huge := fileiotest.Sparse(t, dir, "huge.npy", hdr, int64(len(hdr))+4<<40)
	for _, c := range []struct{ path, want string }{
		{claims, "needs 4398046511104 bytes of data, but the file has 8"},
		{huge, "exceed"},
	} {
		var err error
		if n := fileiotest.Allocated(func() { _, err = ReadFile(c.path) }); n > 1<<20 {
			t.Errorf("%s: allocated %d bytes", c.path, n)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.path) {
			t.Errorf("%s: %v, want an error naming it and mentioning %q", c.path, err, c.want)
		}
	}
}

// TestDirHiddenFiles: a directory's hidden files are not tensors (the writer never makes one):
// macOS's AppleDouble "._query.npy" beside query.npy, or a file called ".npy", whose stem would
// name a tensor "".
func TestDirHiddenFiles(t *testing.T) {
	dir := t.TempDir()
	q := npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n", f32Bytes(1, 2))
	writeFile(t, dir, "query.npy", q)
	writeFile(t, dir, "._query.npy", []byte("\x00\x05\x16\x07 AppleDouble resource fork"))
	writeFile(t, dir, ".npy", q)
	os.Mkdir(filepath.Join(dir, "sub.npy"), 0o755)
	d, err := ReadDir(dir)
	if err != nil || !reflect.DeepEqual(d.Names, []string{"query"}) || len(d.Tensors) != 1 || d.Metadata != nil {
		t.Fatalf("%+v %v", d, err)
	}
	// Nor do they make the directory stale for the writer. (A subdirectory named X.npy
	// does: the writer has always refused it, though the reader skips it.)
	os.Remove(filepath.Join(dir, "sub.npy"))
	if err := WriteDir(dir, map[string]tensor.Tensor{"query": tensor.FromF32([]float32{3}, 1)}, nil, nil); err != nil {
		t.Errorf("writing beside hidden files: %v", err)
	}
}
