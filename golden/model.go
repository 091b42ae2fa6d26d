package golden

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"

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

// RecordedModel is the model a bundle's apply_args name (--model, as Preset reads it, or
// --config, as Config does) and the recorded --layer: the inverse of Preset and Config, for a
// bundle that read its model no other way. Of the flags apply_args record it skips the op's
// (--op, the op's parameters, --backend, --custom-ops) and --strict, which refuses a model
// but never changes one; any other model flag (--as, --style, --dynamic, ...) is an error: a
// reader of those rebuilds the model itself.
func RecordedModel(applyArgs string) (Model, int, error) {
	flags, err := ReadApplyArgs(applyArgs, nil)
	if err != nil {
		return Model{}, 0, err
	}
	var preset, config string
	layer := 0
	for _, f := range flags {
		switch _, isParam := paramOf(f.Name); {
		case f.Name == "model":
			preset = f.Value
		case f.Name == "config":
			config = f.Value
		case f.Name == "layer":
			n, err := strconv.ParseInt(f.Value, 0, strconv.IntSize)
			if err != nil {
				return Model{}, 0, fmt.Errorf("the golden's apply_args: --layer %q: want an integer", f.Value)
			}
			layer = int(n)
		case isParam || f.Name == "op" || f.Name == "backend" || f.Name == "custom-ops" || f.Name == "strict" || f.Name == "rope" && f.Value == "main":
		default:
			return Model{}, 0, fmt.Errorf("the golden's apply_args: %s: a model flag RecordedModel does not read (it reads --model, --config and --layer)", f.Text)
		}
	}
	var m Model
	switch {
	case preset != "" && config != "":
		return Model{}, 0, fmt.Errorf("the golden's apply_args: --config and --model: want one, not both")
	case preset != "":
		m, err = Preset(preset)
	case config != "":
		m, err = Config(config)
	default:
		return Model{}, 0, fmt.Errorf("the golden's apply_args name no model (--model or --config)")
	}
	if err != nil {
		return Model{}, 0, fmt.Errorf("the golden's apply_args: %w", err)
	}
	return m, layer, nil
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
