package gguf

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"unicode/utf8"

	"github.com/rotary-go/rotary/internal/errs"
	"github.com/rotary-go/rotary/internal/fileio"
)

// ErrInvalid is wrapped by every error reporting a malformed file.
var ErrInvalid = errors.New("gguf: invalid")

func invalidf(format string, args ...any) error {
	return errs.Wrapf(ErrInvalid, format, args...)
}

// Magic is the first four bytes of every GGUF file.
const Magic = "GGUF"

// MaxHeaderSize bounds the header (magic to the last tensor info): 256 MiB, where real
// models' take a few MiB (their tokenizer's vocabulary and merges). A longer header is
// refused before it is read.
const MaxHeaderSize = 256 << 20

// defaultAlignment is GGUF_DEFAULT_ALIGNMENT (ggml/include/gguf.h).
const defaultAlignment = 32

// maxNameLen is GGML_MAX_NAME − 1: gguf.cpp refuses longer tensor names.
const maxNameLen = 63

// maxDims is GGML_MAX_DIMS.
const maxDims = 4

// KV is one metadata key and its value.
type KV struct {
	Key   string
	Value Value
}

// TensorInfo is one entry of the tensor table.
type TensorInfo struct {
	Name string
	// Shape is ggml's ne: Shape[0] is the innermost (contiguous) dimension.
	Shape []int64
	// Type is the ggml type (GGMLQuantizationType): 0 F32, 1 F16, 30 BF16, ...
	Type uint32
	// Offset is the tensor's offset in the data section; Size its byte count.
	Offset, Size uint64
}

// File is a GGUF file's header: its metadata and tensor table, and the RoPE factor tensors
// it holds.
type File struct {
	Version  uint32
	Metadata []KV // in file order
	Tensors  []TensorInfo
	// Alignment is general.alignment (32 when absent); DataOffset is where the data section
	// starts in the file.
	Alignment  uint64
	DataOffset uint64

	keys    map[string]int
	tensors map[string]int
	// factors holds the frequency-factor tensors read from the data section, by name.
	factors map[string][]float32
}

// Get returns the value of key.
func (f *File) Get(key string) (Value, bool) {
	if f == nil {
		return Value{}, false
	}
	if i, ok := f.keys[key]; ok && i < len(f.Metadata) && f.Metadata[i].Key == key {
		return f.Metadata[i].Value, true
	}
	// Metadata was built by hand or changed since parsing: fall back to a scan.
	for _, kv := range f.Metadata {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return Value{}, false
}

// Tensor returns the tensor info called name.
func (f *File) Tensor(name string) (TensorInfo, bool) {
	if f == nil {
		return TensorInfo{}, false
	}
	if i, ok := f.tensors[name]; ok && i < len(f.Tensors) && f.Tensors[i].Name == name {
		return f.Tensors[i], true
	}
	for _, t := range f.Tensors {
		if t.Name == name {
			return t, true
		}
	}
	return TensorInfo{}, false
}

// ReadFile reads the GGUF file at path, which must be a regular file (a pipe, a device or a
// directory is refused without being read). It reads the header and, of the data section,
// only the RoPE factor tensors. Errors name the path.
func ReadFile(path string) (*File, error) {
	return fileio.ReadAt(path, readAt)
}

// Parse reads a GGUF file held in memory (see ReadFile).
func Parse(data []byte) (*File, error) {
	return readAt(bytes.NewReader(data), int64(len(data)))
}

// reader reads the header sequentially, tracking the offset and the bytes that may still be
// read: the file's size or MaxHeaderSize, whichever is smaller.
type reader struct {
	r     *bufio.Reader
	pos   uint64
	limit uint64
	size  uint64 // the file's size
}

// errShort is what a read past the end reports; the caller names what it was reading.
var errShort = errors.New("unexpected end of file")

func (r *reader) need(n uint64, what string) error {
	if n > r.limit-r.pos {
		if r.limit < r.size && n <= r.size-r.pos {
			return invalidf("%s at offset %d: %d bytes would take the header past %d MiB (MaxHeaderSize)", what, r.pos, n, MaxHeaderSize>>20)
		}
		return invalidf("%s at offset %d: %d bytes, but the file has %d left", what, r.pos, n, r.size-r.pos)
	}
	return nil
}

func (r *reader) bytes(n uint64, what string) ([]byte, error) {
	if err := r.need(n, what); err != nil {
		return nil, err
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r.r, b); err != nil {
		return nil, r.readErr(err, what)
	}
	r.pos += n
	return b, nil
}

func (r *reader) readErr(err error, what string) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return invalidf("%s at offset %d: %v", what, r.pos, errShort)
	}
	return fmt.Errorf("reading %s at offset %d: %w", what, r.pos, err)
}

func (r *reader) fixed(n int, what string) (uint64, error) {
	if err := r.need(uint64(n), what); err != nil {
		return 0, err
	}
	var buf [8]byte
	if _, err := io.ReadFull(r.r, buf[:n]); err != nil {
		return 0, r.readErr(err, what)
	}
	r.pos += uint64(n)
	return binary.LittleEndian.Uint64(buf[:]), nil
}

func (r *reader) u32(what string) (uint32, error) {
	v, err := r.fixed(4, what)
	return uint32(v), err
}

func (r *reader) u64(what string) (uint64, error) { return r.fixed(8, what) }

// str reads a length-prefixed string, checking the length against the bytes left before
// allocating it. GGUF strings are UTF-8 (gguf.md); keys and tensor names that are not would
// print as garbage in every error, so they are refused.
func (r *reader) str(what string) (string, error) {
	n, err := r.u64(what + " length")
	if err != nil {
		return "", err
	}
	b, err := r.bytes(n, what)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

func readAt(ra io.ReaderAt, size int64) (*File, error) {
	if size < 0 {
		return nil, invalidf("file size %d", size)
	}
	limit := min(uint64(size), MaxHeaderSize)
	r := &reader{r: bufio.NewReaderSize(io.NewSectionReader(ra, 0, int64(limit)), 64<<10), limit: limit, size: uint64(size)}
	f, err := r.header()
	if err != nil {
		return nil, err
	}
	if err := f.readFactors(ra); err != nil {
		return nil, err
	}
	return f, nil
}

// minKVSize is the fewest bytes a key/value takes: a key's length (8), its type (4) and a
// one-byte value; minTensorSize likewise for a tensor info: an empty name (8), the dim count
// (4), the type (4) and the offset (8).
const (
	minKVSize     = 8 + 4 + 1
	minTensorSize = 8 + 4 + 4 + 8
)

// reserveEntries is the most key/values or tensor infos made room for before they are read:
// more than a real model's metadata, little memory.
const reserveEntries = 1024

func (r *reader) header() (*File, error) {
	magic, err := r.bytes(4, "magic")
	if err != nil {
		return nil, err
	}
	if string(magic) != Magic {
		return nil, invalidf("magic %q: want %q (not a GGUF file)", magic, Magic)
	}
	f := &File{}
	if f.Version, err = r.u32("version"); err != nil {
		return nil, err
	}
	switch {
	case f.Version == 2 || f.Version == 3:
	case f.Version == 1:
		return nil, invalidf("version 1: GGUFv1 (32-bit counts) is no longer read; want 2 or 3")
	case f.Version&0xFFFF == 0 && f.Version != 0:
		return nil, invalidf("version %#x: a big-endian file (byte-swapped version), want a little-endian one of version 2 or 3", f.Version)
	default:
		return nil, invalidf("version %d: want 2 or 3", f.Version)
	}
	nt, err := r.u64("tensor count")
	if err != nil {
		return nil, err
	}
	nkv, err := r.u64("metadata count")
	if err != nil {
		return nil, err
	}
	left := r.limit - r.pos
	if nkv > left/minKVSize {
		return nil, invalidf("metadata count %d: the %d bytes left hold at most %d key/values", int64(nkv), left, left/minKVSize)
	}
	if nt > left/minTensorSize {
		return nil, invalidf("tensor count %d: the %d bytes left hold at most %d tensor infos", int64(nt), left, left/minTensorSize)
	}
	// The counts only bound what may follow: room is made as entries are read, so that a
	// header's claim costs nothing before its entries are there.
	f.Metadata = make([]KV, 0, min(nkv, reserveEntries))
	f.keys = make(map[string]int, min(nkv, reserveEntries))
	for i := range nkv {
		kv, err := r.kv(i)
		if err != nil {
			return nil, err
		}
		if _, dup := f.keys[kv.Key]; dup {
			return nil, invalidf("key %q (metadata %d) appears twice", kv.Key, i)
		}
		f.keys[kv.Key] = len(f.Metadata)
		f.Metadata = append(f.Metadata, kv)
	}
	f.Alignment = defaultAlignment
	if v, ok := f.Get("general.alignment"); ok {
		a, isU32 := v.Int()
		if v.Type != TypeUint32 || !isU32 {
			return nil, invalidf("general.alignment is %s: want u32", v.TypeName())
		}
		if a == 0 || a&(a-1) != 0 {
			return nil, invalidf("general.alignment %d: want a power of 2", a)
		}
		f.Alignment = uint64(a)
	}
	if left = r.limit - r.pos; nt > left/minTensorSize {
		return nil, invalidf("tensor count %d: the %d bytes left hold at most %d tensor infos", int64(nt), left, left/minTensorSize)
	}
	f.Tensors = make([]TensorInfo, 0, min(nt, reserveEntries))
	f.tensors = make(map[string]int, min(nt, reserveEntries))
	for i := range nt {
		t, err := r.tensorInfo(i)
		if err != nil {
			return nil, err
		}
		if _, dup := f.tensors[t.Name]; dup {
			return nil, invalidf("tensor %q (tensor %d) appears twice", t.Name, i)
		}
		f.tensors[t.Name] = len(f.Tensors)
		f.Tensors = append(f.Tensors, t)
	}
	f.DataOffset = r.pos
	if nt > 0 {
		f.DataOffset = alignUp(r.pos, f.Alignment)
	}
	return f, f.checkTensors(r.size)
}

func alignUp(x, a uint64) uint64 {
	if rem := x % a; rem != 0 {
		return x + (a - rem)
	}
	return x
}

func (r *reader) kv(i uint64) (KV, error) {
	what := fmt.Sprintf("metadata %d key", i)
	key, err := r.str(what)
	if err != nil {
		return KV{}, err
	}
	if key == "" {
		return KV{}, invalidf("metadata %d: empty key", i)
	}
	if !utf8.ValidString(key) {
		return KV{}, invalidf("metadata %d: key %q is not UTF-8", i, key)
	}
	t, err := r.u32(fmt.Sprintf("type of key %q", key))
	if err != nil {
		return KV{}, err
	}
	v, err := r.value(Type(t), key)
	if err != nil {
		return KV{}, err
	}
	return KV{Key: key, Value: v}, nil
}

func (r *reader) value(t Type, key string) (Value, error) {
	what := fmt.Sprintf("value of key %q", key)
	switch {
	case t == TypeString:
		s, err := r.str(what)
		return Value{Type: t, str: s}, err
	case t == TypeArray:
		return r.array(key)
	case t < numTypes:
		b, err := r.fixed(t.size(), what)
		return Value{Type: t, bits: b}, err
	}
	return Value{}, invalidf("key %q has value type %d: want 0..%d", key, uint32(t), numTypes-1)
}

func (r *reader) array(key string) (Value, error) {
	et, err := r.u32(fmt.Sprintf("element type of key %q", key))
	if err != nil {
		return Value{}, err
	}
	elem := Type(et)
	if elem == TypeArray || elem >= numTypes {
		return Value{}, invalidf("key %q is an array of %s: want an array of scalars or strings", key, elem)
	}
	n, err := r.u64(fmt.Sprintf("length of array %q", key))
	if err != nil {
		return Value{}, err
	}
	v := Value{Type: TypeArray, Elem: elem}
	what := fmt.Sprintf("array %q", key)
	if elem == TypeString {
		// Each string takes at least its 8-byte length.
		if left := r.limit - r.pos; n > left/8 {
			return Value{}, invalidf("array %q at offset %d: %d strings, but the %s has %d bytes left (a string takes 8 at least)", key, r.pos, int64(n), r.leftName(), left)
		}
		v.strs = make([]string, n)
		for i := range v.strs {
			if v.strs[i], err = r.str(fmt.Sprintf("%s element %d", what, i)); err != nil {
				return Value{}, err
			}
		}
		v.n = int(n)
		return v, nil
	}
	sz := uint64(elem.size())
	if n > (r.limit-r.pos)/sz {
		return Value{}, invalidf("array %q at offset %d: %d elements of %s, but the %s has %d bytes left", key, r.pos, int64(n), elem, r.leftName(), r.limit-r.pos)
	}
	if v.raw, err = r.bytes(n*sz, what); err != nil {
		return Value{}, err
	}
	v.n = int(n)
	return v, nil
}

// leftName says what bounds the bytes left: the file, or MaxHeaderSize.
func (r *reader) leftName() string {
	if r.limit < r.size {
		return "header limit (MaxHeaderSize)"
	}
	return "file"
}

func (r *reader) tensorInfo(i uint64) (TensorInfo, error) {
	name, err := r.str(fmt.Sprintf("tensor %d name", i))
	if err != nil {
		return TensorInfo{}, err
	}
	if len(name) > maxNameLen || !utf8.ValidString(name) {
		return TensorInfo{}, invalidf("tensor %d name %q: want at most %d bytes of UTF-8", i, name, maxNameLen)
	}
	nd, err := r.u32(fmt.Sprintf("dimension count of tensor %q", name))
	if err != nil {
		return TensorInfo{}, err
	}
	if nd > maxDims {
		return TensorInfo{}, invalidf("tensor %q has %d dimensions: want at most %d", name, nd, maxDims)
	}
	t := TensorInfo{Name: name, Shape: make([]int64, nd)}
	for d := range t.Shape {
		v, err := r.u64(fmt.Sprintf("dimension %d of tensor %q", d, name))
		if err != nil {
			return TensorInfo{}, err
		}
		if int64(v) < 0 {
			return TensorInfo{}, invalidf("tensor %q dimension %d is %d: want ≥ 0", name, d, int64(v))
		}
		t.Shape[d] = int64(v)
	}
	if t.Type, err = r.u32(fmt.Sprintf("type of tensor %q", name)); err != nil {
		return TensorInfo{}, err
	}
	if t.Offset, err = r.u64(fmt.Sprintf("offset of tensor %q", name)); err != nil {
		return TensorInfo{}, err
	}
	if t.Size, err = tensorBytes(t); err != nil {
		return TensorInfo{}, err
	}
	return t, nil
}

// checkTensors checks every tensor's offset against the alignment and its bytes against
// the file's end (gguf.cpp requires each offset to be the previous tensor's end, padded to
// the alignment; a file whose tensors are merely aligned and inside the file is read too).
func (f *File) checkTensors(size uint64) error {
	if f.DataOffset > size && len(f.Tensors) > 0 {
		return invalidf("the data section would start at offset %d, past the end of the %d-byte file", f.DataOffset, size)
	}
	room := size - min(f.DataOffset, size)
	for _, t := range f.Tensors {
		if t.Offset%f.Alignment != 0 {
			return invalidf("tensor %q offset %d: not a multiple of the alignment %d", t.Name, t.Offset, f.Alignment)
		}
		if t.Offset > room || t.Size > room-t.Offset {
			return invalidf("tensor %q: %d bytes at data offset %d end past the file's %d bytes of data", t.Name, t.Size, t.Offset, room)
		}
	}
	return nil
}

// checkedMul is a·b, or false when it overflows int64.
func checkedMul(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	if a > math.MaxInt64/b {
		return 0, false
	}
	return a * b, true
}
