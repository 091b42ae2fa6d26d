package safetensors

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
)

// file assembles a safetensors file from a raw header and data buffer.
func file(header string, data []byte) []byte {
	b := make([]byte, 8, 8+len(header)+len(data))
	binary.LittleEndian.PutUint64(b, uint64(len(header)))
	b = append(b, header...)
	return append(b, data...)
}

func encode(t testing.TB, tensors []Tensor, md map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, tensors, md); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return buf.Bytes()
}

func sameTensor(a, b Tensor) bool {
	return a.Name == b.Name && a.DType == b.DType &&
		len(a.Shape) == len(b.Shape) && (len(a.Shape) == 0 || reflect.DeepEqual(a.Shape, b.Shape)) &&
		bytes.Equal(a.Data, b.Data)
}

func sameMetadata(a, b map[string]string) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

func TestRoundTrip(t *testing.T) {
	tensors := []Tensor{
		FromFloat32s("layer.weight", []int{2, 3}, []float32{1, -2, 3.5, float32(math.Inf(1)), 0, -0.25}),
		FromUint16s("bf", "BF16", []int{2}, []uint16{0x3f80, 0xc000}),
		FromUint16s("half", "F16", []int{1, 2}, []uint16{0x3c00, 0x7e00}),
		FromFloat64s("scalar", []int{}, []float64{math.Pi}),
		FromInt32s("i32", []int{3}, []int32{-1, 0, math.MaxInt32}),
		FromInt64s("i64", []int{2, 1}, []int64{math.MinInt64, 42}),
		FromInt8s("i8", []int{4}, []int8{-128, -1, 0, 127}),
		{Name: "mask", DType: "BOOL", Shape: []int{3}, Data: []byte{1, 0, 1}},
		{Name: "bytes", DType: "U8", Shape: []int{2}, Data: []byte{0xde, 0xad}},
		{Name: "u32", DType: "U32", Shape: []int{1}, Data: []byte{1, 2, 3, 4}},
		{Name: "u64", DType: "U64", Shape: []int{1}, Data: []byte{1, 2, 3, 4, 5, 6, 7, 8}},
		{Name: "empty", DType: "F32", Shape: []int{0, 5}, Data: nil},
	}
	md := map[string]string{"format": "pt", "quote\"and\\slash": "line\nbreak\x01 ünïcode <&>"}
	raw := encode(t, tensors, md)
	if n := binary.LittleEndian.Uint64(raw); n%8 != 0 {
		t.Errorf("header length %d is not a multiple of 8", n)
	}
	f, err := Parse(raw)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if !reflect.DeepEqual(f.Metadata, md) {
		t.Errorf("metadata = %q, want %q", f.Metadata, md)
	}
	// Data is laid out in the given order, so parsing returns that order
	// (the empty tensor sits at the very end).
	if len(f.Tensors) != len(tensors) {
		t.Fatalf("got %d tensors, want %d", len(f.Tensors), len(tensors))
	}
	for i, want := range tensors {
		if got := f.Tensors[i]; !sameTensor(got, want) {
			t.Errorf("tensor %d = %+v, want %+v", i, got, want)
		}
		got, ok := f.Get(want.Name)
		if !ok || !sameTensor(got, want) {
			t.Errorf("Get(%q) = %+v, %v", want.Name, got, ok)
		}
	}
	if _, ok := f.Get("missing"); ok {
		t.Error("Get(missing) found something")
	}
	names := f.Names()
	if !sortedStrings(names) || len(names) != len(tensors) {
		t.Errorf("Names() = %q", names)
	}

	w, _ := f.Get("layer.weight")
	if v, err := w.Float32s(); err != nil || !reflect.DeepEqual(v, []float32{1, -2, 3.5, float32(math.Inf(1)), 0, -0.25}) {
		t.Errorf("Float32s = %v, %v", v, err)
	}
	s, _ := f.Get("scalar")
	if s.NumElements() != 1 || len(s.Shape) != 0 {
		t.Errorf("scalar: shape %v, %d elements", s.Shape, s.NumElements())
	}
	if v, err := s.Float64s(); err != nil || len(v) != 1 || v[0] != math.Pi {
		t.Errorf("Float64s = %v, %v", v, err)
	}
	if v, _ := mustGet(t, f, "bf").Uint16s(); !reflect.DeepEqual(v, []uint16{0x3f80, 0xc000}) {
		t.Errorf("Uint16s = %#x", v)
	}
	if v, _ := mustGet(t, f, "i32").Int32s(); !reflect.DeepEqual(v, []int32{-1, 0, math.MaxInt32}) {
		t.Errorf("Int32s = %v", v)
	}
	if v, _ := mustGet(t, f, "i64").Int64s(); !reflect.DeepEqual(v, []int64{math.MinInt64, 42}) {
		t.Errorf("Int64s = %v", v)
	}
	if v, _ := mustGet(t, f, "i8").Int8s(); !reflect.DeepEqual(v, []int8{-128, -1, 0, 127}) {
		t.Errorf("Int8s = %v", v)
	}
	if v, err := mustGet(t, f, "empty").Float32s(); err != nil || len(v) != 0 {
		t.Errorf("empty Float32s = %v, %v", v, err)
	}

	// Parsed data aliases the input with clipped capacity.
	if &w.Data[0] != &raw[len(raw)-len(w.Data)-totalAfter(tensors, "layer.weight")] {
		t.Error("Data does not alias the input")
	}
	if cap(w.Data) != len(w.Data) {
		t.Errorf("cap(Data) = %d, want %d", cap(w.Data), len(w.Data))
	}

	// No metadata: nil.
	f2, err := Parse(encode(t, tensors[:1], nil))
	if err != nil || f2.Metadata != nil {
		t.Errorf("Parse without metadata: %v, metadata %v", err, f2.Metadata)
	}
	// No tensors at all.
	f3, err := Parse(encode(t, nil, nil))
	if err != nil || len(f3.Tensors) != 0 {
		t.Errorf("Parse of empty file: %v, %v", f3, err)
	}
}

func totalAfter(tensors []Tensor, name string) int {
	n, after := 0, false
	for _, t := range tensors {
		if after {
			n += len(t.Data)
		}
		if t.Name == name {
			after = true
		}
	}
	return n
}

func mustGet(t *testing.T, f *File, name string) Tensor {
	t.Helper()
	x, ok := f.Get(name)
	if !ok {
		t.Fatalf("tensor %q missing", name)
	}
	return x
}

func sortedStrings(s []string) bool {
	for i := 1; i < len(s); i++ {
		if s[i-1] > s[i] {
			return false
		}
	}
	return true
}

func TestTypedDTypeMismatch(t *testing.T) {
	x := FromInt32s("x", []int{1}, []int32{1})
	if _, err := x.Float32s(); !errors.Is(err, ErrDType) {
		t.Errorf("Float32s on I32: %v", err)
	}
	if _, err := x.Uint16s(); !errors.Is(err, ErrDType) {
		t.Errorf("Uint16s on I32: %v", err)
	}
	bad := Tensor{Name: "bad", DType: "F32", Shape: []int{2}, Data: make([]byte, 4)}
	if _, err := bad.Float32s(); !errors.Is(err, ErrInvalid) {
		t.Errorf("Float32s with short data: %v", err)
	}
	if n := (Tensor{Shape: []int{-1}}).NumElements(); n != -1 {
		t.Errorf("NumElements of negative shape = %d", n)
	}
	if n := (Tensor{Shape: []int{math.MaxInt, 2}}).NumElements(); n != -1 {
		t.Errorf("NumElements of overflowing shape = %d", n)
	}
}

// TestGolden pins the exact bytes Write produces.
func TestGolden(t *testing.T) {
	tensors := []Tensor{
		{Name: "b", DType: "U8", Shape: []int{}, Data: []byte{7}},
		FromFloat32s("a", []int{2}, []float32{1, 2}),
	}
	md := map[string]string{"k": "v"}
	want := []byte{0x88, 0, 0, 0, 0, 0, 0, 0}
	want = append(want, `{"__metadata__":{"k":"v"},`+
		`"a":{"dtype":"F32","shape":[2],"data_offsets":[1,9]},`+
		`"b":{"dtype":"U8","shape":[],"data_offsets":[0,1]}}`+
		`      `...)
	want = append(want,
		0x07,                   // b
		0x00, 0x00, 0x80, 0x3f, // a[0] = 1.0
		0x00, 0x00, 0x00, 0x40, // a[1] = 2.0
	)
	got := encode(t, tensors, md)
	if !bytes.Equal(got, want) {
		t.Fatalf("Write produced\n%q\nwant\n%q", got, want)
	}
	f, err := Parse(want)
	if err != nil {
		t.Fatal(err)
	}
	if f.Tensors[0].Name != "b" || f.Tensors[1].Name != "a" {
		t.Errorf("tensors not in data order: %v", f.Names())
	}
	if v, err := f.Tensors[1].Float32s(); err != nil || v[0] != 1 || v[1] != 2 {
		t.Errorf("a = %v, %v", v, err)
	}
}

// TestParseForeign accepts what other writers produce: whitespace inside the
// JSON, unknown fields, gaps in the data buffer, zero-size tensors.
func TestParseForeign(t *testing.T) {
	h := `{ "x" : { "data_offsets" : [ 4 , 6 ] , "shape" : [ 1 ] , "dtype" : "I16", "extra": {"a": [1]} },
	"__metadata__": {"a": "b"}, "z": {"dtype": "F64", "shape": [0], "data_offsets": [2, 2]}}   `
	f, err := Parse(file(h, []byte{0, 1, 2, 3, 4, 5, 6}))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Names(); !reflect.DeepEqual(got, []string{"x", "z"}) {
		t.Errorf("names %q", got)
	}
	if f.Tensors[0].Name != "z" {
		t.Errorf("not sorted by offset: %q", f.Tensors[0].Name)
	}
	x := mustGet(t, f, "x")
	if !bytes.Equal(x.Data, []byte{4, 5}) {
		t.Errorf("x.Data = %v", x.Data)
	}
	if f.Metadata["a"] != "b" {
		t.Errorf("metadata %v", f.Metadata)
	}
}

func TestParseInvalid(t *testing.T) {
	hdr := func(n uint64, rest string) []byte {
		b := binary.LittleEndian.AppendUint64(nil, n)
		return append(b, rest...)
	}
	ok := `"dtype":"F32","shape":[2],"data_offsets":[0,8]`
	data8 := make([]byte, 8)
	cases := []struct {
		name string
		in   []byte
		msg  string
	}{
		{"empty", nil, "shorter than"},
		{"short", []byte{1, 2, 3, 4, 5, 6, 7}, "shorter than"},
		{"absurd header length", hdr(100<<20+1, "{}"), "absurd header length"},
		{"huge header length", hdr(math.MaxUint64, "{}"), "absurd header length"},
		{"header past end", hdr(10, "{}"), "larger than"},
		{"zero header", hdr(0, ""), "must be a JSON object"},
		{"not json", file("{nope}", nil), "invalid JSON"},
		{"truncated json", file(`{"a":{`, nil), "invalid JSON"},
		{"not object", file("[1,2]", nil), "must be a JSON object"},
		{"leading space", file(" {}", nil), "must be a JSON object"},
		{"trailing garbage", file("{} x", nil), "unexpected byte"},
		{"trailing second object", file("{}{}", nil), "unexpected byte"},
		{"trailing newline", file("{}\n", nil), "unexpected byte"},
		{"invalid utf8", file("{\"\xff\":{}}", nil), "UTF-8"},
		{"entry not object", file(`{"a":[1]}`, nil), "expected a JSON object"},
		{"missing dtype", file(`{"a":{"shape":[],"data_offsets":[0,0]}}`, nil), `missing "dtype"`},
		{"missing shape", file(`{"a":{"dtype":"U8","data_offsets":[0,0]}}`, nil), `missing "shape"`},
		{"missing offsets", file(`{"a":{"dtype":"U8","shape":[]}}`, nil), `missing "data_offsets"`},
		{"dtype not string", file(`{"a":{"dtype":4,"shape":[2],"data_offsets":[0,8]}}`, data8), `"dtype" must be a string`},
		{"unknown dtype", file(`{"a":{"dtype":"F8","shape":[2],"data_offsets":[0,8]}}`, data8), `unknown dtype "F8"`},
		{"lowercase dtype", file(`{"a":{"dtype":"f32","shape":[2],"data_offsets":[0,8]}}`, data8), `unknown dtype`},
		{"negative dim", file(`{"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}}`, data8), "negative"},
		{"fractional dim", file(`{"a":{"dtype":"F32","shape":[2.0],"data_offsets":[0,8]}}`, data8), "non-negative integer"},
		{"string dim", file(`{"a":{"dtype":"F32","shape":["2"],"data_offsets":[0,8]}}`, data8), "non-negative integer"},
		{"shape not array", file(`{"a":{"dtype":"F32","shape":2,"data_offsets":[0,8]}}`, data8), `"shape" must be an array`},
		{"shape null", file(`{"a":{"dtype":"F32","shape":null,"data_offsets":[0,8]}}`, data8), `"shape" must be an array`},
		{"huge dim", file(`{"a":{"dtype":"F32","shape":[99999999999999999999],"data_offsets":[0,8]}}`, data8), "too large"},
		{"shape overflow", file(`{"a":{"dtype":"U8","shape":[4294967296,4294967296],"data_offsets":[0,8]}}`, data8), "overflows"},
		{"bytes overflow", file(`{"a":{"dtype":"U64","shape":[2305843009213693952],"data_offsets":[0,8]}}`, data8), "overflows"},
		{"offsets one", file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[8]}}`, data8), "two non-negative integers"},
		{"offsets three", file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8,8]}}`, data8), "two non-negative integers"},
		{"offsets object", file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":{"0":8}}}`, data8), "two non-negative integers"},
		{"negative begin", file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[-1,7]}}`, data8), "negative"},
		{"float end", file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8e0]}}`, data8), "non-negative integer"},
		{"begin after end", file(`{"a":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}}`, data8), "greater than end"},
		{"end past file", file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}`, data8), "header offsets past the end of the file"},
		{"end past file uint64", file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[18446744073709551615,18446744073709551615]}}`, data8), "header offsets past the end of the file"},
		{"end too large", file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,18446744073709551616]}}`, data8), "too large"},
		{"size mismatch", file(`{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}`, data8), "need 12"},
		{"scalar size mismatch", file(`{"a":{"dtype":"F64","shape":[],"data_offsets":[0,4]}}`, data8), "need 8"},
		{"overlap", file(`{"a":{`+ok+`},"b":{"dtype":"U8","shape":[4],"data_offsets":[4,8]}}`, data8), "overlap"},
		{"same range", file(`{"a":{`+ok+`},"b":{`+ok+`}}`, data8), "overlap"},
		{"duplicate name", file(`{"a":{`+ok+`},"a":{`+ok+`}}`, data8), `duplicate key "a"`},
		{"duplicate field", file(`{"a":{`+ok+`,"dtype":"U8"}}`, data8), `duplicate key "dtype"`},
		{"metadata not object", file(`{"__metadata__":"x"}`, nil), "expected a JSON object"},
		{"metadata value not string", file(`{"__metadata__":{"a":1}}`, nil), "must be a string"},
		{"metadata duplicate key", file(`{"__metadata__":{"a":"1","a":"2"}}`, nil), "duplicate key"},
		{"duplicate metadata", file(`{"__metadata__":{},"__metadata__":{}}`, nil), "duplicate key"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := Parse(c.in)
			if err == nil {
				t.Fatalf("Parse succeeded: %+v", f)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error %q does not wrap ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %q does not mention %q", err, c.msg)
			}
		})
	}
}

func TestWriteInvalid(t *testing.T) {
	good := FromFloat32s("w", []int{2}, []float32{1, 2})
	cases := []struct {
		name string
		ts   []Tensor
		md   map[string]string
		msg  string
	}{
		{"empty name", []Tensor{{DType: "U8", Shape: []int{}, Data: []byte{1}}}, nil, "empty name"},
		{"reserved name", []Tensor{{Name: "__metadata__", DType: "U8", Shape: []int{}, Data: []byte{1}}}, nil, "reserved"},
		{"duplicate name", []Tensor{good, good}, nil, "duplicate name"},
		{"bad utf8 name", []Tensor{{Name: "\xff", DType: "U8", Shape: []int{}, Data: []byte{1}}}, nil, "UTF-8"},
		{"unknown dtype", []Tensor{{Name: "x", DType: "F8", Shape: []int{1}, Data: []byte{1}}}, nil, "unknown dtype"},
		{"negative dim", []Tensor{{Name: "x", DType: "U8", Shape: []int{-1}}}, nil, "negative"},
		{"overflow", []Tensor{{Name: "x", DType: "U8", Shape: []int{math.MaxInt, 3}}}, nil, "overflows"},
		{"short data", []Tensor{{Name: "x", DType: "F32", Shape: []int{2}, Data: make([]byte, 7)}}, nil, "need 8"},
		{"scalar no data", []Tensor{{Name: "x", DType: "F32", Shape: nil}}, nil, "need 4"},
		{"bad utf8 metadata", []Tensor{good}, map[string]string{"k": "\xfe"}, "UTF-8"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := Write(&buf, c.ts, c.md)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("Write error %v, want ErrInvalid mentioning %q", err, c.msg)
			}
			if buf.Len() != 0 {
				t.Errorf("Write wrote %d bytes before failing", buf.Len())
			}
		})
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "model.safetensors")
	tensors := []Tensor{FromFloat32s("w", []int{2}, []float32{1, 2}), FromInt8s("s", nil, []int8{-3})}
	if err := WriteFile(path, tensors, map[string]string{"a": "b"}); err != nil {
		t.Fatal(err)
	}
	f, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range tensors {
		if !sameTensor(f.Tensors[i], tensors[i]) {
			t.Errorf("tensor %d = %+v, want %+v", i, f.Tensors[i], tensors[i])
		}
	}
	before, _ := os.ReadFile(path)

	// A failing write leaves a new path uncreated and an existing one untouched,
	// and leaves no temporary files behind.
	bad := []Tensor{tensors[0], {Name: "bad", DType: "F32", Shape: []int{3}, Data: make([]byte, 4)}}
	newPath := filepath.Join(dir, "new.safetensors")
	if err := WriteFile(newPath, bad, nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("WriteFile(bad) = %v", err)
	}
	if _, err := os.Stat(newPath); !os.IsNotExist(err) {
		t.Errorf("WriteFile(bad) created %s: %v", newPath, err)
	}
	if err := WriteFile(path, bad, nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("WriteFile(bad) over existing = %v", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Error("WriteFile(bad) changed the existing file")
	}
	// Writing into a directory that does not exist fails cleanly.
	if err := WriteFile(filepath.Join(dir, "nodir", "x.safetensors"), tensors, nil); err == nil {
		t.Error("WriteFile into a missing directory succeeded")
	}
	// A directory is refused, and nothing is left beside it.
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(sub, tensors, nil); err == nil {
		t.Error("WriteFile over a directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !reflect.DeepEqual(names, []string{"model.safetensors", "sub"}) {
		t.Errorf("directory holds %q", names)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing")); err == nil {
		t.Error("ReadFile of a missing file succeeded")
	}
}

func FuzzParse(f *testing.F) {
	var buf bytes.Buffer
	_ = Write(&buf, []Tensor{
		FromFloat32s("w", []int{2, 2}, []float32{1, 2, 3, 4}),
		FromUint16s("h", "BF16", []int{}, []uint16{0x3f80}),
		{Name: "e", DType: "I64", Shape: []int{0}},
	}, map[string]string{"format": "pt"})
	f.Add(buf.Bytes())
	f.Add(file(`{"a":{"dtype":"U8","shape":[2],"data_offsets":[1,3]},"__metadata__":null}  `, []byte{9, 8, 7, 6}))
	f.Add(file(`{"a":{"dtype":"I16","shape":[1],"data_offsets":[0,2]},"b":{"dtype":"BOOL","shape":[0],"data_offsets":[1,1]}}`, []byte{1, 2}))
	f.Add(file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}`, make([]byte, 8)))
	f.Add(file(`{"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,8]}}`, make([]byte, 8)))
	f.Add(file(`{"a":{"dtype":"U8","shape":[4294967296,4294967296],"data_offsets":[0,0]}}`, nil))
	f.Add(file(`{"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},"b":{"dtype":"U8","shape":[4],"data_offsets":[2,6]}}`, make([]byte, 8)))
	f.Add(file(`{"a":1,"a":2}`, nil))
	f.Add(file(`{"__metadata__":{"k":"\u00e9\ud800\n"}}`, nil))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, '{', '}'})
	f.Add([]byte{2, 0, 0, 0, 0, 0, 0, 0, '{'})
	f.Add([]byte{})

	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse(data)
		// ReadFile's reader accepts exactly what Parse does, with the same tensors.
		r, rerr := readAt(bytes.NewReader(data), int64(len(data)))
		if (err == nil) != (rerr == nil) || err != nil && err.Error() != rerr.Error() {
			t.Fatalf("Parse error %v, readAt error %v", err, rerr)
		}
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %q does not wrap ErrInvalid", err)
			}
			return
		}
		if len(r.Tensors) != len(p.Tensors) || !sameMetadata(r.Metadata, p.Metadata) {
			t.Fatalf("readAt %+v, Parse %+v", r, p)
		}
		for i, want := range p.Tensors {
			if got := r.Tensors[i]; !sameTensor(got, want) || cap(got.Data) != len(got.Data) {
				t.Fatalf("tensor %d: readAt %+v, Parse %+v", i, got, want)
			}
		}
		var out bytes.Buffer
		if err := Write(&out, p.Tensors, p.Metadata); err != nil {
			t.Fatalf("Write of a parsed file: %v", err)
		}
		q, err := Parse(out.Bytes())
		if err != nil {
			t.Fatalf("Parse of rewritten file: %v\n%q", err, out.Bytes())
		}
		if len(q.Tensors) != len(p.Tensors) {
			t.Fatalf("%d tensors after round trip, want %d", len(q.Tensors), len(p.Tensors))
		}
		for _, want := range p.Tensors {
			got, ok := q.Get(want.Name)
			if !ok || !sameTensor(got, want) {
				t.Fatalf("tensor %q after round trip = %+v, want %+v", want.Name, got, want)
			}
		}
		if !sameMetadata(q.Metadata, p.Metadata) {
			t.Fatalf("metadata after round trip = %q, want %q", q.Metadata, p.Metadata)
		}
		// Write's output is canonical: rewriting it changes nothing.
		var again bytes.Buffer
		if err := Write(&again, q.Tensors, q.Metadata); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again.Bytes(), out.Bytes()) {
			t.Fatalf("rewrite not canonical:\n%q\n%q", out.Bytes(), again.Bytes())
		}
	})
}
