package hf

import (
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
