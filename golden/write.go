package golden

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rotary-go/rotary/internal/fileio"
	"github.com/rotary-go/rotary/npy"
	"github.com/rotary-go/rotary/safetensors"
)

// WriteFile writes b at path in format: "safetensors" (one file) or "npy" (a directory of
// NAME.npy files, one per tensor, and __metadata__.json: npy.WriteFiles). Either is written
// atomically: nothing is left at path on error.
func (b Bundle) WriteFile(path, format string) error {
	switch format {
	case "safetensors":
		return safetensors.WriteFile(path, b.Tensors, b.Metadata)
	case "npy":
		return npy.WriteFiles(path, b.Tensors, b.Metadata)
	}
	return fmt.Errorf("--format %q: want safetensors or npy", format)
}

// WriteSuite writes a suite's bundles (Suite) into dir, made if absent, in format (as
// Bundle.WriteFile), each under its Entry.File and the format's suffix, and index.json listing
// their entries. An Entry.File must name a file of dir, one per bundle: not empty, ".", ".."
// or a path, and not index.json. Names and every safetensors bundle are checked and encoded
// before the first file is written, and a failed write removes the files written (an npy
// bundle's directory when WriteSuite made it, else the files it wrote there), and dir when
// WriteSuite made it.
func WriteSuite(dir string, bundles []Bundle, format string) error {
	if format != "safetensors" && format != "npy" {
		return fmt.Errorf("--format %q: want safetensors or npy", format)
	}
	var files []suiteFile
	index := []IndexEntry{}
	seen := map[string]int{"index.json": -1}
	for i, b := range bundles {
		name := b.Entry.File
		if name == "" || name == "." || name == ".." || filepath.Base(name) != name || strings.ContainsAny(name, `/\`) {
			return fmt.Errorf("bundle %d: Entry.File %q: want a file name in the suite's directory (not empty, . or .., no separator)", i, name)
		}
		if format == "safetensors" {
			name += ".safetensors"
		}
		if j, dup := seen[name]; dup {
			if j < 0 {
				return fmt.Errorf("bundle %d: Entry.File %q: the suite's index.json has that name", i, b.Entry.File)
			}
			return fmt.Errorf("bundle %d: Entry.File %q: bundle %d's too; want one name per bundle", i, b.Entry.File, j)
		}
		seen[name] = i
		if format == "npy" {
			files = append(files, suiteFile{name: name, bundle: b})
		} else {
			var buf bytes.Buffer
			if err := safetensors.Write(&buf, b.Tensors, b.Metadata); err != nil {
				return fmt.Errorf("%s: %v", name, err)
			}
			files = append(files, suiteFile{name: name, data: buf.Bytes()})
		}
		b.Entry.File = name
		index = append(index, b.Entry)
	}
	js, err := json.MarshalIndent(index, "", "  ")
	if err != nil {
		return err
	}
	files = append(files, suiteFile{name: "index.json", data: append(js, '\n')})
	return writeSuiteFiles(dir, files)
}

// suiteFile is one file of a suite, encoded, or one bundle to write as a directory of .npy
// files.
type suiteFile struct {
	name   string
	data   []byte
	bundle Bundle
}

// writeSuiteFiles writes the files into dir (made if absent), each atomically; on a failure it
// removes the files it wrote, and dir when it made it.
func writeSuiteFiles(dir string, files []suiteFile) error {
	made := false
	if fi, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		if err := os.Mkdir(dir, 0o755); err != nil {
			return fmt.Errorf("--suite: %v", err)
		}
		made = true
	} else if err != nil {
		return fmt.Errorf("--suite: %v", err)
	} else if !fi.IsDir() {
		return fmt.Errorf("--suite %s: not a directory", dir)
	}
	var written []string // what a failure removes: files, and directories the suite made
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		var err error
		if f.data == nil {
			_, statErr := os.Lstat(path)
			if err = f.bundle.WriteFile(path, "npy"); err == nil {
				if statErr == nil {
					// A directory that was there holds more than the bundle: remove its files alone.
					written = append(written, npyFiles(path, f.bundle)...)
				} else {
					written = append(written, path)
				}
			}
		} else {
			err = fileio.WriteFile(path, 0o644, func(w io.Writer) error {
				_, err := w.Write(f.data)
				return err
			})
			if err == nil {
				written = append(written, path)
			}
		}
		if err != nil {
			for _, p := range written {
				os.RemoveAll(p)
			}
			if made {
				os.Remove(dir)
			}
			return fmt.Errorf("--suite: %v", err)
		}
	}
	return nil
}

// npyFiles are the paths of the files Bundle.WriteFile writes for b as npy into dir.
func npyFiles(dir string, b Bundle) []string {
	var paths []string
	for _, t := range b.Tensors {
		paths = append(paths, filepath.Join(dir, t.Name+".npy"))
	}
	if len(b.Metadata) > 0 {
		paths = append(paths, filepath.Join(dir, npy.MetadataFile))
	}
	return paths
}
