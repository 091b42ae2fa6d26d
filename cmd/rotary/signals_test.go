//go:build unix

package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/rotary-go/rotary/internal/fileio"
	"github.com/rotary-go/rotary/internal/fileio/fileiotest"
)

// TestSignalRemovesTemp: SIGINT or SIGTERM while --out is written under a temporary name
// (the portable path) removes it and exits 130 or 143.
func TestSignalRemovesTemp(t *testing.T) {
	if out := os.Getenv("ROTARY_TEST_SIGNAL_CHILD"); out != "" {
		fileio.TmpfileEnabled = false
		removeTempsOnSignal()
		r, err := fileio.Create(out, 0o644)
		if err != nil {
			os.Stdout.WriteString("error " + err.Error() + "\n")
			os.Exit(3)
		}
		r.Write(make([]byte, 1<<20))
		os.Stdout.WriteString("writing\n")
		select {} // until the signal
	}
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		dir := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run=^TestSignalRemovesTemp$")
		cmd.Env = append(os.Environ(), "ROTARY_TEST_SIGNAL_CHILD="+filepath.Join(dir, "out.safetensors"))
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
		if names := fileiotest.DirNames(t, dir); len(names) != 1 {
			t.Errorf("while writing, the directory holds %q, want the temporary file", names)
		}
		cmd.Process.Signal(c.sig)
		err = cmd.Wait()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != c.code {
			t.Errorf("%v: child ended with %v, want exit %d", c.sig, err, c.code)
		}
		if names := fileiotest.DirNames(t, dir); len(names) != 0 {
			t.Errorf("%v: the directory holds %q after the signal", c.sig, names)
		}
	}
}
