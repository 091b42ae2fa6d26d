package main

// The .npy interchange: a directory of .npy files is a tensor set, one tensor per file named by
// the file's stem, so that Python harnesses exchange tensors with np.save / np.load alone.
//
// Writer (npy_write.go), called by `rotary golden --format npy`:
//
//	func writeNPYDir(dir string, tensors map[string]tensor.Tensor, order []string) error
//	func writeNPYDirMetadata(dir string, tensors map[string]tensor.Tensor, order []string, metadata map[string]string) error
//
// NumPy has no bfloat16, so BF16 travels as its uint16 bit patterns: BF16 is written as '<u2',
// and a '<u2' file is read as BF16 (np.load(f).view(ml_dtypes.bfloat16), or
// torch.from_numpy(a.view(np.int16)).view(torch.bfloat16), gives the values back).
//
// The reader is ours rather than codeberg.org/sbinet/npyio's (v0.14.0): that one panics on a
// header without its closing newline (slicing at index -1), allocates a version-2 header's
// length, up to 4 GiB, before reading it, and accepts negative dimensions. This one follows
// numpy lib/format.py (_read_array_header): versions 1.0, 2.0 and 3.0, a header of at most
// _MAX_HEADER_SIZE (10000) bytes holding exactly the keys 'descr', 'fortran_order' and
// 'shape', and it checks every count by division and the data's size against the file's
// before allocating anything. FuzzReadNPY holds it to that.

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rotary-go/rotary/internal/fileio"
	"github.com/rotary-go/rotary/tensor"
)

const (
	npyMagic         = "\x93NUMPY"
	npyMaxHeader     = 10000 // numpy lib/format.py _MAX_HEADER_SIZE: larger headers are refused by np.load too
	npyMaxDims       = 64    // NPY_MAXDIMS of numpy 2
	npyMetadataFile  = "__metadata__.json"
	npyMetadataLimit = 1 << 20
	npyBF16Note      = "BF16 travels in .npy as its uint16 bits ('<u2'), and a uint16 .npy is read as BF16"
)

// npyDescrs maps the descr type codes (without byte order) this tool reads to dtypes.
var npyDescrs = map[string]tensor.DType{
	"f4": tensor.F32, "f8": tensor.F64, "f2": tensor.F16, "u2": tensor.BF16,
	"i4": tensor.I32, "i8": tensor.I64, "i1": tensor.I8, "u1": tensor.U8,
}

// npyCodes is the inverse of npyDescrs, for writing.
var npyCodes = map[tensor.DType]string{
	tensor.F32: "<f4", tensor.F64: "<f8", tensor.F16: "<f2", tensor.BF16: "<u2",
	tensor.I32: "<i4", tensor.I64: "<i8", tensor.I8: "|i1", tensor.U8: "|u1",
}

// npyHeader is a parsed .npy header.
type npyHeader struct {
	dtype     tensor.DType
	bigEndian bool
	fortran   bool
	shape     []int
	dataStart int64 // where the elements begin
}

func npyStem(path string) string { return strings.TrimSuffix(filepath.Base(path), ".npy") }

// readNPY reads one .npy file, which must be a regular file.
func readNPY(path string) (tensor.Tensor, error) {
	f, size, err := fileio.Open(path, -1)
	if err != nil {
		return tensor.Tensor{}, err
	}
	defer f.Close()
	t, err := readNPYFrom(f, size)
	if err != nil {
		return tensor.Tensor{}, fmt.Errorf("%s: %v", path, err)
	}
	return t, nil
}

// readNPYFrom reads a .npy file of size bytes from r.
func readNPYFrom(r io.ReaderAt, size int64) (tensor.Tensor, error) {
	h, err := readNPYHeader(r, size)
	if err != nil {
		return tensor.Tensor{}, err
	}
	n, ok := npyElements(h.shape)
	if !ok {
		return tensor.Tensor{}, fmt.Errorf("shape %s: the element count overflows", tensor.ShapeString(h.shape))
	}
	avail := size - h.dataStart
	if int64(n) > avail/int64(h.dtype.Size()) || int64(n)*int64(h.dtype.Size()) != avail {
		return tensor.Tensor{}, fmt.Errorf("shape %s of %s needs %s bytes of data, but the file has %d after its header", tensor.ShapeString(h.shape), h.dtype, npyBytes(n, h.dtype.Size()), avail)
	}
	shape := h.shape
	if h.fortran {
		// Column-major data is the row-major data of the reversed shape.
		shape = make([]int, len(h.shape))
		for i, d := range h.shape {
			shape[len(shape)-1-i] = d
		}
	}
	t, err := tensor.New(h.dtype, shape...)
	if err != nil {
		return tensor.Tensor{}, err
	}
	if err := readElements(r, h.dataStart, t, h.bigEndian); err != nil {
		return tensor.Tensor{}, err
	}
	if !h.fortran {
		return t, nil
	}
	if n == 0 {
		return t.Reshape(h.shape...)
	}
	strides := make([]int, len(h.shape))
	s := 1
	for i, d := range h.shape {
		strides[i] = s
		s *= d // cannot overflow: the product of the dimensions fit
	}
	view := tensor.Tensor{DType: t.DType, Shape: append([]int(nil), h.shape...), Strides: strides,
		F32: t.F32, Bits: t.Bits, F64: t.F64, I32: t.I32, I64: t.I64, I8: t.I8, U8: t.U8}
	c := view.Clone()
	if c.IsZero() {
		return tensor.Tensor{}, fmt.Errorf("shape %s of %s is too large to reorder from Fortran order", tensor.ShapeString(h.shape), h.dtype)
	}
	return c, nil
}

// npyBytes says n·size for an error message without overflowing.
func npyBytes(n, size int) string {
	if n > math.MaxInt64/size {
		return "more than 2^63"
	}
	return strconv.FormatInt(int64(n)*int64(size), 10)
}

// npyElements is the product of shape, false when it overflows int.
func npyElements(shape []int) (int, bool) {
	n := tensor.NumElements(shape)
	return n, n >= 0
}

// readNPYHeader reads and checks the magic, the version, the header length and the header.
func readNPYHeader(r io.ReaderAt, size int64) (npyHeader, error) {
	var pre [12]byte
	if size < 10 {
		return npyHeader{}, fmt.Errorf("not a .npy file: %d bytes, shorter than its 10-byte preamble", size)
	}
	if err := readAtFull(r, pre[:min(12, size)], 0); err != nil {
		return npyHeader{}, err
	}
	if string(pre[:6]) != npyMagic {
		return npyHeader{}, fmt.Errorf("not a .npy file: it does not start with \\x93NUMPY")
	}
	major, minor := pre[6], pre[7]
	var hlen, start int64
	switch {
	case major == 1 && minor == 0:
		hlen, start = int64(binary.LittleEndian.Uint16(pre[8:])), 10
	case (major == 2 || major == 3) && minor == 0:
		if size < 12 {
			return npyHeader{}, fmt.Errorf("not a .npy file: %d bytes, shorter than its 12-byte version %d preamble", size, major)
		}
		hlen, start = int64(binary.LittleEndian.Uint32(pre[8:])), 12
	default:
		return npyHeader{}, fmt.Errorf("unknown .npy format version %d.%d (want 1.0, 2.0 or 3.0)", major, minor)
	}
	if hlen > npyMaxHeader {
		return npyHeader{}, fmt.Errorf("header of %d bytes, more than numpy's limit of %d", hlen, npyMaxHeader)
	}
	if hlen > size-start {
		return npyHeader{}, fmt.Errorf("header of %d bytes, but only %d follow the preamble", hlen, size-start)
	}
	hdr := make([]byte, hlen)
	if err := readAtFull(r, hdr, start); err != nil {
		return npyHeader{}, err
	}
	h, err := parseNPYHeader(hdr)
	if err != nil {
		return npyHeader{}, fmt.Errorf("header: %v", err)
	}
	h.dataStart = start + hlen
	return h, nil
}

func readAtFull(r io.ReaderAt, b []byte, off int64) error {
	n, err := r.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		return fmt.Errorf("the file ended at byte %d: did it change while being read?", off+int64(n))
	}
	return err
}

// parseNPYHeader parses the Python dict literal of a header: exactly 'descr' (a string),
// 'fortran_order' (True or False) and 'shape' (a tuple of non-negative ints), in any order,
// followed by nothing but spaces and the closing newline. It is the subset of Python literals
// numpy writes; ASCII only.
func parseNPYHeader(b []byte) (npyHeader, error) {
	p := &npyParser{b: b}
	var h npyHeader
	seen := map[string]bool{}
	p.space()
	if !p.eat('{') {
		return h, p.errf("want a dict starting with '{'")
	}
	for {
		p.space()
		if p.eat('}') {
			break
		}
		key, err := p.str()
		if err != nil {
			return h, err
		}
		if seen[key] {
			return h, p.errf("key %q given twice", key)
		}
		seen[key] = true
		p.space()
		if !p.eat(':') {
			return h, p.errf("want ':' after %q", key)
		}
		p.space()
		switch key {
		case "descr":
			d, err := p.str()
			if err != nil {
				return h, fmt.Errorf("descr: %v (a structured dtype is no tensor)", err)
			}
			if h.dtype, h.bigEndian, err = npyDescr(d); err != nil {
				return h, err
			}
		case "fortran_order":
			switch {
			case p.word("True"):
				h.fortran = true
			case p.word("False"):
			default:
				return h, p.errf("fortran_order: want True or False")
			}
		case "shape":
			if h.shape, err = p.tuple(); err != nil {
				return h, err
			}
		default:
			return h, p.errf("unexpected key %q (want 'descr', 'fortran_order', 'shape')", key)
		}
		p.space()
		if p.eat('}') {
			break
		}
		if !p.eat(',') {
			return h, p.errf("want ',' or '}'")
		}
	}
	p.space()
	if p.i != len(p.b) {
		return h, p.errf("unexpected bytes after the dict")
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return h, fmt.Errorf("missing key '%s'", k)
		}
	}
	return h, nil
}

// npyDescr reads a descr such as '<f4'.
func npyDescr(d string) (tensor.DType, bool, error) {
	want := "want one of <f4 <f8 <f2 <i4 <i8 |i1 |u1, or <u2 for BF16 bits"
	if len(d) != 3 {
		return 0, false, fmt.Errorf("descr %q: %s", d, want)
	}
	dt, ok := npyDescrs[d[1:]]
	if !ok {
		return 0, false, fmt.Errorf("descr %q: %s", d, want)
	}
	switch d[0] {
	case '<':
		return dt, false, nil
	case '>':
		return dt, true, nil
	case '|':
		if dt.Size() == 1 {
			return dt, false, nil
		}
	}
	return 0, false, fmt.Errorf("descr %q: byte order %q (want '<' or '>', '|' for one-byte types)", d, d[0])
}

type npyParser struct {
	b []byte
	i int
}

func (p *npyParser) errf(format string, args ...any) error {
	return fmt.Errorf("at byte %d: %s", p.i, fmt.Sprintf(format, args...))
}

func (p *npyParser) space() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\n' || p.b[p.i] == '\t' || p.b[p.i] == '\r') {
		p.i++
	}
}

func (p *npyParser) eat(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *npyParser) word(w string) bool {
	if bytes.HasPrefix(p.b[p.i:], []byte(w)) {
		p.i += len(w)
		return true
	}
	return false
}

// str reads a quoted string without escapes.
func (p *npyParser) str() (string, error) {
	if p.i >= len(p.b) || (p.b[p.i] != '\'' && p.b[p.i] != '"') {
		return "", p.errf("want a quoted string")
	}
	q := p.b[p.i]
	start := p.i + 1
	for j := start; j < len(p.b); j++ {
		switch c := p.b[j]; {
		case c == q:
			p.i = j + 1
			return string(p.b[start:j]), nil
		case c == '\\' || c < 0x20 || c >= 0x7f:
			return "", p.errf("a string holding byte %#x", c)
		}
	}
	return "", p.errf("unterminated string")
}

// tuple reads a tuple of non-negative ints: (), (n,), (a, b) or (a, b,).
func (p *npyParser) tuple() ([]int, error) {
	if !p.eat('(') {
		return nil, p.errf("shape: want a tuple")
	}
	shape := []int{}
	comma := false // the last dimension was followed by a comma
	for {
		p.space()
		if p.eat(')') {
			if len(shape) == 1 && !comma {
				// (n) is n in Python, not a tuple; numpy never writes it.
				return nil, p.errf("shape: (n) is no tuple (want (n,))")
			}
			return shape, nil
		}
		start := p.i
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
		}
		if p.i == start {
			return nil, p.errf("shape: want a non-negative integer")
		}
		d, err := strconv.ParseInt(string(p.b[start:p.i]), 10, 0)
		if err != nil {
			return nil, p.errf("shape: dimension %s is too large", p.b[start:p.i])
		}
		if len(shape) == npyMaxDims {
			return nil, p.errf("shape: more than %d dimensions", npyMaxDims)
		}
		shape = append(shape, int(d))
		p.space()
		if comma = p.eat(','); comma {
			continue
		}
		if p.i >= len(p.b) || p.b[p.i] != ')' {
			return nil, p.errf("shape: want ',' or ')'")
		}
	}
}

// readNPYDir adds the .npy files of dir to s (other files are ignored, and so are
// subdirectories and hidden files, which the writer never makes: macOS leaves "._x.npy"
// beside x.npy on some volumes), and dir/__metadata__.json, if present, as its metadata. A
// directory with no .npy file is an error.
func readNPYDir(dir string, s *inputSet) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return usageError{err}
	}
	n := 0
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".npy") || strings.HasPrefix(name, ".") || e.IsDir() {
			continue
		}
		p := filepath.Join(dir, name)
		t, err := readNPY(p)
		if err != nil {
			return usageError{err}
		}
		if err := s.add(npyStem(name), t, p); err != nil {
			return err
		}
		n++
	}
	if n == 0 {
		return usagef("%s: a directory with no .npy files (want a safetensors file or a directory of .npy files)", dir)
	}
	p := filepath.Join(dir, npyMetadataFile)
	if _, err := os.Lstat(p); err == nil {
		b, err := fileio.ReadFile(p, npyMetadataLimit)
		if err != nil {
			return usageError{err}
		}
		var md map[string]string
		if err := json.Unmarshal(b, &md); err != nil {
			return usagef("%s: want a JSON object of strings: %v", p, err)
		}
		s.addMetadata(md)
	}
	return nil
}
