package golden

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/hf"
)

// Preset is the embedded model preset name (hf.PresetNames) as a bundle's Model, read as
// `rotary apply --model NAME` reads it.
func Preset(name string) (Model, error) {
	data, err := hf.PresetJSON(name)
	if err != nil {
		return Model{}, err
	}
	m, err := hf.Preset(name)
	if err != nil {
		return Model{}, err
	}
	return Model{Name: name, JSON: data, Source: []string{"--model", name}, Load: layers(m)}, nil
}

// Config is the config.json at path (or in the model directory path) as a bundle's Model, read
// as `rotary apply --config PATH` reads it; the bundle names it by its model_type.
func Config(path string) (Model, error) {
	data, err := hf.ReadConfig(path)
	if err != nil {
		return Model{}, err
	}
	m, err := hf.Parse(data)
	if err != nil {
		return Model{}, fmt.Errorf("%s: %w", path, err)
	}
	var top struct {
		ModelType string `json:"model_type"`
	}
	_ = json.Unmarshal(data, &top) // hf has parsed it
	return Model{Name: top.ModelType, JSON: data, Config: path, Source: []string{"--config", path}, Load: layers(m)}, nil
}

// layers is the Load of a parsed model: the attention's RoPE at each of its layers.
func layers(m *hf.Model) func(layer int) (*hf.Model, rotary.Spec, error) {
	return func(layer int) (*hf.Model, rotary.Spec, error) {
		if layer < 0 {
			return nil, rotary.Spec{}, fmt.Errorf("--layer %d: want ≥ 0", layer)
		}
		if m.NumLayers > 0 && layer >= m.NumLayers {
			return nil, rotary.Spec{}, fmt.Errorf("--layer %d: the model has %d layers (0..%d)", layer, m.NumLayers, m.NumLayers-1)
		}
		spec, err := m.Spec.ForLayer(layer)
		if err != nil {
			return nil, rotary.Spec{}, fmt.Errorf("--layer: %v", err)
		}
		return m, spec, nil
	}
}

// ConfigSum is the hex SHA-256 of a config's JSON: a bundle's config_sha256.
func ConfigSum(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
