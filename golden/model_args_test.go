package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// TestModelArgsOneReading: the config's bytes are read once. A Model's JSON (what its bundle's
// config_sha256 hashes) and every layer its Load reads come from the same bytes, and so do
// CheckConfig and Load of args pinned by Pin, however the file changes in between: a bundle
// must never pair one config's hash with another config's RoPE.
func TestModelArgsOneReading(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	first := []byte(`{"model_type": "llama", "hidden_size": 512, "num_attention_heads": 4, "rope_theta": 10000}`)
	second := []byte(`{"model_type": "llama", "hidden_size": 512, "num_attention_heads": 4, "rope_theta": 500000}`)
	if err := os.WriteFile(path, first, 0o644); err != nil {
		t.Fatal(err)
	}
	a := ModelArgs{Config: path}
	m, err := a.Model()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, second, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, spec, err := m.Load(0); err != nil || spec.Base != 10000 {
		t.Errorf("Model().Load(0) after the file changed: base %v, %v; want 10000, the bytes Model hashed", spec.Base, err)
	}
	if ConfigSum(m.JSON) != ConfigSum(first) {
		t.Errorf("Model().JSON is not the first reading")
	}

	pinned, err := a.Pin()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, first, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := pinned.CheckConfig(map[string]string{"config_sha256": ConfigSum(second)}); err != nil {
		t.Errorf("pinned CheckConfig against the pinned bytes' hash: %v", err)
	}
	if _, spec, err := pinned.Load(); err != nil || spec.Base != 500000 {
		t.Errorf("pinned Load after the file changed: base %v, %v; want 500000, the pinned bytes", spec.Base, err)
	}
	// Pinning a preset, or args that fail to read, is what reading them gives.
	if p, err := (ModelArgs{Preset: "llama-3.1-8b"}).Pin(); err != nil || !p.pinned || len(p.json) == 0 {
		t.Errorf("Pin of a preset: %d bytes, %v", len(p.json), err)
	}
	if _, err := (ModelArgs{Config: filepath.Join(dir, "missing.json")}).Pin(); err == nil {
		t.Error("Pin of a missing file: no error")
	}
}
