package hf

import (
	"fmt"

	"github.com/rotary-go/rotary/internal/fileio"
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
}

// Parse derives a Model from the bytes of a Hugging Face config.json under o. Every error
// wraps ErrConfig and names the key and what was expected; it never panics.
func (o ParseOptions) Parse(data []byte) (*Model, error) {
	top, err := decodeObject(data)
	if err != nil {
		return nil, err
	}
	p := &parser{opts: o}
	return p.parse(top)
}

// LoadFile reads and parses a config.json under o, under LoadFile's rules.
func (o ParseOptions) LoadFile(path string) (*Model, error) {
	data, err := fileio.ReadFile(path, MaxConfigSize)
	if err != nil {
		return nil, fmt.Errorf("hf: %w", err)
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
