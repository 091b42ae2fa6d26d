package gguf

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
)

const mib = 1 << 20

// everyType is one key of each value type, scalars and arrays.
func everyType() []KV {
	return []KV{
		{"general.architecture", Str("llama")},
		{"t.u8", Value{Type: TypeUint8, bits: 200}},
		{"t.i8", Value{Type: TypeInt8, bits: uint64(uint8(0xF6))}},
		{"t.u16", Value{Type: TypeUint16, bits: 60000}},
		{"t.i16", Value{Type: TypeInt16, bits: uint64(uint16(0x8000))}},
		{"t.u32", U32(4000000000)},
		{"t.i32", I32(-7)},
		{"t.f32", F32(0.5)},
		{"t.bool", Bool(true)},
		{"t.str", Str("héllo")},
		{"t.u64", U64(math.MaxUint64)},
		{"t.i64", Value{Type: TypeInt64, bits: uint64(math.MaxUint64)}},
		{"t.f64", F64(1e300)},
		{"t.arr.i32", I32s(11, -11, 10, 0)},
		{"t.arr.u32", U32s(1, 2)},
		{"t.arr.f32", F32s(1.5, -2)},
		{"t.arr.str", Strs("a", "", "ccc")},
		{"t.arr.empty", I32s()},
	}
}

func mustWrite(t testing.TB, kvs []KV, tensors []Tensor) []byte {
	t.Helper()
	b, err := Write(kvs, tensors)
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	return b
}

func f32Bytes(vs ...float32) []byte {
	b := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

func TestRoundTripEveryType(t *testing.T) {
	tensors := []Tensor{
		{Name: "token_embd.weight", Shape: []int64{256, 2}, Type: 12, Data: make([]byte, 2*144)},
		{Name: TensorRopeFreqs, Shape: []int64{3}, Type: TypeF32, Data: f32Bytes(1, 2.5, 8)},
	}
	b := mustWrite(t, everyType(), tensors)
	f, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if f.Version != 3 || len(f.Metadata) != len(everyType()) || f.Alignment != 32 {
		t.Fatalf("version %d, %d keys, alignment %d", f.Version, len(f.Metadata), f.Alignment)
	}
	for i, kv := range everyType() {
		if got := f.Metadata[i]; got.Key != kv.Key || got.Value.String() != kv.Value.String() || got.Value.TypeName() != kv.Value.TypeName() {
			t.Errorf("key %d: got %s %s = %s, want %s %s = %s", i, got.Key, got.Value.TypeName(), got.Value, kv.Key, kv.Value.TypeName(), kv.Value)
		}
	}
	get := func(k string) Value {
		v, ok := f.Get(k)
		if !ok {
			t.Fatalf("Get(%q): missing", k)
		}
		return v
	}
	if x, ok := get("t.i8").Int(); !ok || x != -10 {
		t.Errorf("i8 = %d, %t", x, ok)
	}
	if x, ok := get("t.i16").Int(); !ok || x != -32768 {
		t.Errorf("i16 = %d, %t", x, ok)
	}
	if x, ok := get("t.u32").Int(); !ok || x != 4000000000 {
		t.Errorf("u32 = %d, %t", x, ok)
	}
	if _, ok := get("t.u64").Int(); ok {
		t.Error("u64 max read as an int64")
	}
	if x, ok := get("t.i64").Int(); !ok || x != -1 {
		t.Errorf("i64 = %d, %t", x, ok)
	}
	if x, ok := get("t.f32").Float(); !ok || x != 0.5 {
		t.Errorf("f32 = %v, %t", x, ok)
	}
	if x, ok := get("t.bool").Bool(); !ok || !x {
		t.Errorf("bool = %v, %t", x, ok)
	}
	if x, ok := get("t.str").Str(); !ok || x != "héllo" {
		t.Errorf("str = %q, %t", x, ok)
	}
	if x, ok := get("t.arr.i32").Ints(); !ok || !reflect.DeepEqual(x, []int64{11, -11, 10, 0}) {
		t.Errorf("arr i32 = %v, %t", x, ok)
	}
	if x, ok := get("t.arr.f32").Floats(); !ok || !reflect.DeepEqual(x, []float64{1.5, -2}) {
		t.Errorf("arr f32 = %v, %t", x, ok)
	}
	if x, ok := get("t.arr.str").Strings(); !ok || !reflect.DeepEqual(x, []string{"a", "", "ccc"}) {
		t.Errorf("arr str = %v, %t", x, ok)
	}
	if _, ok := get("t.str").Int(); ok {
		t.Error("a string read as an integer")
	}
	if ti, ok := f.Tensor("token_embd.weight"); !ok || ti.Size != 2*144 || ti.Offset != 0 {
		t.Errorf("tensor = %+v, %t", ti, ok)
	}
	if ti, _ := f.Tensor(TensorRopeFreqs); ti.Offset != 288 || f.DataOffset%32 != 0 {
		t.Errorf("rope_freqs offset %d, data offset %d: want 288 and aligned", ti.Offset, f.DataOffset)
	}
	if v, ok := f.Factors(TensorRopeFreqs); !ok || !reflect.DeepEqual(v, []float32{1, 2.5, 8}) {
		t.Errorf("factors = %v, %t", v, ok)
	}
}

func TestVersionsAndMagic(t *testing.T) {
	good := mustWrite(t, everyType(), nil)
	for _, c := range []struct {
		name  string
		patch func(b []byte)
		want  string
	}{
		{"magic", func(b []byte) { copy(b, "GGML") }, "magic"},
		{"v0", func(b []byte) { binary.LittleEndian.PutUint32(b[4:], 0) }, "version 0"},
		{"v1", func(b []byte) { binary.LittleEndian.PutUint32(b[4:], 1) }, "version 1"},
		{"v4", func(b []byte) { binary.LittleEndian.PutUint32(b[4:], 4) }, "version 4"},
		{"big-endian", func(b []byte) { binary.BigEndian.PutUint32(b[4:], 3) }, "big-endian"},
	} {
		b := bytes.Clone(good)
		c.patch(b)
		_, err := Parse(b)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrInvalid mentioning %q", c.name, err, c.want)
		}
	}
	v2 := bytes.Clone(good)
	binary.LittleEndian.PutUint32(v2[4:], 2)
	if f, err := Parse(v2); err != nil || f.Version != 2 {
		t.Errorf("version 2: %v", err)
	}
}

// TestTruncatedEverywhere: every prefix of a valid file with tensors and a factor tensor is
// refused with one line wrapping ErrInvalid, and none panics.
func TestTruncatedEverywhere(t *testing.T) {
	b := mustWrite(t, everyType(), []Tensor{
		{Name: "a.weight", Shape: []int64{32}, Type: 8 /* Q8_0 */, Data: make([]byte, 34)},
		{Name: TensorRopeFreqs, Shape: []int64{2}, Type: TypeF32, Data: f32Bytes(1, 4)},
	})
	for n := range len(b) {
		_, err := Parse(b[:n])
		if !errors.Is(err, ErrInvalid) {
			t.Fatalf("prefix of %d bytes: %v, want ErrInvalid", n, err)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Fatalf("prefix of %d bytes: error of several lines: %q", n, err)
		}
	}
	if _, err := Parse(b); err != nil {
		t.Fatal(err)
	}
}

// header builds a file by hand, for what Write cannot make.
type header struct{ bytes.Buffer }

func newHeader(nt, nkv uint64) *header {
	h := &header{}
	h.WriteString(Magic)
	h.u32(3)
	h.u64(nt)
	h.u64(nkv)
	return h
}
func (h *header) u32(v uint32) { _ = binary.Write(h, binary.LittleEndian, v) }
func (h *header) u64(v uint64) { _ = binary.Write(h, binary.LittleEndian, v) }
func (h *header) str(s string) { h.u64(uint64(len(s))); h.WriteString(s) }

func TestMalformed(t *testing.T) {
	kv := func(key string, typ uint32, payload ...any) *header {
		h := newHeader(0, 1)
		h.str(key)
		h.u32(typ)
		for _, p := range payload {
			_ = binary.Write(h, binary.LittleEndian, p)
		}
		return h
	}
	tensor := func(name string, dims []uint64, typ uint32, off uint64) *header {
		h := newHeader(1, 1)
		h.str("general.architecture")
		h.u32(uint32(TypeString))
		h.str("llama")
		h.str(name)
		h.u32(uint32(len(dims)))
		for _, d := range dims {
			h.u64(d)
		}
		h.u32(typ)
		h.u64(off)
		return h
	}
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"huge kv count", newHeader(0, 1<<62).Bytes(), "metadata count"},
		{"huge tensor count", newHeader(1<<62, 0).Bytes(), "tensor count"},
		{"negative count", newHeader(0, math.MaxUint64).Bytes(), "metadata count -1"},
		{"huge key length", func() []byte { h := newHeader(0, 1); h.u64(1 << 60); h.Write(make([]byte, 16)); return h.Bytes() }(), "metadata 0 key"},
		{"empty key", kv("", uint32(TypeUint8), uint8(1)).Bytes(), "empty key"},
		{"key not utf-8", kv("\xff\xfe", uint32(TypeUint8), uint8(1)).Bytes(), "not UTF-8"},
		{"bad value type", kv("k", 13, uint32(0)).Bytes(), "value type 13"},
		{"huge string", kv("k", uint32(TypeString), uint64(1<<50)).Bytes(), "value of key \"k\""},
		{"array of arrays", kv("k", uint32(TypeArray), uint32(TypeArray), uint64(1)).Bytes(), "array of arr"},
		{"bad element type", kv("k", uint32(TypeArray), uint32(99), uint64(1)).Bytes(), "array of type(99)"},
		{"huge array", kv("k", uint32(TypeArray), uint32(TypeUint64), uint64(1<<61)).Bytes(), "array \"k\""},
		{"huge string array", kv("k", uint32(TypeArray), uint32(TypeString), uint64(1<<61)).Bytes(), "strings"},
		{"too many dims", tensor("t", []uint64{1, 1, 1, 1, 1}, 0, 0).Bytes(), "5 dimensions"},
		{"negative dim", tensor("t", []uint64{math.MaxUint64}, 0, 0).Bytes(), "dimension 0 is -1"},
		{"bad ggml type", tensor("t", []uint64{1}, 4, 0).Bytes(), "ggml type 4"},
		{"ggml type past table", tensor("t", []uint64{1}, 1000, 0).Bytes(), "ggml type 1000"},
		{"partial block", tensor("t", []uint64{33}, 8, 0).Bytes(), "block size 32"},
		{"overflowing shape", tensor("t", []uint64{1 << 40, 1 << 40}, 0, 0).Bytes(), "overflows"},
		{"long name", tensor(strings.Repeat("n", 64), []uint64{1}, 0, 0).Bytes(), "at most 63"},
		{"misaligned", append(tensor("t", []uint64{1}, 0, 4).Bytes(), make([]byte, 64)...), "alignment"},
		{"past the end", tensor("t", []uint64{1}, 0, 0).Bytes(), "past the end"},
	} {
		_, err := Parse(c.b)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrInvalid mentioning %q", c.name, err, c.want)
		}
	}
}

func TestDuplicatesAndAlignment(t *testing.T) {
	if _, err := Write([]KV{{"k", U32(1)}, {"k", U32(2)}}, nil); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "twice") {
		t.Errorf("duplicate key: %v", err)
	}
	two := []Tensor{{Name: "t", Shape: []int64{1}, Type: 0, Data: make([]byte, 4)}, {Name: "t", Shape: []int64{1}, Type: 0, Data: make([]byte, 4)}}
	if _, err := Write(nil, two); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "twice") {
		t.Errorf("duplicate tensor: %v", err)
	}
	if _, err := Write([]KV{{"general.alignment", U64(64)}}, nil); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "want u32") {
		t.Errorf("u64 alignment: %v", err)
	}
	if _, err := Write([]KV{{"general.alignment", U32(48)}}, nil); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "power of 2") {
		t.Errorf("alignment 48: %v", err)
	}
	b := mustWrite(t, []KV{{"general.alignment", U32(64)}}, []Tensor{
		{Name: "a", Shape: []int64{3}, Type: 0, Data: make([]byte, 12)},
		{Name: "b", Shape: []int64{1}, Type: 0, Data: make([]byte, 4)},
	})
	f, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if bt, _ := f.Tensor("b"); f.Alignment != 64 || f.DataOffset%64 != 0 || bt.Offset != 64 {
		t.Errorf("alignment %d, data offset %d, b at %d", f.Alignment, f.DataOffset, bt.Offset)
	}
	if _, err := Write(nil, []Tensor{{Name: "a", Shape: []int64{3}, Type: 0, Data: make([]byte, 8)}}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "take 12") {
		t.Errorf("short tensor data: %v", err)
	}
	if _, err := Write(nil, []Tensor{{Name: "a", Shape: []int64{2, -1}, Type: 0}}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "dimension 1 is -1") {
		t.Errorf("negative dimension: %v", err)
	}
	if _, err := Write(nil, []Tensor{{Name: "q", Type: 12}}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "rows of 1 elements") {
		t.Errorf("a quantized scalar: %v", err)
	}
	if b, err := Write([]KV{{"k", Value{}}, {"z", Value{Type: 99}}}, nil); err == nil || !errors.Is(err, ErrInvalid) {
		t.Errorf("a value of type 99 written: %d bytes, %v", len(b), err)
	}
}

func TestFactorTensorChecks(t *testing.T) {
	if _, err := Write(nil, []Tensor{{Name: TensorRopeFreqs, Shape: []int64{2}, Type: 1, Data: make([]byte, 4)}}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "F32") {
		t.Errorf("F16 factors: %v", err)
	}
	if _, err := Write(nil, []Tensor{{Name: TensorRopeFactorsLong, Shape: []int64{1 << 16}, Type: 0, Data: make([]byte, 4<<16)}}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "one per rotated pair") {
		t.Errorf("huge factors: %v", err)
	}
}

func TestReadFileNotRegular(t *testing.T) {
	fileiotest.NotRegular(t, func(t *testing.T, p string) {
		if _, err := ReadFile(p); err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("ReadFile(%s) = %v, want an error naming it and saying it is not a regular file", p, err)
		}
	})
}

// TestReadFileBoundedMemory: a sparse file claiming a huge string, and one whose tensors
// fill gigabytes, cost kilobytes: lengths are checked against the size before allocating,
// and of the data only the factor tensors are read.
func TestReadFileBoundedMemory(t *testing.T) {
	dir := t.TempDir()
	h := newHeader(0, 1)
	h.str("k")
	h.u32(uint32(TypeString))
	h.u64(1 << 40)
	p := fileiotest.Sparse(t, dir, "huge-string.gguf", h.Bytes(), 64*mib)
	var err error
	if n := fileiotest.Allocated(func() { _, err = ReadFile(p) }); n > mib {
		t.Errorf("ReadFile allocated %d bytes", n)
	}
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), p) {
		t.Errorf("huge string: %v", err)
	}

	big := int64(512 * mib)
	// A factor tensor, then a 512 MiB tensor whose bytes are the sparse file's hole.
	hh := newHeader(2, 1)
	hh.str("general.architecture")
	hh.u32(uint32(TypeString))
	hh.str("llama")
	hh.str(TensorRopeFreqs)
	hh.u32(1)
	hh.u64(2)
	hh.u32(TypeF32)
	hh.u64(0)
	hh.str("big.weight")
	hh.u32(1)
	hh.u64(uint64(big / 4))
	hh.u32(TypeF32)
	hh.u64(32)
	for hh.Len()%32 != 0 {
		hh.WriteByte(0)
	}
	dataAt := int64(hh.Len())
	hh.Write(f32Bytes(1, 2))
	p = fileiotest.Sparse(t, dir, "big.gguf", hh.Bytes(), dataAt+32+big)
	var f *File
	if n := fileiotest.Allocated(func() { f, err = ReadFile(p) }); n > mib {
		t.Errorf("ReadFile allocated %d bytes for a %d MiB file", n, (dataAt+32+big)>>20)
	}
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := f.Factors(TensorRopeFreqs); !reflect.DeepEqual(v, []float32{1, 2}) {
		t.Errorf("factors %v", v)
	}
	if err := os.Truncate(p, dataAt+32+big-1); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(p); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `"big.weight"`) {
		t.Errorf("tensor one byte past the end: %v", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing.gguf")); err == nil {
		t.Error("missing file read")
	}
}

// TestHeaderLimit: a header that would run past MaxHeaderSize is refused by name before it
// is read, whatever the file's size.
func TestHeaderLimit(t *testing.T) {
	h := newHeader(0, 1)
	h.str("k")
	h.u32(uint32(TypeString))
	h.u64(MaxHeaderSize)
	p := fileiotest.Sparse(t, t.TempDir(), "long.gguf", h.Bytes(), MaxHeaderSize+4*mib)
	var err error
	if n := fileiotest.Allocated(func() { _, err = ReadFile(p) }); n > mib {
		t.Errorf("ReadFile allocated %d bytes", n)
	}
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "MaxHeaderSize") {
		t.Errorf("long header: %v", err)
	}
}

func TestValueString(t *testing.T) {
	for _, c := range []struct {
		v    Value
		want string
	}{
		{I32s(1, 2, 3, 4, 5, 6, 7, 8, 9), "[1, 2, 3, 4, 5, 6, 7, 8, ... (9 elements)]"},
		{Strs("a"), `["a"]`},
		{F32(0.25), "0.25"},
		{Bool(false), "false"},
		{U64(math.MaxUint64), "18446744073709551615"},
	} {
		if got := c.v.String(); got != c.want {
			t.Errorf("%s: %q, want %q", c.v.TypeName(), got, c.want)
		}
	}
	var f *File
	if _, ok := f.Get("x"); ok {
		t.Error("nil file has a key")
	}
	if _, ok := f.Tensor("x"); ok {
		t.Error("nil file has a tensor")
	}
	if _, ok := f.Factors(TensorRopeFreqs); ok {
		t.Error("nil file has factors")
	}
	// A File changed after parsing, or built by hand, is looked up by a scan.
	g, err := Parse(mustWrite(t, everyType(), []Tensor{{Name: "a", Shape: []int64{1}, Type: 0, Data: make([]byte, 4)}}))
	if err != nil {
		t.Fatal(err)
	}
	g.Metadata, g.Tensors = g.Metadata[5:6], nil
	if v, ok := g.Get(g.Metadata[0].Key); !ok || v.String() != g.Metadata[0].Value.String() {
		t.Errorf("Get after a change: %v, %t", v, ok)
	}
	if _, ok := g.Get("general.architecture"); ok {
		t.Error("a key removed since parsing found")
	}
	if _, ok := g.Tensor("a"); ok {
		t.Error("a tensor removed since parsing found")
	}
	h := &File{Metadata: []KV{{"general.architecture", Str("llama")}}}
	if _, err := h.RoPE(); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "context_length") {
		t.Errorf("a File built by hand: %v", err)
	}
	if _, err := f.RoPE(); err == nil {
		t.Error("nil file has a RoPE")
	}
}
