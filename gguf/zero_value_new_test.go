package gguf

import (
	"fmt"
	"testing"

	"github.com/rotary-go/rotary/internal/zerotest"
)

// TestZeroValueNew: the exported functions and methods of this package, called with nil
// pointers, nil slices, zero structs and nil receivers, return an error or a zero result and
// never panic.
func TestZeroValueNew(t *testing.T) {
	var nilFile *File
	zero := &File{}
	var v Value
	zerotest.Run(t, map[string]func() error{
		"nil File.Get":       func() error { _, _ = nilFile.Get(""); return nil },
		"nil File.Tensor":    func() error { _, _ = nilFile.Tensor(""); return nil },
		"nil File.Factors":   func() error { _, _ = nilFile.Factors(""); return nil },
		"nil File.RoPE":      func() error { _, err := nilFile.RoPE(); return zerotest.WantErr(err) },
		"nil File.RopeType":  func() error { _, _, err := nilFile.RopeType(); return zerotest.WantErr(err) },
		"zero File.Get":      func() error { _, _ = zero.Get(""); return nil },
		"zero File.Tensor":   func() error { _, _ = zero.Tensor(""); return nil },
		"zero File.Factors":  func() error { _, _ = zero.Factors(""); return nil },
		"zero File.RoPE":     func() error { _, err := zero.RoPE(); return zerotest.WantErr(err) },
		"zero File.RopeType": func() error { _, _, err := zero.RopeType(); return zerotest.WantErr(err) },
		"Parse(nil)":         func() error { _, err := Parse(nil); return zerotest.WantErr(err) },
		"ReadFile(\"\")":     func() error { _, err := ReadFile(""); return zerotest.WantErr(err) },
		"Write(nil, nil)":    func() error { _, err := Write(nil, nil); return err },
		"Write(zero KV, zero Tensor)": func() error {
			_, err := Write([]KV{{}}, []Tensor{{}})
			return zerotest.WantErr(err)
		},
		"ConverterPermutesQK": func() error { _ = ConverterPermutesQK(""); return nil },
		"TypeName":            func() error { _ = TypeName(0); _ = TypeName(^uint32(0)); return nil },
		"Type.String":         func() error { _ = Type(0).String(); _ = Type(^uint32(0)).String(); return nil },
		"RopeType.String":     func() error { _ = RopeType(0).String(); _ = RopeType(-1).String(); return nil },
		"RopeType.Pairing":    func() error { _ = RopeType(0).Pairing(); _ = RopeType(-1 << 62).Pairing(); return nil },
		"IsFile": func() error {
			if IsFile("") || IsFile(".") || IsFile("\x00") {
				return fmt.Errorf("an empty path, a directory or an invalid path is a GGUF file")
			}
			return nil
		},
		"zero Value": func() error {
			_, _ = v.Int()
			_, _ = v.Float()
			_, _ = v.Bool()
			_, _ = v.Str()
			_, _ = v.Ints()
			_, _ = v.Floats()
			_, _ = v.Strings()
			_, _, _ = v.Len(), v.TypeName(), v.String()
			return nil
		},
		"empty arrays": func() error {
			for _, a := range []Value{I32s(), U32s(), F32s(), Strs()} {
				_, _ = a.Ints()
				_, _ = a.Floats()
				_, _ = a.Strings()
				_, _, _ = a.Len(), a.TypeName(), a.String()
			}
			return nil
		},
	})
}
