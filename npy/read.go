package npy

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
	magic     = "\x93NUMPY"
	maxHeader = 10000 // lib/format.py _MAX_HEADER_SIZE: larger headers are refused by np.load too
	maxDims   = 64    // NPY_MAXDIMS of numpy 2

	// metadataLimit bounds __metadata__.json, read whole: a bundle's metadata is a few keys.
	metadataLimit = 1 << 20
)

// MetadataFile is the file of a directory that holds the set's metadata, a JSON object of
// strings. Its stem is no tensor name WriteDir accepts, so it cannot clash with a tensor.
const MetadataFile = "__metadata__.json"

// ErrNoFiles is wrapped by ReadDir's error for a directory without a .npy file, so that a
// caller can tell "not a tensor set" from a broken one.
var ErrNoFiles = errors.New("a directory with no .npy files")

// descrs maps the descr type codes (without byte order) read to dtypes. u2 is BF16: numpy has
// no bfloat16 and tensor.Tensor no uint16 (see the package doc).
var descrs = map[string]tensor.DType{
	"f4": tensor.F32, "f8": tensor.F64, "f2": tensor.F16, "u2": tensor.BF16,
	"i4": tensor.I32, "i8": tensor.I64, "i1": tensor.I8, "u1": tensor.U8,
}

// header is a parsed .npy header.
type header struct {
	dtype     tensor.DType
	bigEndian bool
	fortran   bool
	shape     []int
	dataStart int64 // where the elements begin
}

// Dir is a directory of .npy files read by ReadDir.
type Dir struct {
	// Names lists the tensors in the order of their file names.
	Names []string
	// Tensors holds each tensor, contiguous and with its own memory, by its file's stem.
	Tensors map[string]tensor.Tensor
	// Metadata is MetadataFile's object, nil when the directory has none.
	Metadata map[string]string
}

// ReadFile reads the .npy file at path, which must be a regular file (a named pipe or a device
// is refused without blocking). Errors name the path.
func ReadFile(path string) (tensor.Tensor, error) {
	f, size, err := fileio.Open(path, -1)
	if err != nil {
		return tensor.Tensor{}, err
	}
	defer f.Close()
	t, err := Read(f, size)
	if err != nil {
		return tensor.Tensor{}, fmt.Errorf("%s: %v", path, err)
	}
	return t, nil
}

// ReadDir reads the NAME.npy files of dir, each the tensor NAME, and dir/MetadataFile if
// present. Other files, subdirectories and hidden files are skipped: WriteDir never makes
// them, and a hidden "._x.npy" is macOS's AppleDouble file, not a tensor. A directory with no
// .npy file is an error wrapping ErrNoFiles. Errors name the file.
func ReadDir(dir string) (*Dir, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	d := &Dir{Tensors: map[string]tensor.Tensor{}}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".npy") || strings.HasPrefix(name, ".") || e.IsDir() {
			continue
		}
		t, err := ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		stem := strings.TrimSuffix(name, ".npy")
		d.Names = append(d.Names, stem)
		d.Tensors[stem] = t
	}
	if len(d.Names) == 0 {
		return nil, fmt.Errorf("%s: %w", dir, ErrNoFiles)
	}
	p := filepath.Join(dir, MetadataFile)
	if _, err := os.Lstat(p); err == nil {
		b, err := fileio.ReadFile(p, metadataLimit)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &d.Metadata); err != nil {
			return nil, fmt.Errorf("%s: want a JSON object of strings: %v", p, err)
		}
	}
	return d, nil
}

// Read reads a .npy file of size bytes from r: the data must fill the file exactly, as
// np.save leaves it. The result is contiguous and row-major whatever the file's order.
func Read(r io.ReaderAt, size int64) (tensor.Tensor, error) {
	h, err := readHeader(r, size)
	if err != nil {
		return tensor.Tensor{}, err
	}
	n := tensor.NumElements(h.shape)
	if n < 0 {
		return tensor.Tensor{}, fmt.Errorf("shape %s: the element count overflows", tensor.ShapeString(h.shape))
	}
	// By division, so that a header claiming more than the file holds is refused before
	// anything of the claimed size is allocated.
	avail := size - h.dataStart
	if int64(n) > avail/int64(h.dtype.Size()) || int64(n)*int64(h.dtype.Size()) != avail {
		return tensor.Tensor{}, fmt.Errorf("shape %s of %s needs %s bytes of data, but the file has %d after its header", tensor.ShapeString(h.shape), h.dtype, byteCount(n, h.dtype.Size()), avail)
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
	if err := tensor.ReadElements(r, h.dataStart, t, h.bigEndian); err != nil {
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

// byteCount says n·size for an error message without overflowing.
func byteCount(n, size int) string {
	if n > math.MaxInt64/size {
		return "more than 2^63"
	}
	return strconv.FormatInt(int64(n)*int64(size), 10)
}

// readHeader reads and checks the magic, the version, the header length and the header
// (lib/format.py _read_array_header), the length against the file's size before the header
// is allocated.
func readHeader(r io.ReaderAt, size int64) (header, error) {
	var pre [12]byte
	if size < 10 {
		return header{}, fmt.Errorf("not a .npy file: %d bytes, shorter than its 10-byte preamble", size)
	}
	if err := readAtFull(r, pre[:min(12, size)], 0); err != nil {
		return header{}, err
	}
	if string(pre[:6]) != magic {
		return header{}, fmt.Errorf("not a .npy file: it does not start with \\x93NUMPY")
	}
	major, minor := pre[6], pre[7]
	var hlen, start int64
	switch {
	case major == 1 && minor == 0:
		hlen, start = int64(binary.LittleEndian.Uint16(pre[8:])), 10
	case (major == 2 || major == 3) && minor == 0:
		// 3.0 differs from 2.0 only in the header's encoding (UTF-8 rather than latin-1),
		// and a header outside ASCII is refused anyway.
		if size < 12 {
			return header{}, fmt.Errorf("not a .npy file: %d bytes, shorter than its 12-byte version %d preamble", size, major)
		}
		hlen, start = int64(binary.LittleEndian.Uint32(pre[8:])), 12
	default:
		return header{}, fmt.Errorf("unknown .npy format version %d.%d (want 1.0, 2.0 or 3.0)", major, minor)
	}
	if hlen > maxHeader {
		return header{}, fmt.Errorf("header of %d bytes, more than numpy's limit of %d", hlen, maxHeader)
	}
	if hlen > size-start {
		return header{}, fmt.Errorf("header of %d bytes, but only %d follow the preamble", hlen, size-start)
	}
	hdr := make([]byte, hlen)
	if err := readAtFull(r, hdr, start); err != nil {
		return header{}, err
	}
	h, err := parseHeader(hdr)
	if err != nil {
		return header{}, fmt.Errorf("header: %v", err)
	}
	h.dataStart = start + hlen
	return h, nil
}

// readAtFull reads len(b) bytes at off. The size was checked beforehand, so a short read
// means the file shrank underneath.
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

// parseHeader parses the Python dict literal of a header: exactly 'descr' (a string),
// 'fortran_order' (True or False) and 'shape' (a tuple of non-negative ints), in any order,
// followed by nothing but spaces and the closing newline. np.load evaluates it with
// ast.literal_eval and then demands those three keys (lib/format.py
// _read_array_header); this is the subset of Python literals numpy writes, which is all a
// tensor needs, and it cannot be made to allocate beyond the header's own size.
func parseHeader(b []byte) (header, error) {
	p := &parser{b: b}
	var h header
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
			if h.dtype, h.bigEndian, err = parseDescr(d); err != nil {
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

// parseDescr reads a descr such as '<f4'. '=' (native order) is refused: np.save always
// writes an explicit order, and the writer's machine is unknown.
func parseDescr(d string) (tensor.DType, bool, error) {
	want := "want one of <f4 <f8 <f2 <i4 <i8 |i1 |u1, or <u2 for BF16 bits"
	if len(d) != 3 {
		return 0, false, fmt.Errorf("descr %q: %s", d, want)
	}
	dt, ok := descrs[d[1:]]
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

type parser struct {
	b []byte
	i int
}

func (p *parser) errf(format string, args ...any) error {
	return fmt.Errorf("at byte %d: %s", p.i, fmt.Sprintf(format, args...))
}

func (p *parser) space() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\n' || p.b[p.i] == '\t' || p.b[p.i] == '\r') {
		p.i++
	}
}

func (p *parser) eat(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *parser) word(w string) bool {
	if bytes.HasPrefix(p.b[p.i:], []byte(w)) {
		p.i += len(w)
		return true
	}
	return false
}

// str reads a quoted string. Escapes and non-ASCII bytes are refused rather than decoded:
// no descr or key numpy writes holds one.
func (p *parser) str() (string, error) {
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
func (p *parser) tuple() ([]int, error) {
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
		if len(shape) == maxDims {
			return nil, p.errf("shape: more than %d dimensions", maxDims)
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
