package safetensors

import (
	"encoding/binary"
	"io"
	"math"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/rotary-go/rotary/internal/fileio"
)

// Write writes tensors and metadata to w as a safetensors file.
//
// The header lists "__metadata__" first (omitted when metadata is empty), then
// the tensors sorted by name, as compact JSON padded with spaces to a multiple of
// 8 bytes. The data is laid out contiguously in the order tensors are given.
//
// Everything is validated before the first byte is written: names must be
// non-empty, valid UTF-8, unique and not "__metadata__"; dtypes known; shapes
// non-negative with len(Data) == NumElements()*ElemSize(DType); metadata valid
// UTF-8. Validation errors wrap ErrInvalid.
func Write(w io.Writer, tensors []Tensor, metadata map[string]string) error {
	header, err := encodeHeader(tensors, metadata)
	if err != nil {
		return err
	}
	return writeEncoded(w, header, tensors)
}

// WriteFile writes a safetensors file to path (see Write). It validates everything first,
// then writes the new file beside path and puts it in place atomically, so on any error
// path is neither created nor changed, and no temporary file is left behind. An existing
// path that is not a regular file is refused, a symbolic link included: replacing a link,
// a pipe or a device with a regular file is never what was meant. A new file gets mode
// 0644; an existing file keeps its permission bits. On Linux the file is written unnamed
// (O_TMPFILE), so even a process killed mid-write leaves nothing; elsewhere it is a
// temporary ".NAME.tmpNNN" until it is renamed.
func WriteFile(path string, tensors []Tensor, metadata map[string]string) error {
	header, err := encodeHeader(tensors, metadata)
	if err != nil {
		return err
	}
	return fileio.WriteFile(path, 0o644, func(w io.Writer) error { return writeEncoded(w, header, tensors) })
}

func writeEncoded(w io.Writer, header []byte, tensors []Tensor) error {
	if err := writeAll(w, header); err != nil {
		return err
	}
	for _, t := range tensors {
		if err := t.WriteData(w); err != nil {
			return err
		}
	}
	return nil
}

// WriteData writes t's element bytes to w: Data as it is, or what Stream writes, which must be
// exactly NumElements()·ElemSize(DType) bytes (else an error wrapping ErrInvalid). Write and
// npy.WriteFiles write every tensor's data through it.
func (t Tensor) WriteData(w io.Writer) error {
	if t.Stream == nil {
		return writeAll(w, t.Data)
	}
	want, ok := byteSize(t.Shape, mustElemSize(t.DType))
	if !ok {
		return invalidf("tensor %q: dtype %s and shape %v: no byte count", t.Name, t.DType, t.Shape)
	}
	c := &countingWriter{w: w}
	if err := t.Stream(c); err != nil {
		return err
	}
	if c.n != want {
		return invalidf("tensor %q: Stream wrote %d bytes, but dtype %s and shape %v need %d", t.Name, c.n, t.DType, t.Shape, want)
	}
	return nil
}

// countingWriter counts the bytes a Stream writes, for the check after it returns.
type countingWriter struct {
	w io.Writer
	n int
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += n
	return n, err
}

func mustElemSize(dtype string) int {
	n, _ := ElemSize(dtype)
	return n
}

func writeAll(w io.Writer, b []byte) error {
	if len(b) == 0 {
		return nil
	}
	n, err := w.Write(b)
	if err == nil && n != len(b) {
		err = io.ErrShortWrite
	}
	return err
}

// encodeHeader validates tensors and metadata and returns the 8-byte length
// prefix followed by the padded JSON header.
func encodeHeader(tensors []Tensor, metadata map[string]string) ([]byte, error) {
	begins, err := dataBegins(tensors)
	if err != nil {
		return nil, err
	}
	keys, err := metadataKeys(metadata)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 8, 8+64*(len(tensors)+1))
	b = appendHeaderJSON(b, tensors, begins, metadata, keys)
	for len(b)%8 != 0 {
		b = append(b, ' ')
	}
	n := len(b) - 8
	if n > MaxHeaderSize {
		return nil, invalidf("header would be %d bytes, more than the %d-byte limit", n, MaxHeaderSize)
	}
	binary.LittleEndian.PutUint64(b, uint64(n))
	return b, nil
}

// dataBegins validates the tensors and returns where each one's data begins, and after the
// last, where the data ends (so tensor i spans begins[i] to begins[i+1]), the data laid
// out contiguously in the order given.
func dataBegins(tensors []Tensor) ([]int, error) {
	seen := make(map[string]bool, len(tensors))
	begins := make([]int, len(tensors)+1)
	off := 0
	for i, t := range tensors {
		switch {
		case t.Name == "":
			return nil, invalidf("tensor %d: empty name", i)
		case !utf8.ValidString(t.Name):
			return nil, invalidf("tensor %d: name %q is not valid UTF-8", i, t.Name)
		case t.Name == metadataKey:
			return nil, invalidf("tensor %d: name %q is reserved", i, t.Name)
		case seen[t.Name]:
			return nil, invalidf("tensor %q: duplicate name", t.Name)
		}
		seen[t.Name] = true
		size, ok := ElemSize(t.DType)
		if !ok {
			return nil, invalidf("tensor %q: unknown dtype %q", t.Name, t.DType)
		}
		for j, d := range t.Shape {
			if d < 0 {
				return nil, invalidf("tensor %q: shape[%d] = %d is negative", t.Name, j, d)
			}
		}
		nbytes, ok := byteSize(t.Shape, size)
		if !ok {
			return nil, invalidf("tensor %q: shape %v: element count overflows", t.Name, t.Shape)
		}
		switch {
		case t.Stream != nil && len(t.Data) != 0:
			return nil, invalidf("tensor %q: both Data and Stream: want one", t.Name)
		case t.Stream == nil && len(t.Data) != nbytes:
			return nil, invalidf("tensor %q: len(Data) = %d, but dtype %s and shape %v need %d bytes",
				t.Name, len(t.Data), t.DType, t.Shape, nbytes)
		}
		if off > math.MaxInt-nbytes {
			return nil, invalidf("tensor %q: total data size overflows", t.Name)
		}
		begins[i] = off
		off += nbytes
	}
	begins[len(tensors)] = off
	return begins, nil
}

// metadataKeys validates the metadata and returns its keys, sorted.
func metadataKeys(metadata map[string]string) ([]string, error) {
	keys := make([]string, 0, len(metadata))
	for k, v := range metadata {
		if !utf8.ValidString(k) {
			return nil, invalidf("%s: key %q is not valid UTF-8", metadataKey, k)
		}
		if !utf8.ValidString(v) {
			return nil, invalidf("%s: value of %q is not valid UTF-8", metadataKey, k)
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys, nil
}

// appendHeaderJSON appends the header's compact JSON: the metadata (when there is any), then
// the tensors sorted by name.
func appendHeaderJSON(b []byte, tensors []Tensor, begins []int, metadata map[string]string, keys []string) []byte {
	order := make([]int, len(tensors))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(i, j int) bool { return tensors[order[i]].Name < tensors[order[j]].Name })

	b = append(b, '{')
	first := true
	comma := func() {
		if !first {
			b = append(b, ',')
		}
		first = false
	}
	if len(keys) > 0 {
		comma()
		b = appendString(b, metadataKey)
		b = append(b, ":{"...)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			b = appendString(b, metadata[k])
		}
		b = append(b, '}')
	}
	for _, i := range order {
		t := tensors[i]
		comma()
		b = appendString(b, t.Name)
		b = append(b, `:{"dtype":`...)
		b = appendString(b, t.DType)
		b = append(b, `,"shape":[`...)
		for j, d := range t.Shape {
			if j > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(d), 10)
		}
		b = append(b, `],"data_offsets":[`...)
		b = strconv.AppendInt(b, int64(begins[i]), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(begins[i+1]), 10)
		b = append(b, "]}"...)
	}
	return append(b, '}')
}

// appendString appends s, which must be valid UTF-8, as a JSON string literal.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
