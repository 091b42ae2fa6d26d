package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/rotary-go/rotary/golden"
	"github.com/rotary-go/rotary/internal/fileio"
	"github.com/rotary-go/rotary/safetensors"
)

// goldenSuiteFile is one file of a suite, encoded, or one bundle to write as a directory of
// .npy files.
type goldenSuiteFile struct {
	name   string
	data   []byte
	bundle golden.Bundle
}

// writeSuite writes golden.Suite's bundles into dir, varying what the command line left open,
// and index.json listing them. Every bundle is made before the first is written; a failed
// write removes what the suite wrote.
func (o *goldenOptions) writeSuite(dir string, lo golden.Options) error {
	bundles, err := golden.Suite(lo, golden.Vary{DType: !o.userSet["dtype"], Tokens: !o.userSet["tokens"], Layer: !o.userSet["layer"], Positions: !o.userSet["positions"]})
	if err != nil {
		return usageError{err}
	}
	var files []goldenSuiteFile
	var index []golden.IndexEntry
	for _, b := range bundles {
		name := b.Entry.File
		if o.format == "npy" {
			files = append(files, goldenSuiteFile{name: name, bundle: b})
		} else {
			name += ".safetensors"
			var buf bytes.Buffer
			if err := safetensors.Write(&buf, b.Tensors, b.Metadata); err != nil {
				return usagef("%s: %v", name, err)
			}
			files = append(files, goldenSuiteFile{name: name, data: buf.Bytes()})
		}
		b.Entry.File = name
		index = append(index, b.Entry)
	}
	js, err := json.MarshalIndent(index, "", "  ")
	if err != nil {
		return err
	}
	files = append(files, goldenSuiteFile{name: "index.json", data: append(js, '\n')})
	return writeSuiteFiles(dir, files)
}

// writeSuiteFiles writes the files into dir (made if absent), each atomically; on a failure it
// removes the files it wrote, and dir when it made it.
func writeSuiteFiles(dir string, files []goldenSuiteFile) error {
	made := false
	if fi, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		if err := os.Mkdir(dir, 0o755); err != nil {
			return usagef("--suite: %v", err)
		}
		made = true
	} else if err != nil {
		return usagef("--suite: %v", err)
	} else if !fi.IsDir() {
		return usagef("--suite %s: not a directory", dir)
	}
	var written []string
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		var err error
		if f.data == nil {
			err = writeGoldenNPY("--suite", path, f.bundle)
		} else {
			err = fileio.WriteFile(path, 0o644, func(w io.Writer) error {
				_, err := w.Write(f.data)
				return err
			})
		}
		if err != nil {
			for _, p := range written {
				os.RemoveAll(p)
			}
			if made {
				os.Remove(dir)
			}
			if f.data == nil {
				return err
			}
			return usagef("--suite: %v", err)
		}
		written = append(written, path)
	}
	return nil
}
