package gguf

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Type is a metadata value type (gguf_type in ggml/include/gguf.h, GGUFValueType in
// gguf-py/gguf/constants.py).
type Type uint32

// The value types, numbered as in the file.
const (
	TypeUint8 Type = iota
	TypeInt8
	TypeUint16
	TypeInt16
	TypeUint32
	TypeInt32
	TypeFloat32
	TypeBool
	TypeString
	TypeArray
	TypeUint64
	TypeInt64
	TypeFloat64
	numTypes
)

var typeNames = [numTypes]string{"u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "str", "arr", "u64", "i64", "f64"}

func (t Type) String() string {
	if t < numTypes {
		return typeNames[t]
	}
	return fmt.Sprintf("type(%d)", uint32(t))
}

// size is the encoded size of one scalar of type t; 0 for strings and arrays, whose size
// depends on their contents.
func (t Type) size() int {
	switch t {
	case TypeUint8, TypeInt8, TypeBool:
		return 1
	case TypeUint16, TypeInt16:
		return 2
	case TypeUint32, TypeInt32, TypeFloat32:
		return 4
	case TypeUint64, TypeInt64, TypeFloat64:
		return 8
	}
	return 0
}

func (t Type) isInt() bool {
	switch t {
	case TypeUint8, TypeInt8, TypeUint16, TypeInt16, TypeUint32, TypeInt32, TypeUint64, TypeInt64:
		return true
	}
	return false
}

func (t Type) isFloat() bool { return t == TypeFloat32 || t == TypeFloat64 }

// Value is one metadata value: a scalar, a string, or an array of either (Type TypeArray,
// element type Elem). Numeric arrays keep their encoded bytes, so that a value costs no more
// memory than it took in the file.
type Value struct {
	Type Type
	Elem Type // the element type of an array

	bits uint64   // a numeric or bool scalar, as encoded
	str  string   // a string scalar
	raw  []byte   // a numeric array's elements, as encoded
	strs []string // a string array
	n    int      // an array's length
}

// Len is the number of elements of an array, 1 for a scalar.
func (v Value) Len() int {
	if v.Type == TypeArray {
		return v.n
	}
	return 1
}

// scalarType is the type of v's elements: Elem for an array, Type otherwise.
func (v Value) scalarType() Type {
	if v.Type == TypeArray {
		return v.Elem
	}
	return v.Type
}

// elemBits is element i of a numeric array, or the scalar (i 0), as encoded.
func (v Value) elemBits(i int) uint64 {
	if v.Type != TypeArray {
		return v.bits
	}
	switch sz := v.Elem.size(); sz {
	case 1:
		return uint64(v.raw[i])
	case 2:
		return uint64(binary.LittleEndian.Uint16(v.raw[2*i:]))
	case 4:
		return uint64(binary.LittleEndian.Uint32(v.raw[4*i:]))
	default:
		return binary.LittleEndian.Uint64(v.raw[8*i:])
	}
}

// intOf decodes the integer bits of type t; ok is false for a uint64 beyond int64.
func intOf(t Type, b uint64) (int64, bool) {
	switch t {
	case TypeUint8, TypeUint16, TypeUint32:
		return int64(b), true
	case TypeInt8:
		return int64(int8(b)), true
	case TypeInt16:
		return int64(int16(b)), true
	case TypeInt32:
		return int64(int32(b)), true
	case TypeInt64:
		return int64(b), true
	case TypeUint64:
		return int64(b), b <= math.MaxInt64
	}
	return 0, false
}

func floatOf(t Type, b uint64) (float64, bool) {
	switch t {
	case TypeFloat32:
		return float64(math.Float32frombits(uint32(b))), true
	case TypeFloat64:
		return math.Float64frombits(b), true
	}
	return 0, false
}

// Int is an integer scalar; ok is false for any other value (and a uint64 beyond int64).
func (v Value) Int() (int64, bool) {
	if !v.Type.isInt() {
		return 0, false
	}
	return intOf(v.Type, v.bits)
}

// Float is a float32 or float64 scalar, widened to float64.
func (v Value) Float() (float64, bool) { return floatOf(v.Type, v.bits) }

// Bool is a bool scalar.
func (v Value) Bool() (bool, bool) { return v.bits != 0, v.Type == TypeBool }

// Str is a string scalar.
func (v Value) Str() (string, bool) { return v.str, v.Type == TypeString }

// Ints is an integer array's elements; ok is false for any other value.
func (v Value) Ints() ([]int64, bool) {
	if v.Type != TypeArray || !v.Elem.isInt() {
		return nil, false
	}
	out := make([]int64, v.n)
	for i := range out {
		x, ok := intOf(v.Elem, v.elemBits(i))
		if !ok {
			return nil, false
		}
		out[i] = x
	}
	return out, true
}

// Floats is a float array's elements, widened to float64.
func (v Value) Floats() ([]float64, bool) {
	if v.Type != TypeArray || !v.Elem.isFloat() {
		return nil, false
	}
	out := make([]float64, v.n)
	for i := range out {
		out[i], _ = floatOf(v.Elem, v.elemBits(i))
	}
	return out, true
}

// Strings is a string array's elements.
func (v Value) Strings() ([]string, bool) {
	if v.Type != TypeArray || v.Elem != TypeString {
		return nil, false
	}
	return v.strs, true
}

// TypeName is v's type as llama.cpp's gguf tools print it: "u32", "f32", "arr[i32,4]".
func (v Value) TypeName() string {
	if v.Type == TypeArray {
		return fmt.Sprintf("arr[%s,%d]", v.Elem, v.n)
	}
	return v.Type.String()
}

// maxShown bounds how many array elements String prints.
const maxShown = 8

// String formats v for people: a scalar as is, a string quoted, an array as its first
// elements and its length.
func (v Value) String() string {
	if v.Type != TypeArray {
		return v.elemString(0)
	}
	var b strings.Builder
	b.WriteByte('[')
	for i := range min(v.n, maxShown) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(v.elemString(i))
	}
	if v.n > maxShown {
		fmt.Fprintf(&b, ", ... (%d elements)", v.n)
	}
	b.WriteByte(']')
	return b.String()
}

func (v Value) elemString(i int) string {
	t := v.scalarType()
	switch {
	case t == TypeString:
		s := v.str
		if v.Type == TypeArray {
			s = v.strs[i]
		}
		if len(s) > 64 {
			return strconv.Quote(s[:64]) + "..."
		}
		return strconv.Quote(s)
	case t == TypeBool:
		return strconv.FormatBool(v.elemBits(i) != 0)
	case t.isFloat():
		f, _ := floatOf(t, v.elemBits(i))
		return strconv.FormatFloat(f, 'g', -1, 64)
	case t == TypeUint64:
		return strconv.FormatUint(v.elemBits(i), 10)
	}
	x, _ := intOf(t, v.elemBits(i))
	return strconv.FormatInt(x, 10)
}
