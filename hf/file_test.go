package hf

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/internal/fileio/fileiotest"
)

func TestLoadFileNotRegular(t *testing.T) {
	fileiotest.NotRegular(t, func(t *testing.T, p string) {
		if _, err := LoadFile(p); err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("LoadFile(%s) = %v, want an error naming it and saying it is not a regular file", p, err)
		}
	})
}

// TestLoadFileTooLarge: a config.json past the 64 MiB limit is refused from its size, not
// read; one at the limit is read (and fails as the JSON it is).
func TestLoadFileTooLarge(t *testing.T) {
	dir := t.TempDir()
	big := fileiotest.Sparse(t, dir, "big.json", []byte("{}"), 64<<20+1)
	var err error
	if n := fileiotest.Allocated(func() { _, err = LoadFile(big) }); n > 1<<20 {
		t.Errorf("LoadFile allocated %d bytes for a config over the limit", n)
	}
	if err == nil || !strings.Contains(err.Error(), big) || !strings.Contains(err.Error(), "too large") {
		t.Errorf("LoadFile(65 MiB) = %v, want an error naming the file and saying it is too large", err)
	}
	atLimit := fileiotest.Sparse(t, dir, "limit.json", []byte("{}"), 64<<20)
	if _, err := LoadFile(atLimit); err == nil || strings.Contains(err.Error(), "too large") {
		t.Errorf("LoadFile(64 MiB) = %v, want a JSON error", err)
	}
}

// TestLoadModelDirectory: a model directory (as Hugging Face checkpoints are downloaded) reads
// as its config.json, by LoadFile and ReadConfig; a directory without one is refused naming it.
func TestLoadModelDirectory(t *testing.T) {
	dir := t.TempDir()
	data, err := PresetJSON("qwen3-8b")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := LoadFile(dir)
	if err != nil {
		t.Fatalf("LoadFile(DIR): %v", err)
	}
	if m.ModelType != "qwen3" {
		t.Errorf("model type %q", m.ModelType)
	}
	if got, err := ReadConfig(dir); err != nil || string(got) != string(data) {
		t.Errorf("ReadConfig(DIR): %v", err)
	}
	empty := t.TempDir()
	if _, err := LoadFile(empty); err == nil || !strings.Contains(err.Error(), "config.json") {
		t.Errorf("a directory without config.json: %v", err)
	}
}
