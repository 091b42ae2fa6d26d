package golden

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// Preset is the embedded model preset name (hf.PresetNames) as a bundle's Model, read as
// `rotary apply --model NAME` reads it.
func Preset(name string) (Model, error) { return ModelArgs{Preset: name}.Model() }

// Config is the config.json at path (or in the model directory path) as a bundle's Model, read
// as `rotary apply --config PATH` reads it; the bundle names it by its model_type.
func Config(path string) (Model, error) { return ModelArgs{Config: path}.Model() }

// RecordedModel is the model a bundle's apply_args name, read with every model flag they
// record (ReadModelArgs) as `rotary apply --in BUNDLE` reads it, and the recorded --layer: the
// inverse of ModelArgs.Model, for a bundle made from a preset or a config file.
func RecordedModel(applyArgs string) (Model, int, error) {
	a, err := ReadModelArgs(applyArgs)
	if err != nil {
		return Model{}, 0, err
	}
	if a.Config == "" && a.Preset == "" {
		return Model{}, 0, fmt.Errorf("the golden's apply_args name no model (--model or --config)")
	}
	m, err := a.Model()
	if err != nil {
		return Model{}, 0, fmt.Errorf("the golden's apply_args: %w", err)
	}
	return m, a.Layer, nil
}

// modelType is a config's model_type, the name a bundle gives a config's model.
func modelType(config []byte) string {
	var top struct {
		ModelType string `json:"model_type"`
	}
	_ = json.Unmarshal(config, &top) // a config Load has read, or one whose type is missing
	return top.ModelType
}

// ConfigSum is the hex SHA-256 of a config's JSON: a bundle's config_sha256.
func ConfigSum(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
