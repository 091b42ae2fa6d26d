package hf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Raw is a lenient view of a config.json, for readers that explain a config Parse may refuse
// (package check) or read keys of their own beside the RoPE (package multimodal's token ids):
// the keys as the file gives them, found where Parse finds them, and the head size and rotary
// dim by Parse's rules without their checks. Nothing in a Raw is validated; a key of the wrong
// kind reads as absent from the lenient getters and as an error from RawObject's.
type Raw struct {
	top, text, rope RawObject
	head, rotaryDim int
}

// ReadRaw reads data as one JSON object. Its only error is data that is not one: the message
// is encoding/json's (json.Unmarshal's wording), and the error wraps ErrConfig. ReadRaw never
// panics on any input.
func ReadRaw(data []byte) (*Raw, error) {
	top, err := decodeRaw(data)
	if err != nil {
		return nil, err
	}
	r := &Raw{top: RawObject{m: top}}
	r.text = r.top
	var p parser
	if main := p.lenientHead(top).main; main != nil {
		r.rope = RawObject{path: main.path, m: main.m}
	}
	if wrapper, text, nested, err := textConfig(top); err == nil {
		r.text = RawObject{path: text.path, m: text.m}
		// A wrapper hf knows reads no top-level key but those it folds (source.wrapper).
		if nested && (p.src.wrapper == "" || len(p.src.topWins) > 0) {
			r.text.next = &RawObject{path: wrapper.path, m: wrapper.m}
		}
	}
	r.head, r.rotaryDim = p.m.Spec.HeadSize, p.m.Spec.RotaryDim
	return r, nil
}

// decodeRaw decodes data as one JSON object, numbers as json.Number so integers stay exact.
func decodeRaw(data []byte) (object, error) {
	// json.Unmarshal first for its wording of syntax errors and of data after the object.
	if err := json.Unmarshal(data, new(json.RawMessage)); err != nil {
		return nil, rawError{err.Error()}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var top object
	if err := dec.Decode(&top); err != nil {
		return nil, rawError{err.Error()}
	}
	if top == nil {
		return nil, rawError{"want a JSON object, got null"}
	}
	return top, nil
}

// lenientHead runs the family's head-size and rotary-dim rules on top with a lenient source,
// into p.m.Spec, and returns the rope object they read. A config whose family cannot be
// resolved is read with no family's rules.
func (p *parser) lenientHead(top object) ropeInfo {
	if p.resolve(top) != nil && p.src.notes == nil {
		p.src = source{text: node{m: top}, notes: &p.notes}
		if wrapper, text, nested, err := textConfig(top); err == nil {
			p.src.text = text
			if nested {
				p.src.top = &wrapper
			}
		}
	}
	p.src.lenient = true
	_ = p.heads() // the head count is set before the checks that follow it
	ri, err := p.ropeObject()
	if err != nil {
		ri = ropeInfo{}
	}
	_ = p.headSize(ri)
	return ri
}

// Top is the top level of the config.
func (r *Raw) Top() RawObject { return r.top }

// Text is the text model as Parse reads it: an Omni model's thinker_config, its nested
// text_config, and for a nested text model the keys it lacks from the object holding it where
// that object's class folds top-level keys into the text model or is not one hf knows.
func (r *Raw) Text() RawObject { return r.text }

// HeadSize is the head size by Parse's rules (head_dim, ChatGLM's kv_channels, an MLA model's
// qk_rope_head_dim, Gemma 4's global_head_dim, the config class's defaults, else hidden size /
// heads truncated), unchecked; 0 when the config does not give one.
func (r *Raw) HeadSize() int { return r.head }

// RotaryDim is the rotary dim by Parse's rules (rotary_dim where the family reads it, for
// MiniMax-M2 where no partial_rotary_factor is given; partial_rotary_factor or, where the family reads it, rotary_pct of HeadSize truncated, the
// family's fraction, else the whole head), unchecked: it may be past the head size, odd or not
// positive.
func (r *Raw) RotaryDim() int { return r.rotaryDim }

// MaxPositions is the text model's max_position_embeddings as given.
func (r *Raw) MaxPositions() (float64, bool) { return r.text.lenientNumber("max_position_embeddings") }

// RopeType is the rope object's rope_type, else its legacy type; "" when neither is a string.
func (r *Raw) RopeType() string {
	for _, k := range []string{"rope_type", "type"} {
		if s, ok, err := r.rope.String(k); ok && err == nil {
			return s
		}
	}
	return ""
}

// Factor is the rope object's scaling factor as given.
func (r *Raw) Factor() (float64, bool) { return r.rope.lenientNumber("factor") }

// KVLoRARank is an MLA model's kv_lora_rank (its compressed kv width) as given, where Parse
// finds the text model's keys.
func (r *Raw) KVLoRARank() (float64, bool) { return r.text.lenientNumber("kv_lora_rank") }

// RMSNormEps is the text model's rms_norm_eps as given.
func (r *Raw) RMSNormEps() (float64, bool) { return r.text.lenientNumber("rms_norm_eps") }

// OriginalMax is the rope object's original_max_position_embeddings as given.
func (r *Raw) OriginalMax() (float64, bool) {
	return r.rope.lenientNumber("original_max_position_embeddings")
}

// Sections is the rope object's mrope_section, or HunYuan-VL's xdrope_section (its legacy
// name, which wins as Parse takes it), as given: the entries decoded as encoding/json decodes
// them by default (numbers as float64). ok is false when neither key is given; err says a
// value that is not a list.
func (r *Raw) Sections() (sections []any, ok bool, err error) {
	for _, k := range []string{"xdrope_section", "mrope_section"} {
		if l, ok, err := r.rope.List(k); ok || err != nil {
			return l, ok, err
		}
	}
	return nil, false, nil
}

// RawList is a list a config gives, named by its key for messages.
type RawList struct {
	Key    string
	Values []any
}

// LongRoPEFactors are the rope object's short_factor and long_factor lists, in that order, the
// ones given as lists.
func (r *Raw) LongRoPEFactors() []RawList {
	var out []RawList
	for _, k := range []string{"short_factor", "long_factor"} {
		if l, ok, err := r.rope.List(k); ok && err == nil {
			out = append(out, RawList{Key: k, Values: l})
		}
	}
	return out
}

// RawObject is one JSON object of a config.json. JSON null counts as absent; a value of
// another kind than asked for is an error naming the key's path, which wraps ErrConfig and
// whose message is the path and the problem alone, for the reader to put in its own.
type RawObject struct {
	path string
	m    object
	// next is looked up for a key m lacks: the object holding a nested text model.
	next *RawObject
}

// get returns key's value and its path, from o or the objects it falls back to.
func (o RawObject) get(key string) (string, any, bool) {
	for c := &o; c != nil; c = c.next {
		if v, ok := c.m[key]; ok && v != nil {
			return node{path: c.path}.key(key), v, true
		}
	}
	return "", nil, false
}

// Has reports whether the config gives key (not null).
func (o RawObject) Has(key string) bool {
	_, _, ok := o.get(key)
	return ok
}

// Object is key's object; the zero RawObject, which has no keys, when key is absent.
func (o RawObject) Object(key string) (RawObject, error) {
	path, v, ok := o.get(key)
	if !ok {
		return RawObject{}, nil
	}
	m, isObject := v.(object)
	if !isObject {
		return RawObject{}, rawError{fmt.Sprintf("%s: want a JSON object, got %s", path, describe(v))}
	}
	return RawObject{path: path, m: m}, nil
}

// TextConfig is the object's nested text_config; the zero RawObject when it has none.
func (o RawObject) TextConfig() (RawObject, error) { return o.Object("text_config") }

// String is key's string; ok is false when key is absent.
func (o RawObject) String(key string) (s string, ok bool, err error) {
	path, v, ok := o.get(key)
	if !ok {
		return "", false, nil
	}
	s, isString := v.(string)
	if !isString {
		return "", false, rawError{fmt.Sprintf("%s: want a string, got %s", path, describe(v))}
	}
	return s, true, nil
}

// Number is key's number, which must be finite; ok is false when key is absent.
func (o RawObject) Number(key string) (f float64, ok bool, err error) {
	path, v, ok := o.get(key)
	if !ok {
		return 0, false, nil
	}
	n, isNumber := v.(json.Number)
	if !isNumber {
		return 0, false, rawError{fmt.Sprintf("%s: want a number, got %s", path, describe(v))}
	}
	f, perr := strconv.ParseFloat(string(n), 64)
	if perr != nil || math.IsInf(f, 0) {
		return 0, false, rawError{fmt.Sprintf("%s: %s: want a finite number", path, n)}
	}
	return f, true, nil
}

// lenientNumber is Number with an error read as absent.
func (o RawObject) lenientNumber(key string) (float64, bool) {
	f, ok, err := o.Number(key)
	return f, ok && err == nil
}

// List is key's list, its numbers decoded as float64 (encoding/json's default; a number past
// float64 stays a json.Number); ok is false when key is absent.
func (o RawObject) List(key string) (l []any, ok bool, err error) {
	path, v, ok := o.get(key)
	if !ok {
		return nil, false, nil
	}
	a, isList := v.([]any)
	if !isList {
		return nil, false, rawError{fmt.Sprintf("%s: want a list, got %s", path, describe(v))}
	}
	out := make([]any, len(a))
	for i, e := range a {
		out[i] = e
		if n, isNumber := e.(json.Number); isNumber {
			if f, err := strconv.ParseFloat(string(n), 64); err == nil && !math.IsInf(f, 0) {
				out[i] = f
			}
		}
	}
	return out, true, nil
}

// rawError is an error of the raw view: it wraps ErrConfig, and its message is the problem
// alone.
type rawError struct{ msg string }

func (e rawError) Error() string { return e.msg }

func (e rawError) Unwrap() error { return ErrConfig }
