package hf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/rotary-go/rotary/internal/errs"
)

// ErrConfig is wrapped by every error Parse returns for a config it cannot use.
var ErrConfig = errors.New("hf config")

func configErr(format string, args ...any) error {
	return errs.Wrapf(ErrConfig, format, args...)
}

// object is a decoded JSON object; numbers are json.Number so integers stay exact.
type object = map[string]any

// decodeObject decodes data as exactly one JSON object.
func decodeObject(data []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, configErr("not valid JSON: %v", err)
	}
	if err := dec.Decode(new(any)); err != io.EOF {
		return nil, configErr("not valid JSON: data after the top-level object")
	}
	m, ok := v.(object)
	if !ok {
		return nil, configErr("config: want a JSON object, got %s", describe(v))
	}
	return m, nil
}

// describe names a JSON value's kind for error messages.
func describe(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(v)
	case json.Number:
		return "number " + v.String()
	case string:
		if len(v) > 40 {
			v = v[:40] + "..."
		}
		return fmt.Sprintf("string %q", v)
	case []any:
		return "an array"
	case object:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func asNumber(path string, v any) (float64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, configErr("%s: want a number, got %s", path, describe(v))
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, configErr("%s: %s is not a finite number", path, n)
	}
	return f, nil
}

// asInt accepts integral JSON numbers, including forms like 4096.0 and 1e6.
func asInt(path string, v any) (int, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, configErr("%s: want an integer, got %s", path, describe(v))
	}
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		if i > math.MaxInt || i < math.MinInt {
			return 0, configErr("%s: %s is out of range", path, n)
		}
		return int(i), nil
	}
	f, err := asNumber(path, v)
	if err != nil {
		return 0, err
	}
	// 2^53 keeps the conversion exact and far inside int64 (and int on 64-bit hosts).
	if f != math.Trunc(f) || math.Abs(f) > 1<<53 || f > math.MaxInt || f < math.MinInt {
		return 0, configErr("%s: want an integer, got %s", path, n)
	}
	return int(f), nil
}

// truncInt is f truncated toward zero, as Python's int() does; ok is false for NaN and values
// outside int, whose conversion Go leaves implementation-defined (amd64 gives math.MinInt).
func truncInt(f float64) (int, bool) {
	if !(f >= math.MinInt && f < -float64(math.MinInt)) {
		return 0, false
	}
	return int(f), true
}

func asString(path string, v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", configErr("%s: want a string, got %s", path, describe(v))
	}
	return s, nil
}

func asBool(path string, v any) (bool, error) {
	b, ok := v.(bool)
	if !ok {
		return false, configErr("%s: want true or false, got %s", path, describe(v))
	}
	return b, nil
}

func asObject(path string, v any) (object, error) {
	m, ok := v.(object)
	if !ok {
		return nil, configErr("%s: want an object, got %s", path, describe(v))
	}
	return m, nil
}

func asArray(path string, v any) ([]any, error) {
	a, ok := v.([]any)
	if !ok {
		return nil, configErr("%s: want an array, got %s", path, describe(v))
	}
	return a, nil
}

func asFloats(path string, v any) ([]float64, error) {
	a, err := asArray(path, v)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(a))
	for i, e := range a {
		if out[i], err = asNumber(fmt.Sprintf("%s[%d]", path, i), e); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func asInts(path string, v any) ([]int, error) {
	a, err := asArray(path, v)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(a))
	for i, e := range a {
		if out[i], err = asInt(fmt.Sprintf("%s[%d]", path, i), e); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func asStrings(path string, v any) ([]string, error) {
	a, err := asArray(path, v)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(a))
	for i, e := range a {
		if out[i], err = asString(fmt.Sprintf("%s[%d]", path, i), e); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// node is one JSON object with its path, for reading keys with errors that name them.
type node struct {
	path string // "" for the top level
	m    object
	// read, when not nil, records every key looked up (unread.go reports the others).
	read map[string]bool
}

func (n node) key(k string) string {
	if n.path == "" {
		return k
	}
	return n.path + "." + k
}

// get returns the value of k; JSON null counts as absent.
func (n node) get(k string) (string, any, bool) {
	n.touch(k)
	v, ok := n.m[k]
	if !ok || v == nil {
		return "", nil, false
	}
	return n.key(k), v, true
}

// dotted is get for a path of keys through nested objects ("attn_config.rope_theta"): the
// first key counts as read in n, the value is the last one's.
func (n node) dotted(path string) (string, any, bool) {
	cur := n
	for {
		k, rest, nested := strings.Cut(path, ".")
		p, v, ok := cur.get(k)
		if !ok || !nested {
			return p, v, ok
		}
		m, isObject := v.(object)
		if !isObject {
			return "", nil, false
		}
		cur, path = node{path: p, m: m}, rest
	}
}

// touch records that k was looked up, for a node that keeps count.
func (n node) touch(k string) {
	if n.read != nil {
		n.read[k] = true
	}
}

func (n node) number(k string) (float64, bool, error) {
	path, v, ok := n.get(k)
	if !ok {
		return 0, false, nil
	}
	f, err := asNumber(path, v)
	return f, err == nil, err
}

func (n node) integer(k string) (int, bool, error) {
	path, v, ok := n.get(k)
	if !ok {
		return 0, false, nil
	}
	i, err := asInt(path, v)
	return i, err == nil, err
}

func (n node) boolean(k string) (bool, bool, error) {
	path, v, ok := n.get(k)
	if !ok {
		return false, false, nil
	}
	b, err := asBool(path, v)
	return b, err == nil, err
}
