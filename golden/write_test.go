package golden

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/npy"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// TestWriteSuite: a suite written in either format holds each bundle under its index entry,
// readable back with its metadata; a failed write leaves nothing of it, and a dir that is a
// file or an unknown format is refused.
func TestWriteSuite(t *testing.T) {
	m, err := Preset("gemma-3-4b")
	if err != nil {
		t.Fatal(err)
	}
	bundles, err := Suite(Options{Op: "rotary_embedding", Model: m, DType: tensor.F32, Tokens: 2, Heads: 1, KVHeads: 1}, Vary{Layer: true})
	if err != nil || len(bundles) < 2 {
		t.Fatalf("Suite: %d bundles, %v", len(bundles), err)
	}
	for _, format := range []string{"safetensors", "npy"} {
		dir := filepath.Join(t.TempDir(), "suite")
		if err := WriteSuite(dir, bundles, format); err != nil {
			t.Fatal(err)
		}
		js, err := os.ReadFile(filepath.Join(dir, "index.json"))
		if err != nil {
			t.Fatal(err)
		}
		var index []IndexEntry
		if err := json.Unmarshal(js, &index); err != nil || len(index) != len(bundles) {
			t.Fatalf("%s: index %s, %v", format, js, err)
		}
		for i, e := range index {
			var md map[string]string
			if format == "npy" {
				var d *npy.Dir
				d, err = npy.ReadDir(filepath.Join(dir, e.File))
				if d != nil {
					md = d.Metadata
				}
			} else {
				var f *safetensors.File
				f, err = safetensors.ReadFile(filepath.Join(dir, e.File))
				if f != nil {
					md = f.Metadata
				}
			}
			if err != nil || md["layer"] != bundles[i].Metadata["layer"] || !strings.HasPrefix(e.File, bundles[i].Entry.File) {
				t.Errorf("%s: entry %+v: metadata %v, %v", format, e, md, err)
			}
		}
	}

	// A bundle that cannot be encoded: nothing written, the directory WriteSuite made removed.
	bad := append([]Bundle(nil), bundles...)
	bad[1].Tensors = append(bad[1].Tensors, safetensors.Tensor{Name: "broken"})
	dir := filepath.Join(t.TempDir(), "suite")
	if err := WriteSuite(dir, bad, "safetensors"); err == nil {
		t.Error("a bundle that cannot be encoded: no error")
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the failed suite's directory: %v, want it absent", err)
	}
	// npy bundles are written one by one: a failed one removes those before it.
	if err := WriteSuite(dir, bad, "npy"); err == nil {
		t.Error("npy, a bundle that cannot be written: no error")
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the failed npy suite's directory: %v, want it absent", err)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ dir, format, err string }{
		{file, "safetensors", "not a directory"},
		{dir, "json", `--format "json": want safetensors or npy`},
	} {
		if err := WriteSuite(c.dir, bundles, c.format); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s %s: %v, want %q", c.dir, c.format, err, c.err)
		}
	}
	if err := bundles[0].WriteFile(filepath.Join(t.TempDir(), "b.json"), "json"); err == nil {
		t.Error("Bundle.WriteFile in format json: no error")
	}
	if err := (Bundle{}).WriteFile(filepath.Join(t.TempDir(), "empty.safetensors"), "safetensors"); err != nil {
		t.Errorf("the zero Bundle: %v", err)
	}
}

// smallBundle is a rotary_embedding bundle of Llama 3.1 8B, two tokens of one head.
func smallBundle(t *testing.T) Bundle {
	t.Helper()
	m, err := Preset("llama-3.1-8b")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Make(Options{Op: "rotary_embedding", Model: m, DType: tensor.F32, Tokens: 2, Heads: 1, KVHeads: 1})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWriteSuiteEntryNames: a bundle's Entry.File names a file of the suite's directory: one
// that is empty, a path (a separator, "." or ".."), index.json's name or another bundle's is
// refused before anything is written, and what the directory held is left as it was.
func TestWriteSuiteEntryNames(t *testing.T) {
	b := smallBundle(t)
	named := func(file string) Bundle {
		c := b
		c.Entry.File = file
		return c
	}
	broken := named("broken")
	broken.Tensors = append(append([]safetensors.Tensor(nil), b.Tensors...), safetensors.Tensor{Name: "broken"})
	for _, format := range []string{"safetensors", "npy"} {
		for _, files := range [][]string{{""}, {"."}, {".."}, {"../outside"}, {"sub/b"}, {"a", "a"}, {"index.json"}} {
			root := t.TempDir()
			dir := filepath.Join(root, "suite")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			keep := filepath.Join(dir, "keep.txt")
			if err := os.WriteFile(keep, []byte("mine"), 0o644); err != nil {
				t.Fatal(err)
			}
			var bundles []Bundle
			for _, f := range files {
				bundles = append(bundles, named(f))
			}
			// A bundle that fails to write after them makes WriteSuite clean up what it wrote.
			bundles = append(bundles, broken)
			if format == "safetensors" && files[0] == "index.json" {
				continue // written as index.json.safetensors
			}
			err := WriteSuite(dir, bundles, format)
			if err == nil || !strings.Contains(err.Error(), "Entry.File") {
				t.Errorf("%s %q: error %v, want one naming Entry.File", format, files, err)
			}
			if got, err := os.ReadFile(keep); err != nil || string(got) != "mine" {
				t.Errorf("%s %q: the directory's own file: %q, %v", format, files, got, err)
			}
			entries, _ := os.ReadDir(root)
			if len(entries) != 1 {
				t.Errorf("%s %q: %d entries beside the suite's directory, want none", format, files, len(entries)-1)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("%s %q: the suite's directory holds %d entries, want keep.txt alone", format, files, len(entries))
			}
		}
	}
}

// TestWriteSuiteKeepsOthers: a failed npy suite removes the bundles it wrote, not what a bundle's
// directory held before it.
func TestWriteSuiteKeepsOthers(t *testing.T) {
	b := smallBundle(t)
	b.Entry.File = "a"
	broken := b
	broken.Entry.File = "broken"
	broken.Tensors = append(append([]safetensors.Tensor(nil), b.Tensors...), safetensors.Tensor{Name: "broken"})
	dir := t.TempDir()
	keep := filepath.Join(dir, "a", "keep.txt")
	if err := os.Mkdir(filepath.Dir(keep), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keep, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteSuite(dir, []Bundle{b, broken}, "npy"); err == nil {
		t.Fatal("a bundle that cannot be written: no error")
	}
	entries, err := os.ReadDir(filepath.Dir(keep))
	if err != nil || len(entries) != 1 || entries[0].Name() != "keep.txt" {
		t.Errorf("bundle a's directory after the failed suite: %v, %v; want keep.txt alone", entries, err)
	}
}
