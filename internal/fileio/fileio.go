// Package fileio is the one place that decides what a path given to rotary may be: every
// file the library's loaders (safetensors.ReadFile, hf.LoadFile) and the CLI read goes
// through Open or ReadFile, and every safetensors file written (safetensors.WriteFile, so
// every --out) goes through Create.
//
// Reading accepts only a regular file. A named pipe would block the reader forever, a
// device such as /dev/zero never ends, and a directory is no input at all, so each is
// refused with an error naming the path. The check is made on the open handle (fstat),
// not on the path beforehand, so the file checked is the file read; on Unix the open
// itself uses O_NONBLOCK, so opening a pipe with no writer returns at once instead of
// waiting for one. The size from the same fstat is what callers check their formats'
// lengths against before allocating anything, and ReadFile refuses a file over its limit
// from the size alone.
//
// Writing replaces a path atomically: readers see the old file or the complete new one,
// never a part, and nothing at all is written when anything fails. An existing path that
// is not a regular file (a symbolic link, a pipe, a device, a directory) is refused rather
// than replaced by a regular file. See Create for how the new file is made and named.
package fileio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is wrapped by the errors for a path that is not a regular file: an input
// that cannot be read as one, or an output that would be replaced by one.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by the error for a file over the caller's size limit.
var ErrTooLarge = errors.New("too large")

// Open opens the regular file at path for reading and returns it with its size. Anything
// else at path is refused with an error wrapping ErrNotRegular, and so is a file larger
// than limit bytes, with one wrapping ErrTooLarge (a negative limit means none). Errors
// name the path.
func Open(path string, limit int64) (*os.File, int64, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, describe(fi.Mode()))
	}
	if limit >= 0 && fi.Size() > limit {
		f.Close()
		return nil, 0, tooLarge(path, fi.Size(), limit)
	}
	if err := blocking(f); err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

// ReadAt opens the regular file at path (see Open, without a size limit) and reads it with
// read, given the file and its size: the loaders of formats that seek to what they need
// rather than read the whole file. read's errors are returned wrapped, prefixed with the path.
func ReadAt[T any](path string, read func(r io.ReaderAt, size int64) (T, error)) (T, error) {
	var zero T
	f, size, err := Open(path, -1)
	if err != nil {
		return zero, err
	}
	defer f.Close()
	v, err := read(f, size)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// ReadFile reads the whole regular file at path, of at most limit bytes (see Open). The
// buffer is sized from the file's size, and reading stops past limit whatever the size
// said, so a file that grows while it is read, or one that reports no size (as in /proc),
// still costs about limit bytes at most (the buffer's last growth may overshoot it by a
// quarter).
func ReadFile(path string, limit int64) ([]byte, error) {
	f, size, err := Open(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, 0, size+1) // +1: EOF is seen without growing the buffer
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		end := cap(buf)
		if limit >= 0 && int64(end)-1 > limit { // end−1, not limit+1: limit may be MaxInt64
			end = int(limit) + 1
		}
		n, err := f.Read(buf[len(buf):end])
		buf = buf[:len(buf)+n]
		if limit >= 0 && int64(len(buf)) > limit {
			return nil, tooLarge(path, int64(len(buf)), limit)
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func tooLarge(path string, size, limit int64) error {
	return fmt.Errorf("%s: %w: %s, more than the %s limit", path, ErrTooLarge, byteCount(size), byteCount(limit))
}

// byteCount says a size the way the limits are usually stated (64 MiB), exact below that.
func byteCount(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// describe names what a non-regular file is, for the error.
func describe(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "an irregular file"
}
