package fileio

import (
	"bytes"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rotary-go/rotary/internal/fileio/fileiotest"
)

func TestOpenRefusesAllButRegularFiles(t *testing.T) {
	for _, c := range []struct {
		name, kind string
		path       func(t *testing.T) string
	}{
		{"named pipe", "a named pipe", func(t *testing.T) string { return fileiotest.FIFO(t) }},
		{"device", "a character device", func(t *testing.T) string { return fileiotest.DevZero(t) }},
		{"directory", "a directory", func(t *testing.T) string { return t.TempDir() }},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := c.path(t)
			fifo := ""
			if c.name == "named pipe" {
				fifo = p
			}
			var err, rerr error
			fileiotest.Returns(t, 5*time.Second, fifo, func() {
				var f *os.File
				if f, _, err = Open(p, -1); err == nil {
					f.Close()
				}
				_, rerr = ReadFile(p, 1<<20)
			})
			for _, e := range []error{err, rerr} {
				if !errors.Is(e, ErrNotRegular) || !strings.Contains(e.Error(), p) || !strings.Contains(e.Error(), c.kind) {
					t.Errorf("got %v, want ErrNotRegular naming %s and saying it is %s", e, p, c.kind)
				}
			}
		})
	}
}

// TestOpenFollowsSymlinks: an input may be a link to a regular file (the Hugging Face
// cache's snapshots are); only outputs refuse links.
func TestOpenFollowsSymlinks(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "blob")
	if err := os.WriteFile(real, []byte(`{"a":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "config.json")
	if err := os.Symlink(real, link); err != nil {
		t.Skipf("no symbolic links: %v", err)
	}
	if b, err := ReadFile(link, 64); err != nil || string(b) != `{"a":1}` {
		t.Errorf("ReadFile(link) = %q, %v", b, err)
	}
}

func TestReadFileLimit(t *testing.T) {
	dir := t.TempDir()
	const limit = 64 << 20
	over := fileiotest.Sparse(t, dir, "over", []byte("x"), limit+1)
	var err error
	if n := fileiotest.Allocated(func() { _, err = ReadFile(over, limit) }); n > 1<<20 {
		t.Errorf("refusing a file over the limit allocated %d bytes", n)
	}
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), over) || !strings.Contains(err.Error(), "64 MiB") {
		t.Errorf("ReadFile(limit+1) = %v, want ErrTooLarge naming the path and the limit", err)
	}
	if _, _, err := Open(over, limit); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Open(limit+1) = %v, want ErrTooLarge", err)
	}
	at := fileiotest.Sparse(t, dir, "at", []byte("x"), limit)
	if b, err := ReadFile(at, limit); err != nil || len(b) != limit || b[0] != 'x' {
		t.Errorf("ReadFile(at the limit) = %d bytes, %v", len(b), err)
	}
	if b, err := ReadFile(at, -1); err != nil || len(b) != limit {
		t.Errorf("ReadFile(no limit) = %d bytes, %v", len(b), err)
	}
	empty := fileiotest.Sparse(t, dir, "empty", nil, 0)
	if b, err := ReadFile(empty, 0); err != nil || len(b) != 0 {
		t.Errorf("ReadFile(empty) = %q, %v", b, err)
	}
}

// TestReadFileSizeIsAHint: files in /proc say they are empty and are not; the limit holds
// on the bytes read, not on the size reported.
func TestReadFileSizeIsAHint(t *testing.T) {
	const p = "/proc/self/maps"
	if fi, err := os.Stat(p); err != nil || fi.Size() != 0 || !fi.Mode().IsRegular() {
		t.Skip("no /proc here")
	}
	b, err := ReadFile(p, -1)
	if err != nil || len(b) < 64 {
		t.Fatalf("ReadFile(%s) = %d bytes, %v", p, len(b), err)
	}
	if _, err := ReadFile(p, 16); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFile(%s, 16) = %v, want ErrTooLarge", p, err)
	}
}

// modes runs f once on each way Create can make the new file, skipping the unnamed one
// where the system or the test's filesystem has none.
func modes(t *testing.T, f func(t *testing.T, unnamed bool)) {
	for _, unnamed := range []bool{true, false} {
		name := "portable"
		if unnamed {
			name = "unnamed"
		}
		t.Run(name, func(t *testing.T) {
			defer func(v bool) { TmpfileEnabled = v }(TmpfileEnabled)
			TmpfileEnabled = unnamed
			if unnamed {
				f, err := openUnnamed(t.TempDir(), "probe", 0o600)
				if err != nil {
					t.Skipf("no unnamed files here: %v", err)
				}
				f.Close()
			}
			f(t, unnamed)
		})
	}
}

// wantTemps checks how many temporary names the directory holds, and that every one is
// registered for RemoveTemps.
func wantTemps(t *testing.T, dir string, n int) {
	t.Helper()
	var got int
	for _, name := range fileiotest.DirNames(t, dir) {
		if strings.Contains(name, ".tmp") {
			got++
			temps.Lock()
			_, ok := temps.names[filepath.Join(dir, name)]
			temps.Unlock()
			if !ok {
				t.Errorf("%s is not registered for RemoveTemps", name)
			}
		}
	}
	if got != n {
		t.Errorf("directory holds %d temporary files (%q), want %d", got, fileiotest.DirNames(t, dir), n)
	}
}

func TestCreateNew(t *testing.T) {
	modes(t, func(t *testing.T, unnamed bool) {
		dir := t.TempDir()
		p := filepath.Join(dir, "out.safetensors")
		r, err := Create(p, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Abort()
		if _, err := r.Write([]byte("new")); err != nil {
			t.Fatal(err)
		}
		// While it is written, the unnamed file is nowhere; the portable one is a
		// temporary name, registered.
		if unnamed {
			if names := fileiotest.DirNames(t, dir); len(names) != 0 {
				t.Errorf("directory holds %q while writing", names)
			}
		} else {
			wantTemps(t, dir, 1)
		}
		if err := r.Commit(); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); string(b) != "new" {
			t.Errorf("content %q", b)
		}
		if fi, _ := os.Stat(p); fi.Mode() != 0o644 {
			t.Errorf("mode %v, want 0644 whatever the umask", fi.Mode())
		}
		if names := fileiotest.DirNames(t, dir); len(names) != 1 {
			t.Errorf("directory holds %q after Commit", names)
		}
		if err := r.Commit(); err == nil {
			t.Error("a second Commit succeeded")
		}
		r.Abort() // after Commit: does nothing
		if b, _ := os.ReadFile(p); string(b) != "new" {
			t.Errorf("Abort after Commit: content %q", b)
		}
	})
}

func TestCreateReplaces(t *testing.T) {
	modes(t, func(t *testing.T, unnamed bool) {
		dir := t.TempDir()
		p := filepath.Join(dir, "out")
		if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		r, err := Create(p, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		r.Write([]byte("new"))
		if b, _ := os.ReadFile(p); string(b) != "old" {
			t.Errorf("content %q before Commit", b)
		}
		if err := r.Commit(); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); string(b) != "new" {
			t.Errorf("content %q", b)
		}
		if fi, _ := os.Stat(p); fi.Mode() != 0o600 {
			t.Errorf("mode %v, want the old file's 0600", fi.Mode())
		}
		if names := fileiotest.DirNames(t, dir); len(names) != 1 {
			t.Errorf("directory holds %q", names)
		}
	})
}

// TestCreateAppearedMeanwhile: a regular file that appears at path during the write is
// replaced; anything else is refused at Commit.
func TestCreateAppearedMeanwhile(t *testing.T) {
	modes(t, func(t *testing.T, unnamed bool) {
		dir := t.TempDir()
		p := filepath.Join(dir, "out")
		r, err := Create(p, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		r.Write([]byte("new"))
		os.WriteFile(p, []byte("other"), 0o644)
		if err := r.Commit(); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); string(b) != "new" {
			t.Errorf("content %q", b)
		}
		if names := fileiotest.DirNames(t, dir); len(names) != 1 {
			t.Errorf("directory holds %q", names)
		}

		q := filepath.Join(dir, "link")
		r, err = Create(q, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		r.Write([]byte("new"))
		if err := os.Symlink(p, q); err != nil {
			t.Skipf("no symbolic links: %v", err)
		}
		if err := r.Commit(); !errors.Is(err, ErrNotRegular) {
			t.Errorf("Commit over a link that appeared = %v, want ErrNotRegular", err)
		}
		if fi, err := os.Lstat(q); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("link now %v, %v", fi, err)
		}
		if names := fileiotest.DirNames(t, dir); len(names) != 2 {
			t.Errorf("directory holds %q", names)
		}
		wantTemps(t, dir, 0)
	})
}

// TestCreateFailureLeavesNothing: Abort and a failed Commit leave the directory as it was.
func TestCreateFailureLeavesNothing(t *testing.T) {
	modes(t, func(t *testing.T, unnamed bool) {
		dir := t.TempDir()
		old := filepath.Join(dir, "old")
		os.WriteFile(old, []byte("old"), 0o644)
		for _, p := range []string{filepath.Join(dir, "new"), old} {
			r, err := Create(p, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			r.Write([]byte("partial"))
			r.Abort()
			if err := r.Commit(); err == nil {
				t.Error("Commit after Abort succeeded")
			}
		}
		// Commit fails when path turned into a directory meanwhile.
		p := filepath.Join(dir, "sub")
		r, err := Create(p, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		r.Write([]byte("partial"))
		os.Mkdir(p, 0o755)
		if err := r.Commit(); !errors.Is(err, ErrNotRegular) {
			t.Errorf("Commit over a directory = %v", err)
		}
		if names := fileiotest.DirNames(t, dir); strings.Join(names, ",") != "old,sub" {
			t.Errorf("directory holds %q", names)
		}
		if b, _ := os.ReadFile(old); string(b) != "old" {
			t.Errorf("old file now %q", b)
		}
		if _, err := Create(filepath.Join(dir, "missing", "x"), 0o644); err == nil {
			t.Error("Create in a missing directory succeeded")
		}
	})
}

func TestCreateRefusesAllButRegularFiles(t *testing.T) {
	modes(t, func(t *testing.T, unnamed bool) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "real"), []byte("keep"), 0o644)
		sub := filepath.Join(dir, "sub")
		os.Mkdir(sub, 0o755)
		paths := []string{sub, fileiotest.FIFO(t)}
		for _, l := range []struct{ name, to string }{{"link", "real"}, {"dangling", "nowhere"}} {
			p := filepath.Join(dir, l.name)
			if err := os.Symlink(l.to, p); err == nil {
				paths = append(paths, p)
			}
		}
		before := fileiotest.DirNames(t, dir)
		for _, p := range paths {
			r, err := Create(p, 0o644)
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), p) || r != nil {
				t.Errorf("Create(%s) = %v, want ErrNotRegular naming it", p, err)
			}
		}
		if after := fileiotest.DirNames(t, dir); strings.Join(after, ",") != strings.Join(before, ",") {
			t.Errorf("directory held %q, now %q", before, after)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "real")); string(b) != "keep" {
			t.Errorf("link target now %q", b)
		}
	})
}

// TestRemoveTemps: what a signal handler calls removes the portable path's temporary
// file, and no new one is made after it.
func TestRemoveTemps(t *testing.T) {
	defer func(v bool) { TmpfileEnabled = v }(TmpfileEnabled)
	TmpfileEnabled = false
	defer func() {
		temps.Lock()
		temps.closed = false
		temps.Unlock()
	}()
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	r, err := Create(p, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	r.Write(bytes.Repeat([]byte("x"), 1<<10))
	wantTemps(t, dir, 1)
	RemoveTemps()
	if names := fileiotest.DirNames(t, dir); len(names) != 0 {
		t.Errorf("directory holds %q after RemoveTemps", names)
	}
	if _, err := Create(filepath.Join(dir, "later"), 0o644); !errors.Is(err, errExiting) {
		t.Errorf("Create after RemoveTemps = %v, want errExiting", err)
	}
	if err := r.Commit(); err == nil {
		t.Error("Commit of a removed temporary file succeeded")
	}
	if names := fileiotest.DirNames(t, dir); len(names) != 0 {
		t.Errorf("directory holds %q", names)
	}
}

// TestReadFileNoLimit: the largest limit does not overflow the read bound.
func TestReadFileNoLimit(t *testing.T) {
	p := filepath.Join(t.TempDir(), "small")
	if err := os.WriteFile(p, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := ReadFile(p, math.MaxInt64)
	if err != nil || string(b) != "hello" {
		t.Errorf("ReadFile with limit MaxInt64: %q, %v", b, err)
	}
}
