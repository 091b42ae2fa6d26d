package gguf

import (
	"bytes"
	"encoding/binary"
	"math"
)

// Scalar and array values for Write.

// U32 is a u32 value.
func U32(v uint32) Value { return Value{Type: TypeUint32, bits: uint64(v)} }

// I32 is an i32 value.
func I32(v int32) Value { return Value{Type: TypeInt32, bits: uint64(uint32(v))} }

// U64 is a u64 value.
func U64(v uint64) Value { return Value{Type: TypeUint64, bits: v} }

// F32 is an f32 value.
func F32(v float32) Value { return Value{Type: TypeFloat32, bits: uint64(math.Float32bits(v))} }

// F64 is an f64 value.
func F64(v float64) Value { return Value{Type: TypeFloat64, bits: math.Float64bits(v)} }

// Bool is a bool value.
func Bool(v bool) Value {
	var b uint64
	if v {
		b = 1
	}
	return Value{Type: TypeBool, bits: b}
}

// Str is a string value.
func Str(s string) Value { return Value{Type: TypeString, str: s} }

// I32s is an array of i32.
func I32s(vs ...int32) Value {
	raw := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(raw[4*i:], uint32(v))
	}
	return Value{Type: TypeArray, Elem: TypeInt32, raw: raw, n: len(vs)}
}

// U32s is an array of u32.
func U32s(vs ...uint32) Value {
	raw := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(raw[4*i:], v)
	}
	return Value{Type: TypeArray, Elem: TypeUint32, raw: raw, n: len(vs)}
}

// F32s is an array of f32.
func F32s(vs ...float32) Value {
	raw := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	return Value{Type: TypeArray, Elem: TypeFloat32, raw: raw, n: len(vs)}
}

// Strs is an array of strings.
func Strs(vs ...string) Value {
	return Value{Type: TypeArray, Elem: TypeString, strs: vs, n: len(vs)}
}

// Tensor is a tensor for Write: its info (Offset and Size are computed) and its bytes.
type Tensor struct {
	Name  string
	Shape []int64
	Type  uint32
	Data  []byte
}

// Write encodes a version-3 GGUF file of the metadata and tensors given, in that order,
// with general.alignment from the metadata (32 when absent). It checks what it writes by
// parsing the result, so anything Parse would refuse (a duplicate key, a tensor whose data
// does not match its shape and type, ...) is an error wrapping ErrInvalid.
func Write(metadata []KV, tensors []Tensor) ([]byte, error) {
	for _, t := range tensors {
		want, err := tensorBytes(TensorInfo{Name: t.Name, Shape: t.Shape, Type: t.Type})
		if err != nil {
			return nil, err
		}
		if want != uint64(len(t.Data)) {
			return nil, invalidf("tensor %q has %d bytes of data: its shape %v and type %s take %d", t.Name, len(t.Data), t.Shape, TypeName(t.Type), want)
		}
	}
	var b bytes.Buffer
	u32 := func(v uint32) { _ = binary.Write(&b, binary.LittleEndian, v) }
	u64 := func(v uint64) { _ = binary.Write(&b, binary.LittleEndian, v) }
	str := func(s string) { u64(uint64(len(s))); b.WriteString(s) }
	b.WriteString(Magic)
	u32(3)
	u64(uint64(len(tensors)))
	u64(uint64(len(metadata)))
	align := uint64(defaultAlignment)
	for _, kv := range metadata {
		str(kv.Key)
		v := kv.Value
		u32(uint32(v.Type))
		switch v.Type {
		case TypeString:
			str(v.str)
		case TypeArray:
			u32(uint32(v.Elem))
			u64(uint64(v.n))
			if v.Elem == TypeString {
				for _, s := range v.strs {
					str(s)
				}
			} else {
				b.Write(v.raw)
			}
		default:
			var buf [8]byte
			binary.LittleEndian.PutUint64(buf[:], v.bits)
			b.Write(buf[:v.Type.size()])
		}
		if a, ok := v.Int(); ok && kv.Key == "general.alignment" && a > 0 {
			align = uint64(a)
		}
	}
	offsets := make([]uint64, len(tensors))
	var off uint64
	for i, t := range tensors {
		offsets[i] = off
		off = alignUp(off+uint64(len(t.Data)), align)
	}
	for i, t := range tensors {
		str(t.Name)
		u32(uint32(len(t.Shape)))
		for _, d := range t.Shape {
			u64(uint64(d))
		}
		u32(t.Type)
		u64(offsets[i])
	}
	if len(tensors) > 0 {
		b.Write(make([]byte, alignUp(uint64(b.Len()), align)-uint64(b.Len())))
	}
	for i, t := range tensors {
		b.Write(t.Data)
		if i+1 < len(tensors) {
			b.Write(make([]byte, alignUp(uint64(len(t.Data)), align)-uint64(len(t.Data))))
		}
	}
	out := b.Bytes()
	if _, err := Parse(out); err != nil {
		return nil, err
	}
	return out, nil
}
