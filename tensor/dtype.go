package tensor

import (
	"fmt"
	"strings"
)

// DType is an element type.
type DType uint8

// The element types. The zero DType means "no tensor".
const (
	Invalid DType = iota
	F32
	F16
	BF16
	F64
	I32
	I64
	I8
	U8
)

var dtypeNames = [...]string{Invalid: "invalid", F32: "F32", F16: "F16", BF16: "BF16", F64: "F64", I32: "I32", I64: "I64", I8: "I8", U8: "U8"}

// String returns the safetensors name of the type (F32, BF16, ...).
func (d DType) String() string {
	if int(d) < len(dtypeNames) {
		return dtypeNames[d]
	}
	return fmt.Sprintf("DType(%d)", uint8(d))
}

// Size is the size of one element in bytes, 0 for Invalid.
func (d DType) Size() int {
	switch d {
	case F32, I32:
		return 4
	case F16, BF16:
		return 2
	case F64, I64:
		return 8
	case I8, U8:
		return 1
	}
	return 0
}

// IsFloat reports whether d is one of the floating-point types rotary rotates (F32, F16, BF16).
func (d DType) IsFloat() bool { return d == F32 || d == F16 || d == BF16 }

// ParseDType reads a type name as safetensors and torch write it ("F32", "bf16", "float16").
func ParseDType(s string) (DType, error) {
	switch strings.ToLower(s) {
	case "f32", "float32", "float":
		return F32, nil
	case "f16", "float16", "half", "fp16":
		return F16, nil
	case "bf16", "bfloat16":
		return BF16, nil
	case "f64", "float64", "double":
		return F64, nil
	case "i32", "int32":
		return I32, nil
	case "i64", "int64":
		return I64, nil
	case "i8", "int8":
		return I8, nil
	case "u8", "uint8":
		return U8, nil
	}
	return Invalid, fmt.Errorf("unknown dtype %q (want F32, F16, BF16, F64, I32, I64, I8 or U8)", s)
}
