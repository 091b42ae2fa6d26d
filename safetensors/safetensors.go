package safetensors

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/rotary-go/rotary/internal/errs"
	"github.com/rotary-go/rotary/internal/fileio"
)

// ErrInvalid is wrapped by every error reporting a malformed file (from Parse and
// ReadFile) or an unwritable tensor set (from Write and WriteFile).
var ErrInvalid = errors.New("safetensors: invalid")

// ErrDType is wrapped by the typed accessors (Float32s, ...) when the tensor's
// dtype is not one the accessor decodes.
var ErrDType = errors.New("safetensors: dtype mismatch")

// MaxHeaderSize is the largest header length Parse accepts (100 MiB); longer
// headers are rejected as absurd.
const MaxHeaderSize = 100 << 20

// metadataKey is the reserved header key holding the string->string metadata.
const metadataKey = "__metadata__"

func invalidf(format string, args ...any) error {
	return errs.Wrapf(ErrInvalid, format, args...)
}

var elemSizes = map[string]int{
	"BOOL": 1,
	"U8":   1,
	"I8":   1,
	"I16":  2,
	"U16":  2,
	"F16":  2,
	"BF16": 2,
	"I32":  4,
	"U32":  4,
	"F32":  4,
	"F64":  8,
	"I64":  8,
	"U64":  8,
}

// ElemSize returns the size in bytes of one element of dtype, and whether dtype
// is one this package knows (BOOL, U8, I8, I16, U16, F16, BF16, I32, U32, F32,
// F64, I64, U64).
func ElemSize(dtype string) (int, bool) {
	n, ok := elemSizes[dtype]
	return n, ok
}

// Tensor is one named tensor. Data holds the little-endian element bytes in
// row-major order; len(Data) == NumElements()*ElemSize(DType) for a valid tensor.
// A scalar has an empty Shape and one element.
type Tensor struct {
	Name  string
	DType string // "F32", "BF16", ...
	Shape []int
	Data  []byte
	// Stream, when not nil, writes the tensor's data in place of Data, which must then be
	// empty: exactly NumElements()*ElemSize(DType) bytes, in as many writes as it likes, so that
	// a tensor larger than memory need not be held whole. Write and WriteFile fail when it
	// writes another count. Readers leave it nil.
	Stream func(w io.Writer) error
}

// NumElements returns the product of the dimensions (1 for a scalar), or -1 when
// a dimension is negative or the product overflows int.
func (t Tensor) NumElements() int {
	n, ok := numElements(t.Shape)
	if !ok {
		return -1
	}
	return n
}

// numElements returns the product of shape and false if a dimension is negative
// or the product overflows int. A zero dimension makes the product zero however
// large the others are.
func numElements(shape []int) (int, bool) {
	zero := false
	for _, d := range shape {
		if d < 0 {
			return 0, false
		}
		if d == 0 {
			zero = true
		}
	}
	if zero {
		return 0, true
	}
	n := 1
	for _, d := range shape {
		if n > math.MaxInt/d {
			return 0, false
		}
		n *= d
	}
	return n, true
}

// byteSize returns numElements(shape)*elemSize with overflow checking.
func byteSize(shape []int, elemSize int) (int, bool) {
	n, ok := numElements(shape)
	if !ok || n > math.MaxInt/elemSize {
		return 0, false
	}
	return n * elemSize, true
}

// File is a parsed safetensors file.
type File struct {
	Tensors  []Tensor          // sorted by data offset as in the file
	Metadata map[string]string // nil when absent

	index map[string]int // name -> position in Tensors at parse time
}

// Get returns the tensor called name.
func (f *File) Get(name string) (Tensor, bool) {
	if i, ok := f.index[name]; ok && i < len(f.Tensors) && f.Tensors[i].Name == name {
		return f.Tensors[i], true
	}
	// Tensors was built by hand or changed since parsing: fall back to a scan.
	for _, t := range f.Tensors {
		if t.Name == name {
			return t, true
		}
	}
	return Tensor{}, false
}

// Names returns the tensor names, sorted.
func (f *File) Names() []string {
	names := make([]string, len(f.Tensors))
	for i, t := range f.Tensors {
		names[i] = t.Name
	}
	sort.Strings(names)
	return names
}

// ReadFile reads the safetensors file at path, which must be a regular file: a pipe, a
// device or a directory is refused with an error naming the path, without being read.
//
// It reads no more than it must. The header length is checked against the file's size
// before the header is read, and every tensor's data_offsets against the size before any
// tensor data is; then only the tensors' bytes are read, into one buffer the tensors'
// Data slices share. Bytes that belong to no tensor are never read, so memory is the
// header plus the tensors, whatever the file's size claims. Errors about the file's
// contents wrap ErrInvalid, as Parse's do, and name the path.
func ReadFile(path string) (*File, error) {
	return fileio.ReadAt(path, readAt)
}

// readLayout reads and checks the header of a safetensors file of size bytes from r: its
// tensors without data, their byte ranges (relative to dataStart) in file order.
func readLayout(r io.ReaderAt, size int64) (f *File, spans []span, dataStart int64, err error) {
	if size < 8 {
		return nil, nil, 0, invalidf("file is %d bytes, shorter than the 8-byte header length prefix", size)
	}
	var prefix [8]byte
	if err := readFull(r, prefix[:], 0); err != nil {
		return nil, nil, 0, err
	}
	n := binary.LittleEndian.Uint64(prefix[:])
	if err := checkHeaderLen(n, uint64(size-8)); err != nil {
		return nil, nil, 0, err
	}
	header := make([]byte, n)
	if err := readFull(r, header, 8); err != nil {
		return nil, nil, 0, err
	}
	f, spans, err = parseLayout(header, uint64(size-8)-n)
	return f, spans, int64(8 + n), err
}

// readAt reads a safetensors file of size bytes from r (see ReadFile).
func readAt(r io.ReaderAt, size int64) (*File, error) {
	f, spans, dataStart, err := readLayout(r, size)
	if err != nil {
		return nil, err
	}
	// The spans lie within the file and do not overlap, so their sum is at most its size;
	// only a 32-bit int can be too small for it.
	var total uint64
	for _, s := range spans {
		total += s.end - s.begin
	}
	if total > math.MaxInt {
		return nil, fmt.Errorf("the tensors hold %d bytes, more than fit in memory here", total)
	}
	buf := make([]byte, total)
	// Spans are in file order, and buf takes them in the same order, so tensors adjacent
	// in the file (all of them, in a file Write made) are adjacent in buf too: read each
	// such run with one call.
	var off, runOff, runBegin, runEnd uint64
	flush := func() error {
		if runEnd == runBegin {
			return nil
		}
		return readFull(r, buf[runOff:runOff+runEnd-runBegin], dataStart+int64(runBegin))
	}
	for i, s := range spans {
		length := s.end - s.begin
		f.Tensors[i].Data = buf[off : off+length : off+length]
		if length == 0 {
			continue
		}
		if s.begin != runEnd || runEnd == runBegin {
			if err := flush(); err != nil {
				return nil, err
			}
			runOff, runBegin = off, s.begin
		}
		runEnd = s.end
		off += length
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return f, nil
}

// readFull fills b from r at off. The sizes were checked against the file's size, so an
// early end means the file shrank after it was opened.
func readFull(r io.ReaderAt, b []byte, off int64) error {
	n, err := r.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == nil || err == io.EOF {
		return fmt.Errorf("the file ended at byte %d, before its header said: did it change while being read?", off+int64(n))
	}
	return err
}

// checkHeaderLen checks the header length n against the limit and the avail bytes that
// follow the length prefix.
func checkHeaderLen(n, avail uint64) error {
	if n > MaxHeaderSize {
		return invalidf("absurd header length %d (the limit is %d bytes)", n, MaxHeaderSize)
	}
	if n > avail {
		return invalidf("header length %d is larger than the %d bytes that follow the length prefix", n, avail)
	}
	return nil
}

// Parse parses a complete safetensors file held in data. The returned tensors'
// Data slices alias data (with capacity clipped to their length); nothing is
// copied. Every error wraps ErrInvalid.
func Parse(data []byte) (*File, error) {
	if len(data) < 8 {
		return nil, invalidf("file is %d bytes, shorter than the 8-byte header length prefix", len(data))
	}
	n := binary.LittleEndian.Uint64(data)
	if err := checkHeaderLen(n, uint64(len(data)-8)); err != nil {
		return nil, err
	}
	buf := data[8+n:]
	f, spans, err := parseLayout(data[8:8+n], uint64(len(buf)))
	if err != nil {
		return nil, err
	}
	for i, s := range spans {
		f.Tensors[i].Data = buf[s.begin:s.end:s.end]
	}
	return f, nil
}

// span is a tensor's data_offsets.
type span struct{ begin, end uint64 }

// parseLayout parses a header for a data buffer of bufLen bytes and checks every tensor's
// range against it and against the others. The tensors come back in file order without
// their Data, with their ranges in the same order.
func parseLayout(header []byte, bufLen uint64) (*File, []span, error) {
	entries, err := parseHeader(header)
	if err != nil {
		return nil, nil, err
	}

	f := &File{}
	spans := make([]span, 0, len(entries))
	for _, e := range entries {
		if e.key == metadataKey {
			md, err := parseMetadata(e.raw)
			if err != nil {
				return nil, nil, err
			}
			f.Metadata = md
			continue
		}
		t, begin, end, err := parseTensor(e.key, e.raw, bufLen)
		if err != nil {
			return nil, nil, err
		}
		f.Tensors = append(f.Tensors, t)
		spans = append(spans, span{begin, end})
	}

	// Sort by (begin, end, name): the file's data order, deterministically.
	order := make([]int, len(f.Tensors))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool {
		sa, sb := spans[order[a]], spans[order[b]]
		if sa.begin != sb.begin {
			return sa.begin < sb.begin
		}
		if sa.end != sb.end {
			return sa.end < sb.end
		}
		return f.Tensors[order[a]].Name < f.Tensors[order[b]].Name
	})
	sorted := make([]Tensor, len(order))
	sortedSpans := make([]span, len(order))
	prev := -1 // index into order of the last non-empty tensor
	for i, j := range order {
		sorted[i] = f.Tensors[j]
		s := spans[j]
		sortedSpans[i] = s
		if s.begin == s.end {
			continue // an empty range overlaps nothing
		}
		if prev >= 0 {
			p := spans[order[prev]]
			if s.begin < p.end {
				return nil, nil, invalidf("tensors %q (data_offsets [%d, %d]) and %q (data_offsets [%d, %d]) overlap",
					f.Tensors[order[prev]].Name, p.begin, p.end, f.Tensors[j].Name, s.begin, s.end)
			}
		}
		prev = i
	}
	f.Tensors = sorted
	f.index = make(map[string]int, len(sorted))
	for i, t := range sorted {
		f.index[t.Name] = i
	}
	return f, sortedSpans, nil
}

type entry struct {
	key string
	raw json.RawMessage
}

// parseHeader checks the header framing and returns the top-level entries.
func parseHeader(header []byte) ([]entry, error) {
	if len(header) == 0 || header[0] != '{' {
		return nil, invalidf("header must be a JSON object starting with '{'")
	}
	if !utf8.Valid(header) {
		return nil, invalidf("header is not valid UTF-8")
	}
	entries, end, err := objectEntries(header, "header")
	if err != nil {
		return nil, err
	}
	for i := end; i < len(header); i++ {
		if header[i] != ' ' {
			return nil, invalidf("header: unexpected byte %q at offset %d after the JSON object (only space padding is allowed)", header[i], i)
		}
	}
	return entries, nil
}

// objectEntries decodes the JSON object at the start of b into its entries in
// order, rejecting duplicate keys, and returns the offset just past the object.
func objectEntries(b []byte, what string) ([]entry, int, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return nil, 0, invalidf("%s: invalid JSON: %v", what, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, 0, invalidf("%s: expected a JSON object", what)
	}
	var entries []entry
	seen := make(map[string]bool)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, 0, invalidf("%s: invalid JSON: %v", what, err)
		}
		key, ok := tok.(string)
		if !ok {
			return nil, 0, invalidf("%s: invalid JSON: expected an object key", what)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, 0, invalidf("%s: invalid JSON in the value of %q: %v", what, key, err)
		}
		if seen[key] {
			return nil, 0, invalidf("%s: duplicate key %q", what, key)
		}
		seen[key] = true
		entries = append(entries, entry{key, raw})
	}
	tok, err = dec.Token()
	if err != nil {
		return nil, 0, invalidf("%s: invalid JSON: %v", what, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '}' {
		return nil, 0, invalidf("%s: invalid JSON: unterminated object", what)
	}
	return entries, int(dec.InputOffset()), nil
}

func parseMetadata(raw json.RawMessage) (map[string]string, error) {
	if string(raw) == "null" {
		return nil, nil
	}
	entries, _, err := objectEntries(raw, metadataKey)
	if err != nil {
		return nil, err
	}
	md := make(map[string]string, len(entries))
	for _, e := range entries {
		s, ok := jsonString(e.raw)
		if !ok {
			return nil, invalidf("%s: value of %q must be a string, got %s", metadataKey, e.key, abbrev(e.raw))
		}
		md[e.key] = s
	}
	return md, nil
}

// parseTensor decodes one tensor entry and checks it against a data buffer of
// bufLen bytes. Data is left nil.
func parseTensor(name string, raw json.RawMessage, bufLen uint64) (t Tensor, begin, end uint64, err error) {
	what := fmt.Sprintf("tensor %q", name)
	fields, _, err := objectEntries(raw, what)
	if err != nil {
		return t, 0, 0, err
	}
	var dtypeRaw, shapeRaw, offRaw json.RawMessage
	for _, f := range fields {
		switch f.key {
		case "dtype":
			dtypeRaw = f.raw
		case "shape":
			shapeRaw = f.raw
		case "data_offsets":
			offRaw = f.raw
		}
	}
	if dtypeRaw == nil {
		return t, 0, 0, invalidf("%s: missing \"dtype\"", what)
	}
	if shapeRaw == nil {
		return t, 0, 0, invalidf("%s: missing \"shape\"", what)
	}
	if offRaw == nil {
		return t, 0, 0, invalidf("%s: missing \"data_offsets\"", what)
	}

	dtype, ok := jsonString(dtypeRaw)
	if !ok {
		return t, 0, 0, invalidf("%s: \"dtype\" must be a string, got %s", what, abbrev(dtypeRaw))
	}
	size, ok := ElemSize(dtype)
	if !ok {
		return t, 0, 0, invalidf("%s: unknown dtype %q", what, dtype)
	}

	dims, ok := jsonArray(shapeRaw)
	if !ok {
		return t, 0, 0, invalidf("%s: \"shape\" must be an array of integers, got %s", what, abbrev(shapeRaw))
	}
	shape := make([]int, len(dims))
	for i, d := range dims {
		v, err := nonNegInt(d)
		if err != nil {
			return t, 0, 0, invalidf("%s: shape[%d]: %v", what, i, err)
		}
		if v > math.MaxInt {
			return t, 0, 0, invalidf("%s: shape[%d] = %d is too large", what, i, v)
		}
		shape[i] = int(v)
	}
	nbytes, ok := byteSize(shape, size)
	if !ok {
		return t, 0, 0, invalidf("%s: shape %v: element count overflows", what, shape)
	}

	offs, ok := jsonArray(offRaw)
	if !ok || len(offs) != 2 {
		return t, 0, 0, invalidf("%s: \"data_offsets\" must be an array of two non-negative integers, got %s", what, abbrev(offRaw))
	}
	begin, err = nonNegInt(offs[0])
	if err != nil {
		return t, 0, 0, invalidf("%s: data_offsets begin: %v", what, err)
	}
	end, err = nonNegInt(offs[1])
	if err != nil {
		return t, 0, 0, invalidf("%s: data_offsets end: %v", what, err)
	}
	if begin > end {
		return t, 0, 0, invalidf("%s: data_offsets begin %d is greater than end %d", what, begin, end)
	}
	if end > bufLen {
		return t, 0, 0, invalidf("%s: header offsets past the end of the file: data_offsets end %d, but the data buffer has %d bytes", what, end, bufLen)
	}
	if end-begin != uint64(nbytes) {
		return t, 0, 0, invalidf("%s: data_offsets [%d, %d] span %d bytes, but dtype %s and shape %v need %d",
			what, begin, end, end-begin, dtype, shape, nbytes)
	}
	return Tensor{Name: name, DType: dtype, Shape: shape}, begin, end, nil
}

// jsonString decodes raw if it is a JSON string.
func jsonString(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// jsonArray splits raw into its elements if it is a JSON array.
func jsonArray(raw json.RawMessage) ([]json.RawMessage, bool) {
	if len(raw) == 0 || raw[0] != '[' {
		return nil, false
	}
	var a []json.RawMessage
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, false
	}
	return a, true
}

// nonNegInt parses raw as a JSON integer in [0, 2^64). "-0" counts as 0;
// fractions and exponents are rejected.
func nonNegInt(raw json.RawMessage) (uint64, error) {
	s := string(raw)
	if s == "" || (s[0] != '-' && (s[0] < '0' || s[0] > '9')) {
		return 0, fmt.Errorf("expected a non-negative integer, got %s", abbrev(raw))
	}
	if s[0] == '-' {
		if v, err := strconv.ParseInt(s, 10, 64); err == nil && v == 0 {
			return 0, nil
		}
		return 0, fmt.Errorf("expected a non-negative integer, got negative %s", abbrev(raw))
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("integer %s is too large", abbrev(raw))
		}
		return 0, fmt.Errorf("expected a non-negative integer, got %s", abbrev(raw))
	}
	return v, nil
}

// abbrev renders raw JSON for an error message, cut short if long.
func abbrev(raw json.RawMessage) string {
	const max = 40
	if len(raw) <= max {
		return string(raw)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(raw[cut]) {
		cut--
	}
	return string(raw[:cut]) + "..."
}
