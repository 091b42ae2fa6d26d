package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/internal/fileio/fileiotest"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// fileCommands are the command lines that read a file, each with the file in one place;
// in and cfg are good inputs for the other places, out a path to write.
func fileCommands(in, posIn, cfg, out string) []struct {
	name string
	args func(p string) []string
} {
	return []struct {
		name string
		args func(p string) []string
	}{
		{"apply --in", func(p string) []string { return []string{"apply", "--model", "llama-3.1-8b", "--in", p, "--out", out} }},
		{"apply --config", func(p string) []string { return []string{"apply", "--config", p, "--in", in, "--out", out} }},
		{"cache --config", func(p string) []string { return []string{"cache", "--config", p, "--positions", "4", "--out", out} }},
		{"inspect", func(p string) []string { return []string{"inspect", p} }},
		{"inspect --config", func(p string) []string { return []string{"inspect", "--config", p} }},
		{"check --config", func(p string) []string { return []string{"check", "--config", p} }},
		{"positions --config", func(p string) []string { return []string{"positions", "--config", p, "--in", posIn, "--out", out} }},
		{"positions --in", func(p string) []string {
			return []string{"positions", "--model", "qwen2-vl-7b", "--in", p, "--out", out}
		}},
		{"diff A", func(p string) []string { return []string{"diff", p, in} }},
		{"diff B", func(p string) []string { return []string{"diff", in, p} }},
		{"verify golden", func(p string) []string { return []string{"verify", p, in} }},
		{"verify candidate", func(p string) []string { return []string{"verify", in, p} }},
		{"show", func(p string) []string { return []string{"show", p} }},
	}
}

// readsTensors: the command line reads the file with readInputSet, which takes a directory
// of .npy files too.
func readsTensors(name string) bool {
	return name == "apply --in" || name == "show" || strings.HasPrefix(name, "diff ") || strings.HasPrefix(name, "verify ")
}

func goodInputs(t *testing.T, dir string) (in, posIn, cfg string) {
	in = writeTensors(t, dir, "good.safetensors",
		safetensors.FromInt64s("positions", []int{2}, []int64{0, 1}),
		encodeAs(tensor.F32, "query", []int{2, 1, 128}, randomHeads(256, 3)))
	posIn = writeTensors(t, dir, "ids.safetensors",
		safetensors.FromInt64s("input_ids", []int{12}, positionsRow()),
		safetensors.FromInt64s("image_grid_thw", []int{1, 3}, []int64{1, 4, 6}))
	return in, posIn, presetConfig(t, dir, "qwen2-vl-7b")
}

// wantOneLine checks a refused command: exit 2, one line on stderr containing every want,
// and out not created.
func wantOneLine(t *testing.T, code int, stderr, out string, want ...string) {
	t.Helper()
	if code != 2 || strings.Count(stderr, "\n") != 1 {
		t.Errorf("exit %d stderr %q: want exit 2 and one line", code, stderr)
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr %q: want it to mention %q", stderr, w)
		}
	}
	if _, err := os.Lstat(out); !os.IsNotExist(err) {
		t.Errorf("--out was created")
	}
}

// TestInputsNotRegular: every file a command reads must be a regular file; a pipe never
// blocks and a device is never read.
func TestInputsNotRegular(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.safetensors")
	in, posIn, cfg := goodInputs(t, dir)
	for _, c := range fileCommands(in, posIn, cfg, out) {
		t.Run(c.name, func(t *testing.T) {
			fileiotest.NotRegular(t, func(t *testing.T, p string) {
				code, _, stderr := runCLI(t, c.args(p)...)
				want := "not a regular file"
				if fi, err := os.Stat(p); err == nil && fi.IsDir() && readsTensors(c.name) {
					want = "a directory with no .npy files" // a directory of .npy files is an input
				}
				wantOneLine(t, code, stderr, out, p, want)
			})
		})
	}
}

// TestConfigTooLarge: a config over 64 MiB is refused by every command that reads one.
func TestConfigTooLarge(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.safetensors")
	in, posIn, cfg := goodInputs(t, dir)
	big := fileiotest.Sparse(t, dir, "config.json", []byte("{}"), 64<<20+1)
	for _, c := range fileCommands(in, posIn, cfg, out) {
		if !strings.Contains(c.name, "config") && c.name != "inspect" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, c.args(big)...)
			wantOneLine(t, code, stderr, out, big, "too large")
		})
	}
}

// TestOutNotRegular: --out that exists and is not a regular file (a symbolic link
// included) is refused with exit 2 and left as it was.
func TestOutNotRegular(t *testing.T) {
	dir := t.TempDir()
	in, posIn, _ := goodInputs(t, dir)
	commands := []struct {
		name string
		args func(out string) []string
	}{
		{"apply", func(out string) []string {
			return []string{"apply", "--model", "llama-3.1-8b", "--in", in, "--out", out}
		}},
		{"cache", func(out string) []string {
			return []string{"cache", "--model", "llama-3.1-8b", "--positions", "4", "--out", out}
		}},
		{"positions", func(out string) []string {
			return []string{"positions", "--model", "qwen2-vl-7b", "--in", posIn, "--out", out}
		}},
	}
	targets := []struct {
		name string
		make func(t *testing.T, dir string) (string, func() any) // the path and a snapshot of it
	}{
		{"symlink", func(t *testing.T, dir string) (string, func() any) {
			real := writeFile(t, dir, "real", []byte("keep"))
			link := filepath.Join(dir, "link")
			if err := os.Symlink(real, link); err != nil {
				t.Skipf("no symbolic links: %v", err)
			}
			return link, func() any {
				to, err := os.Readlink(link)
				b, _ := os.ReadFile(real)
				return []any{to, err, string(b)}
			}
		}},
		{"named pipe", func(t *testing.T, dir string) (string, func() any) {
			p := fileiotest.FIFO(t)
			return p, func() any {
				fi, err := os.Lstat(p)
				if err != nil {
					return err
				}
				return fi.Mode()
			}
		}},
		{"directory", func(t *testing.T, dir string) (string, func() any) {
			sub := filepath.Join(dir, "sub")
			if err := os.Mkdir(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			return sub, func() any {
				fi, err := os.Lstat(sub)
				if err != nil {
					return err
				}
				return fi.Mode()
			}
		}},
	}
	for _, c := range commands {
		for _, tg := range targets {
			t.Run(c.name+"/"+tg.name, func(t *testing.T) {
				d := t.TempDir()
				p, snap := tg.make(t, d)
				before, entries := snap(), fileiotest.DirNames(t, filepath.Dir(p))
				code, _, stderr := runCLI(t, c.args(p)...)
				if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, p) || !strings.Contains(stderr, "not a regular file") {
					t.Errorf("exit %d stderr %q: want exit 2 and one line naming %s as not a regular file", code, stderr, p)
				}
				if after := snap(); !reflect.DeepEqual(after, before) {
					t.Errorf("--out was %v, now %v", before, after)
				}
				if after := fileiotest.DirNames(t, filepath.Dir(p)); !reflect.DeepEqual(after, entries) {
					t.Errorf("directory held %q, now %q", entries, after)
				}
			})
		}
	}
}
