package hf

import (
	"fmt"

	"github.com/rotary-go/rotary/rope"
)

// ParseOptions changes how a config.json is read; the zero value reads it as Parse does.
type ParseOptions struct {
	// Style, when not nil, is the pairing the checkpoint's weights use. config.json does not
	// record it: hf takes it from the model_type's family, and assumes NeoX (with a note and
	// Model.StyleAssumed) for a model_type it does not know. A given Style wins over both, and
	// over ChatGLM's original_rope and DeepSeek's rope_interleave, for checkpoints converted
	// to the other layout (Meta's original Llama weights pair (2i, 2i+1)).
	Style *rope.Style
	// Dialect reads the config as the named framework does (dialect.go); the zero value is the
	// reference reading.
	Dialect Dialect
	// Readings, when not nil, replaces Dialect's rule table: each rule given is read with the
	// given choice (Rule's doc lists them), every other rule the reference way. It isolates one
	// rule at a time, as rotary check --frameworks does.
	Readings map[Rule]string
}

// Parse derives a Model from the bytes of a Hugging Face config.json under o. Every error
// wraps ErrConfig and names the key and what was expected; it never panics.
func (o ParseOptions) Parse(data []byte) (*Model, error) {
	choice, err := o.choices()
	if err != nil {
		return nil, err
	}
	top, err := decodeObject(data)
	if err != nil {
		return nil, err
	}
	if o.Dialect == DialectReference && o.Readings == nil {
		p := &parser{opts: o}
		return p.parse(top)
	}
	facts := rewriteConfig(top, choice)
	p := &parser{opts: o}
	m, err := p.parse(top)
	if err != nil {
		return nil, err
	}
	label := o.Dialect.String()
	if o.Readings != nil {
		label = "the given readings"
	}
	adjustModel(m, choice, facts, label)
	if err := m.Spec.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %s reading: %w", ErrConfig, o.Dialect, err)
	}
	return m, nil
}

// LoadFile reads and parses a config.json under o, under LoadFile's rules.
func (o ParseOptions) LoadFile(path string) (*Model, error) {
	data, err := ReadConfig(path)
	if err != nil {
		return nil, err
	}
	m, err := o.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// Preset parses the embedded config of preset name under o.
func (o ParseOptions) Preset(name string) (*Model, error) {
	data, err := PresetJSON(name)
	if err != nil {
		return nil, err
	}
	m, err := o.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("preset %s: %w", name, err)
	}
	return m, nil
}
