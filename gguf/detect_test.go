package gguf

import (
	"os"
	"path/filepath"
	"testing"
)

// TestIsFile: a .gguf name is one whatever it holds (ReadFile says what is wrong with it), any
// other path is one when it is a regular file starting with the magic.
func TestIsFile(t *testing.T) {
	dir := t.TempDir()
	b, err := Write([]KV{{Key: "general.architecture", Value: Str("llama")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for path, want := range map[string]bool{
		write("model.bin", b):              true,
		write("config.json", []byte(`{}`)): false,
		write("short", []byte("GGU")):      false,
		write("empty.GGUF", nil):           true,
		filepath.Join(dir, "missing.gguf"): true,
		filepath.Join(dir, "missing.bin"):  false,
		dir:                                false,
		"":                                 false,
	} {
		if got := IsFile(path); got != want {
			t.Errorf("IsFile(%q) = %v, want %v", path, got, want)
		}
	}
}
