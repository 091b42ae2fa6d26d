package rope

import (
	"reflect"
	"strings"
	"testing"
	"unicode"
)

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

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{
		"Type": "type", "OriginalMaxPositions": "original_max_positions", "NTKMixed": "ntk_mixed",
		"MixedB": "mixed_b", "MscaleAllDim": "mscale_all_dim", "LongRoPEFactorFromLengths": "long_rope_factor_from_lengths",
		"NoRoPE": "no_rope", "MRoPE": "mrope", "LayerTypes": "layer_types", "ChunkSize": "chunk_size", "HeadSize": "head_size",
		"A1B": "a1_b", "URL": "url",
	} {
		if got := snakeCase(in); got != want {
			t.Errorf("snakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestJSONNames: every field of Spec and of the types inside it is named in JSON by its Go name
// in snake_case (MscaleAllDim → mscale_all_dim), so that a report holding them (rotary inspect
// --json, check.InspectReport) has one style of key, a field added later included.
func TestJSONNames(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(ty reflect.Type) {
		switch ty.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			walk(ty.Elem())
			return
		case reflect.Struct:
		default:
			return
		}
		if seen[ty] || ty.PkgPath() != reflect.TypeFor[Spec]().PkgPath() {
			return
		}
		seen[ty] = true
		for i := range ty.NumField() {
			f := ty.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name != snakeCase(f.Name) {
				t.Errorf("%s.%s: JSON name %q, want %q", ty.Name(), f.Name, name, snakeCase(f.Name))
			}
			walk(f.Type)
		}
	}
	walk(reflect.TypeFor[Spec]())
	for _, ty := range []reflect.Type{reflect.TypeFor[Scaling](), reflect.TypeFor[MRoPE](), reflect.TypeFor[LocalRoPE](), reflect.TypeFor[LayerRoPE](), reflect.TypeFor[DualChunk](), reflect.TypeFor[QueryScaleRule]()} {
		if !seen[ty] {
			t.Errorf("%s: not reached from Spec", ty.Name())
		}
	}
}
