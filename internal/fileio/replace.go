package fileio

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// TmpfileEnabled turns the unnamed-file path of Create off, so tests can run the portable
// path on systems that have both.
var TmpfileEnabled = true

// errNoTmpfile: the system or the filesystem cannot make an unnamed file that can be
// linked into place; Create takes the portable path instead.
var errNoTmpfile = errors.New("no O_TMPFILE here")

// Replacement is a new file being written to replace a path. Write to it, then Commit to
// put it in place; Abort, safe to defer, drops it unless it was committed.
type Replacement struct {
	f         *os.File
	path      string
	dir, base string
	perm      fs.FileMode
	existed   bool   // path was a regular file when Create looked
	temp      string // the file's temporary name while it has one; "" when unnamed
	closed    bool
	done      bool
}

// Create starts replacing the file at path with a new one. perm is the mode of a new file;
// an existing one keeps its permission bits. A path that exists and is not a regular file
// is refused with an error wrapping ErrNotRegular that names it; it is looked at with
// Lstat, so a symbolic link is refused too, never followed or replaced by a regular file.
//
// On Linux the new file is made unnamed (open O_TMPFILE in path's directory), so until
// Commit there is nothing to leave behind: a process killed while writing, even by
// SIGKILL, leaves the directory as it was. Commit names it with linkat through
// /proc/self/fd. linkat never replaces a name, so where path does not exist Commit links
// the file straight to it, an atomic create with no other name at any time; where it does
// (or appeared meanwhile: linkat fails with EEXIST), Commit links the file to a fresh
// temporary name beside path and renames that over path, because rename is the only
// atomic replace and it moves a name, which an unnamed file has not. That temporary name
// exists only between the two calls, for a file already complete and synced.
//
// Elsewhere, and where the filesystem cannot make unnamed files (O_TMPFILE fails with
// EOPNOTSUPP, EISDIR or EINVAL, or /proc is not mounted to link through), the file is
// written under a temporary name ".BASE.tmpNNN" beside path and renamed over it by Commit.
//
// Temporary names are recorded while they exist so RemoveTemps can delete them.
func Create(path string, perm fs.FileMode) (*Replacement, error) {
	cur, existed, err := replaceable(path)
	if err != nil {
		return nil, err
	}
	if existed {
		perm = cur
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	r := &Replacement{path: path, dir: dir, base: base, perm: perm, existed: existed}
	if TmpfileEnabled {
		r.f, err = openUnnamed(dir, path, perm)
		if err == nil {
			return r, nil
		}
		if !errors.Is(err, errNoTmpfile) {
			return nil, err
		}
	}
	r.temp, err = newTemp(func() (string, error) {
		f, err := os.CreateTemp(dir, "."+base+".tmp*")
		if err != nil {
			return "", err
		}
		r.f = f
		return f.Name(), nil
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Write writes to the new file.
func (r *Replacement) Write(p []byte) (int, error) { return r.f.Write(p) }

// Commit syncs the new file and puts it in place of path. On error path is left as it was
// and the new file is dropped.
func (r *Replacement) Commit() (err error) {
	if r.done {
		return fmt.Errorf("%s: replacement already committed or aborted", r.path)
	}
	defer func() {
		if err != nil {
			r.Abort()
		}
		r.done = true
	}()
	if err := r.f.Chmod(r.perm); err != nil {
		return err
	}
	if err := r.f.Sync(); err != nil {
		return err
	}
	if r.temp == "" {
		return r.linkUnnamed()
	}
	if err := r.close(); err != nil {
		return err
	}
	return r.renameOver()
}

// Abort drops the new file, unless Commit has already put it in place.
func (r *Replacement) Abort() {
	if r.done {
		return
	}
	r.done = true
	r.close()
	if r.temp != "" {
		dropTemp(r.temp, true)
		r.temp = ""
	}
}

func (r *Replacement) close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	return r.f.Close()
}

// renameOver moves the temporary name over path, after looking at path again: the write
// may have taken long enough for it to have become something that must not be replaced.
func (r *Replacement) renameOver() error {
	if _, _, err := replaceable(r.path); err != nil {
		return err
	}
	if err := os.Rename(r.temp, r.path); err != nil {
		return err
	}
	dropTemp(r.temp, false)
	r.temp = ""
	return nil
}

// replaceable reports whether path may be replaced by a regular file: it does not exist,
// or it is one (then with its permission bits).
func replaceable(path string) (perm fs.FileMode, exists bool, err error) {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return 0, false, nil
	case err != nil:
		return 0, false, err
	case !fi.Mode().IsRegular():
		return 0, false, fmt.Errorf("%s: %w (%s), refusing to replace it", path, ErrNotRegular, describe(fi.Mode()))
	}
	return fi.Mode().Perm(), true, nil
}

// temps holds the temporary names in existence, for RemoveTemps.
var temps = struct {
	sync.Mutex
	names  map[string]struct{}
	closed bool // RemoveTemps ran: make no more
}{names: map[string]struct{}{}}

var errExiting = errors.New("not creating a temporary file: the process is exiting")

// newTemp runs create, which makes a file and returns its name, and records the name, both
// under the lock, so a file is never made that RemoveTemps could miss.
func newTemp(create func() (string, error)) (string, error) {
	temps.Lock()
	defer temps.Unlock()
	if temps.closed {
		return "", errExiting
	}
	name, err := create()
	if err != nil {
		return "", err
	}
	temps.names[name] = struct{}{}
	return name, nil
}

// dropTemp forgets a temporary name, removing the file first if remove is set.
func dropTemp(name string, remove bool) {
	temps.Lock()
	defer temps.Unlock()
	if remove {
		os.Remove(name)
	}
	delete(temps.names, name)
}

// RemoveTemps removes the temporary files of every replacement in progress and makes later
// attempts to create one fail, so a process about to exit leaves none behind. It is for a
// SIGINT or SIGTERM handler that exits next. Unnamed files need nothing: the kernel frees
// them with the process.
func RemoveTemps() {
	temps.Lock()
	defer temps.Unlock()
	temps.closed = true
	for name := range temps.names {
		os.Remove(name)
		delete(temps.names, name)
	}
}

// WriteFile replaces path (see Create) with what write puts through a buffered writer; on any
// error path is left as it was.
func WriteFile(path string, perm fs.FileMode, write func(w io.Writer) error) error {
	out, err := Create(path, perm)
	if err != nil {
		return err
	}
	defer out.Abort()
	bw := bufio.NewWriterSize(out, 1<<20)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return out.Commit()
}
