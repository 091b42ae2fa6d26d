package hf

import (
	"embed"
	"io/fs"
	"slices"
	"strings"
)

// The presets are the RoPE-relevant keys of published config.json files, values as
// published; "_name_or_path" names the HF repository each came from.
//
//go:embed presets/*.json
var presetFS embed.FS

// PresetNames returns the names of the embedded model configs, sorted.
func PresetNames() []string {
	entries, err := fs.ReadDir(presetFS, "presets")
	if err != nil {
		return nil // unreachable: the directory is embedded
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".json"); ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// PresetJSON returns a copy of the embedded config.json of preset name.
func PresetJSON(name string) ([]byte, error) {
	key := strings.ToLower(strings.TrimSuffix(name, ".json"))
	if key == "" || strings.ContainsAny(key, `/\`) {
		return nil, unknownPreset(name)
	}
	data, err := presetFS.ReadFile("presets/" + key + ".json")
	if err != nil {
		return nil, unknownPreset(name)
	}
	return data, nil // embed.FS returns a fresh slice on every read
}

// Preset parses the embedded config of preset name.
func Preset(name string) (*Model, error) { return ParseOptions{}.Preset(name) }

func unknownPreset(name string) error {
	return configErr("unknown preset %q; known: %s", name, strings.Join(PresetNames(), ", "))
}
