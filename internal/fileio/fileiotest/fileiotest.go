// Package fileiotest makes the awkward files the loaders must refuse (named pipes, devices,
// sparse files far larger than their contents) and measures what a call costs, for the
// tests of every package that opens files.
package fileiotest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// FIFO makes a named pipe in a fresh temporary directory, or skips the test where the
// system has none.
func FIFO(t testing.TB) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fifo")
	if err := mkfifo(p); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	return p
}

// DevZero returns /dev/zero, or skips the test where it does not exist.
func DevZero(t testing.TB) string {
	t.Helper()
	const p = "/dev/zero"
	if fi, err := os.Stat(p); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Skip("no /dev/zero here")
	}
	return p
}

// Sparse writes prefix at the start of a new file called name in dir and extends it to size
// bytes without writing the rest, so a file of gigabytes costs nothing on disk.
func Sparse(t testing.TB, dir, name string, prefix []byte, size int64) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, prefix, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, size); err != nil {
		t.Fatal(err)
	}
	return p
}

// Allocated returns how many bytes of heap f allocates. Run it outside parallel tests:
// other goroutines' allocations count too.
func Allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Returns runs f and fails the test if it has not returned within d. A call blocked
// reading fifo (a path from FIFO, or "") is released by opening the pipe's write end and
// closing it, which the reader sees as end of file, so a failing test still ends.
func Returns(t testing.TB, d time.Duration, fifo string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
		return
	case <-time.After(d):
	}
	t.Errorf("still blocked after %v", d)
	if fifo != "" {
		if w, err := openWriteEnd(fifo); err == nil {
			w.Close()
		}
	}
	<-done
}

// NotRegular runs read on each kind of path a loader must refuse without blocking (a named
// pipe, a device, a directory), each as a subtest named after the kind, and fails the test if
// read blocks; read judges its own result.
func NotRegular(t *testing.T, read func(t *testing.T, path string)) {
	t.Helper()
	for _, kind := range []struct {
		name string
		path func(t *testing.T) string
	}{
		{"named pipe", func(t *testing.T) string { return FIFO(t) }},
		{"device", func(t *testing.T) string { return DevZero(t) }},
		{"directory", func(t *testing.T) string { return t.TempDir() }},
	} {
		t.Run(kind.name, func(t *testing.T) {
			p := kind.path(t)
			fifo := ""
			if kind.name == "named pipe" {
				fifo = p
			}
			Returns(t, 5*time.Second, fifo, func() { read(t, p) })
		})
	}
}

// DirNames lists the names in dir.
func DirNames(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
