package gguf

import (
	"io"
	"os"
	"strings"
)

// IsFile reports whether path names a GGUF file: its name ends in .gguf (in any case), whether
// or not it exists, so that ReadFile says what is wrong with it; or it is a regular file that
// starts with Magic. It reads at most four bytes; a path it cannot read is not one.
func IsFile(path string) bool {
	if path == "" {
		return false
	}
	if strings.HasSuffix(strings.ToLower(path), ".gguf") {
		return true
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	fh, err := os.Open(path)
	if err != nil {
		return false
	}
	defer fh.Close()
	var magic [4]byte
	_, err = io.ReadFull(fh, magic[:])
	return err == nil && string(magic[:]) == Magic
}
