//go:build unix

package fileiotest

import (
	"os"

	"golang.org/x/sys/unix"
)

func mkfifo(path string) error { return unix.Mkfifo(path, 0o600) }

// openWriteEnd does not block: with no reader it fails, with one it succeeds at once.
func openWriteEnd(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|unix.O_NONBLOCK, 0)
}
