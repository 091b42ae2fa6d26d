package fileio

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/rotary-go/rotary/internal/fileio/fileiotest"
	"golang.org/x/sys/unix"
)

// TestUnnamedFallback: the errors that mean "this filesystem cannot" send Create to the
// portable path; any other is the caller's to see.
func TestUnnamedFallback(t *testing.T) {
	defer func(f func(string, int, uint32) (int, error)) { openTmpfile = f }(openTmpfile)
	for _, c := range []struct {
		errno    error
		fallback bool
	}{
		{unix.EOPNOTSUPP, true}, {unix.EISDIR, true}, {unix.EINVAL, true},
		{unix.EACCES, false}, {unix.ENOSPC, false},
	} {
		openTmpfile = func(string, int, uint32) (int, error) { return -1, c.errno }
		dir := t.TempDir()
		p := filepath.Join(dir, "out")
		r, err := Create(p, 0o644)
		if !c.fallback {
			if !errors.Is(err, c.errno) {
				t.Errorf("%v: Create = %v, want that error", c.errno, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: Create = %v, want the portable path", c.errno, err)
		}
		wantTemps(t, dir, 1)
		r.Write([]byte("new"))
		if err := r.Commit(); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); string(b) != "new" {
			t.Errorf("%v: content %q", c.errno, b)
		}
		wantTemps(t, dir, 0)
	}
}

// TestUnnamedSurvivesSIGKILL: a process killed mid-write leaves nothing in the directory,
// where the portable path leaves its temporary file (which only a handler for the signals
// that can be caught removes).
func TestUnnamedSurvivesSIGKILL(t *testing.T) {
	if p := os.Getenv("FILEIO_TEST_KILL_CHILD"); p != "" {
		TmpfileEnabled = os.Getenv("FILEIO_TEST_UNNAMED") == "1"
		r, err := Create(p, 0o644)
		if err != nil {
			os.Stdout.WriteString("error " + err.Error() + "\n")
			os.Exit(3)
		}
		r.Write(make([]byte, 1<<20))
		os.Stdout.WriteString("writing\n")
		select {} // until killed
	}
	if f, err := openUnnamed(t.TempDir(), "probe", 0o600); err != nil {
		t.Skipf("no unnamed files here: %v", err)
	} else {
		f.Close()
	}
	for _, unnamed := range []bool{true, false} {
		dir := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run=^TestUnnamedSurvivesSIGKILL$")
		cmd.Env = append(os.Environ(), "FILEIO_TEST_KILL_CHILD="+filepath.Join(dir, "out"))
		if unnamed {
			cmd.Env = append(cmd.Env, "FILEIO_TEST_UNNAMED=1")
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil || line != "writing\n" {
			cmd.Process.Kill()
			t.Fatalf("child said %q, %v", line, err)
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		names := fileiotest.DirNames(t, dir)
		if unnamed && len(names) != 0 {
			t.Errorf("unnamed: killed mid-write, the directory holds %q", names)
		}
		if !unnamed && len(names) != 1 {
			t.Errorf("portable: killed mid-write, the directory holds %q, want the temporary file", names)
		}
	}
}
