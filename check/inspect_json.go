package check

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"unicode"
)

// MarshalJSON writes the report with every key in snake_case (snakeJSON), those of package
// rope's types included.
func (r InspectReport) MarshalJSON() ([]byte, error) {
	type fields InspectReport // without this method, which snakeJSON would call back
	return json.Marshal(snakeJSON(fields(r)))
}

// snakeJSON is v ready for encoding/json with every struct field named in snake_case: a field's
// json tag when it has a name, else its Go name in snake_case (MscaleAllDim → mscale_all_dim,
// LongRoPEFactorFromLengths → long_rope_factor_from_lengths). InspectReport holds types of
// package rope, whose fields carry no tags; naming them here keeps the whole report in one
// style, fields the rope types gain later included. Field order, omitempty, "-", nil
// pointers and slices as null, and map keys (data, such as layer type names) are kept as
// encoding/json has them.
func snakeJSON(v any) any { return snakeValue(reflect.ValueOf(v)) }

// jsonObject is a JSON object whose keys keep their order.
type jsonObject []jsonMember

type jsonMember struct {
	key   string
	value any
}

func (o jsonObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(m.key)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		val, err := json.Marshal(m.value)
		if err != nil {
			return nil, err
		}
		b.Write(val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

var marshalerType = reflect.TypeFor[json.Marshaler]()

func snakeValue(v reflect.Value) any {
	if !v.IsValid() {
		return nil
	}
	if v.Type().Implements(marshalerType) && v.Kind() != reflect.Pointer && v.Kind() != reflect.Interface {
		return v.Interface() // the type says how it is written
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return snakeValue(v.Elem())
	case reflect.Struct:
		var o jsonObject
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" && opts == "" {
				continue
			}
			if name == "" {
				name = snakeCase(f.Name)
			}
			fv := v.Field(i)
			if strings.Contains(","+opts+",", ",omitempty,") && emptyJSON(fv) {
				continue
			}
			o = append(o, jsonMember{name, snakeValue(fv)})
		}
		return o
	case reflect.Slice:
		if v.IsNil() {
			return nil
		}
		fallthrough
	case reflect.Array:
		out := make([]any, v.Len())
		for i := range out {
			out[i] = snakeValue(v.Index(i))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return nil
		}
		out := make(map[string]any, v.Len())
		for it := v.MapRange(); it.Next(); {
			k, err := json.Marshal(it.Key().Interface())
			if err != nil {
				return nil
			}
			var key string
			if json.Unmarshal(k, &key) != nil {
				key = string(k) // a number key: encoding/json writes it as its digits
			}
			out[key] = snakeValue(it.Value())
		}
		return out
	}
	return v.Interface()
}

// emptyJSON is encoding/json's omitempty test.
func emptyJSON(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

// snakeCase is a Go field name in snake_case. Runs of capitals are one word (NTKMixed →
// ntk_mixed) and RoPE is one word, as the config keys spell it (NoRoPE → no_rope).
func snakeCase(name string) string {
	name = strings.ReplaceAll(strings.ReplaceAll(name, "MRoPE", "Mrope"), "RoPE", "Rope")
	r := []rune(name)
	var b strings.Builder
	for i, c := range r {
		if unicode.IsUpper(c) && i > 0 {
			prevLower := unicode.IsLower(r[i-1]) || unicode.IsDigit(r[i-1])
			nextLower := i+1 < len(r) && unicode.IsLower(r[i+1])
			if prevLower || (unicode.IsUpper(r[i-1]) && nextLower) {
				b.WriteByte('_')
			}
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}
