package fileio

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// openTmpfile is unix.Open, replaceable to test the fallback on each errno.
var openTmpfile = unix.Open

// openUnnamed makes an unnamed regular file in dir, called name in error messages.
func openUnnamed(dir, name string, perm fs.FileMode) (*os.File, error) {
	var fd int
	var err error
	for {
		fd, err = openTmpfile(dir, unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, uint32(perm.Perm()))
		if err != unix.EINTR {
			break
		}
	}
	switch err {
	case nil:
	case unix.EOPNOTSUPP, unix.EISDIR, unix.EINVAL:
		// EISDIR: kernels before 3.11 ignore O_TMPFILE and see O_DIRECTORY|O_WRONLY.
		return nil, errNoTmpfile
	default:
		return nil, &fs.PathError{Op: "create", Path: name, Err: err}
	}
	// Without /proc the file could be written but never named: find out before writing.
	if err := unix.Access(procPath(fd), unix.F_OK); err != nil {
		unix.Close(fd)
		return nil, errNoTmpfile
	}
	return os.NewFile(uintptr(fd), name), nil
}

func procPath(fd int) string { return "/proc/self/fd/" + strconv.Itoa(fd) }

// linkat gives the unnamed file the name to; it fails with EEXIST if to exists.
func (r *Replacement) linkat(to string) error {
	rc, err := r.f.SyscallConn()
	if err != nil {
		return err
	}
	var lerr error
	if err := rc.Control(func(fd uintptr) {
		lerr = unix.Linkat(unix.AT_FDCWD, procPath(int(fd)), unix.AT_FDCWD, to, unix.AT_SYMLINK_FOLLOW)
	}); err != nil {
		return err
	}
	if lerr != nil {
		return &os.LinkError{Op: "link", Old: r.path + " (unnamed new file)", New: to, Err: lerr}
	}
	return nil
}

// linkUnnamed puts the synced unnamed file in place of path (see Create for why this way).
func (r *Replacement) linkUnnamed() error {
	if !r.existed {
		err := r.linkat(r.path)
		if err == nil {
			r.close()
			return nil
		}
		if !errors.Is(err, unix.EEXIST) {
			return err
		}
	}
	if _, _, err := replaceable(r.path); err != nil {
		return err
	}
	temp, err := newTemp(func() (string, error) {
		var err error
		for range 10000 { // as many tries as os.CreateTemp makes
			name := filepath.Join(r.dir, "."+r.base+".tmp"+strconv.FormatUint(uint64(rand.Uint32()), 10))
			if err = r.linkat(name); err == nil {
				return name, nil
			}
			if !errors.Is(err, unix.EEXIST) {
				break
			}
		}
		return "", err
	})
	if err != nil {
		return err
	}
	r.temp = temp
	r.close() // the data is synced: a failure to close cannot lose it
	return r.renameOver()
}
