package main

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/internal/fileio/fileiotest"
	"github.com/rotary-go/rotary/npy"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// The .npy format's own tests (header bytes, the writer's refusals, FuzzReadNPY) are in package
// npy; these hold the commands to reading and writing it through that package.

const npyMagic = "\x93NUMPY"

// npyFile assembles a version 1.0 .npy file from a raw header dict and data.
func npyFile(dict string, data []byte) []byte {
	b := []byte(npyMagic + "\x01\x00")
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

// npySet is one tensor of every dtype the interchange carries, with edge values.
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

// TestNPYRoundTrip: npy.WriteDir then reading the directory as an input gives every tensor
// back bit for bit, with the metadata; BF16 is stored as '<u2' and read back as BF16.
func TestNPYRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bundle")
	want := npySet()
	md := map[string]string{"op": "rotary_embedding", "seed": "1"}
	if err := npy.WriteDir(dir, want, nil, md); err != nil {
		t.Fatal(err)
	}
	s, err := readInputSet(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tensors) != len(want) || !reflect.DeepEqual(s.Metadata, md) {
		t.Fatalf("read %d tensors, metadata %v", len(s.Tensors), s.Metadata)
	}
	for name, w := range want {
		g := s.Tensors[name]
		gs, _ := safetensors.FromTensor(name, g)
		ws, _ := safetensors.FromTensor(name, w)
		if !reflect.DeepEqual(gs, ws) {
			t.Errorf("%s: got %v %v %x, want %v %v %x", name, gs.DType, gs.Shape, gs.Data, ws.DType, ws.Shape, ws.Data)
		}
	}
	// The commands read the directory.
	if code, out, stderr := runCLI(t, "diff", dir, dir); code != 0 {
		t.Errorf("diff DIR DIR: exit %d\n%s%s", code, out, stderr)
	}
}

// TestNPYReadForms: Fortran order, big-endian data and a version 2.0 header read as numpy
// reads them; a single .npy file is one tensor named by its stem.
func TestNPYReadForms(t *testing.T) {
	dir := t.TempDir()
	// np.asfortranarray([[1, 2, 3], [4, 5, 6]]): column-major data.
	fortran := npyFile("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }\n", f32Bytes(1, 4, 2, 5, 3, 6))
	big := []byte(nil)
	for _, x := range []float32{1, 2} {
		big = binary.BigEndian.AppendUint32(big, math.Float32bits(x))
	}
	bigEndian := npyFile("{'shape': (2,), 'descr': '>f4', 'fortran_order': False}", big)
	v2dict := "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }\n"
	v2 := binary.LittleEndian.AppendUint32([]byte(npyMagic+"\x02\x00"), uint32(len(v2dict)))
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
		s, err := readInputSet(p)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := s.Tensors[c.name]
		if !reflect.DeepEqual(got.F32, c.want) || !reflect.DeepEqual(got.Shape, c.shape) {
			t.Errorf("%s: %v %v, want %v %v", c.name, got.F32, got.Shape, c.want, c.shape)
		}
	}
}

// TestNPYBadFiles: a malformed .npy is exit 2 with one line naming the file and what is wrong,
// whichever command reads it. Every malformation is package npy's (TestBadFiles); here one of
// each kind, preamble, header and data, goes through every command.
func TestNPYBadFiles(t *testing.T) {
	good := "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n"
	data := f32Bytes(1, 2)
	cases := []struct {
		name string
		file []byte
		want string
	}{
		{"magic", append([]byte("\x93NUMPZ\x01\x00"), 0, 0), "not a .npy file"},
		{"negative dim", npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", data), "non-negative integer"},
		{"short data", npyFile(good, data[:7]), "needs 8 bytes of data, but the file has 7"},
	}
	dir := t.TempDir()
	other := writeTensors(t, dir, "other.safetensors", encodeAs(tensor.F32, "x", []int{2}, []float32{1, 2}))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sub := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_"))
			if err := os.Mkdir(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			p := writeFile(t, sub, "x.npy", c.file)
			for _, args := range [][]string{{"show", p}, {"show", sub}, {"diff", sub, other}, {"verify", other, sub}} {
				code, _, stderr := runCLI(t, args...)
				wantOneLine(t, code, stderr, filepath.Join(dir, "none"), p, c.want)
			}
		})
	}
}

// TestNPYDirRefusals: a directory without .npy files, and a .npy that is no regular file,
// are refused (npy.WriteDir's refusals are tested in package npy).
func TestNPYDirRefusals(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	writeFile(t, empty, "notes.txt", []byte("x"))
	code, _, stderr := runCLI(t, "show", empty)
	wantOneLine(t, code, stderr, filepath.Join(dir, "none"), empty, "no .npy files")

	pipes := filepath.Join(dir, "pipes")
	os.Mkdir(pipes, 0o755)
	fifo := fileiotest.FIFO(t)
	if err := os.Symlink(fifo, filepath.Join(pipes, "q.npy")); err != nil {
		t.Skipf("no symbolic links: %v", err)
	}
	fileiotest.Returns(t, 5e9, fifo, func() {
		code, _, stderr := runCLI(t, "show", pipes)
		wantOneLine(t, code, stderr, filepath.Join(dir, "none"), "q.npy", "not a regular file")
	})
}

// TestApplyNPYInput: apply reads its inputs from a .npy directory as from safetensors.
func TestApplyNPYInput(t *testing.T) {
	dir := t.TempDir()
	pos := tensor.FromI64([]int64{0, 5, 9}, 3)
	q, _ := fromFile(encodeAs(tensor.BF16, "query", []int{3, 2, 128}, randomHeads(3*2*128, 21)))
	k, _ := fromFile(encodeAs(tensor.BF16, "key", []int{3, 128}, randomHeads(3*128, 22)))
	in := writeTensors(t, dir, "in.safetensors", toFile("positions", pos), toFile("query", q), toFile("key", k))
	npyDir := filepath.Join(dir, "in")
	if err := npy.WriteDir(npyDir, map[string]tensor.Tensor{"positions": pos, "query": q, "key": k}, []string{"positions", "query", "key"}, nil); err != nil {
		t.Fatal(err)
	}
	outs := []string{filepath.Join(dir, "a.safetensors"), filepath.Join(dir, "b.safetensors")}
	for i, src := range []string{in, npyDir} {
		if code, _, stderr := runCLI(t, "apply", "--model", "llama-3.1-8b", "--in", src, "--out", outs[i]); code != 0 {
			t.Fatalf("--in %s: exit %d %s", src, code, stderr)
		}
	}
	a, _ := os.ReadFile(outs[0])
	b, _ := os.ReadFile(outs[1])
	if !bytes.Equal(a, b) {
		t.Error("the outputs from safetensors and from .npy differ")
	}
}

// TestNPYBoundedMemory: a header that claims more data than the file has, or a file past
// tensor.MaxBytes, is refused before anything of that size is allocated.
func TestNPYBoundedMemory(t *testing.T) {
	dir := t.TempDir()
	claims := writeFile(t, dir, "claims.npy", npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776,), }", f32Bytes(1, 2)))
	hdr := npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776,), }\n", nil)
	huge := fileiotest.Sparse(t, dir, "huge.npy", hdr, int64(len(hdr))+4<<40)
	for _, c := range []struct{ path, want string }{
		{claims, "needs 4398046511104 bytes of data, but the file has 8"},
		{huge, "exceed"},
	} {
		var err error
		if n := fileiotest.Allocated(func() { _, err = readInputSet(c.path) }); n > 1<<20 {
			t.Errorf("%s: allocated %d bytes", c.path, n)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error mentioning %q", c.path, err, c.want)
		}
	}
}

// TestNPYDirHiddenFiles: a directory's hidden files are not tensors (the writer never makes
// one): macOS's AppleDouble "._query.npy" beside query.npy, or a file called ".npy", whose
// stem would name a tensor "". A single .npy file with no stem is refused by name.
func TestNPYDirHiddenFiles(t *testing.T) {
	dir := t.TempDir()
	q := npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n", f32Bytes(1, 2))
	writeFile(t, dir, "query.npy", q)
	writeFile(t, dir, "._query.npy", []byte("\x00\x05\x16\x07 AppleDouble resource fork"))
	writeFile(t, dir, ".npy", q)
	code, out, stderr := runCLI(t, "show", dir)
	if code != 0 || !strings.Contains(out, ": 1 tensors\n") || !strings.Contains(out, "\nquery ") {
		t.Errorf("exit %d\n%s%s", code, out, stderr)
	}
	code, _, stderr = runCLI(t, "show", filepath.Join(dir, ".npy"))
	wantOneLine(t, code, stderr, filepath.Join(dir, "none"), ".npy", "no stem")
	// Nor do they make the directory stale for the writer.
	if err := npy.WriteDir(dir, map[string]tensor.Tensor{"query": tensor.FromF32([]float32{3}, 1)}, nil, nil); err != nil {
		t.Errorf("writing beside hidden files: %v", err)
	}
}
