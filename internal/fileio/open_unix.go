//go:build unix

package fileio

import (
	"os"

	"golang.org/x/sys/unix"
)

// openFlags: O_NONBLOCK makes opening a pipe that has no writer return at once (opening a
// device may block too); O_NOCTTY keeps a terminal opened by mistake from becoming ours.
// Both are refused by the fstat that follows.
const openFlags = unix.O_NONBLOCK | unix.O_NOCTTY

// blocking clears O_NONBLOCK once the file is known to be regular: it means nothing for
// regular files on most systems, but where mandatory locks exist a read could fail with
// EAGAIN instead of waiting.
func blocking(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = unix.SetNonblock(int(fd), false) }); err != nil {
		return err
	}
	return serr
}
