package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/internal/fileio"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// goldenSuiteTokens are the token counts of a suite's bundles at positions 0..N−1: one token
// (decode), the default, and an odd count that leaves tails for vector kernels.
var goldenSuiteTokens = []int{1, goldenDefaultTokens, 67}

// goldenSuiteTableLimit bounds the cos/sin table (rows × rotary dim) a suite bundle of a table op
// (mrope, the THD ops) may hold, since the table grows with the largest position: boundary cases
// past it are left out with a note, and random positions are drawn below it (random:ROWS).
const goldenSuiteTableLimit = 1 << 21

// goldenIndexEntry is one bundle of a suite's index.json.
type goldenIndexEntry struct {
	File      string `json:"file"`
	Op        string `json:"op"`
	Model     string `json:"model"`
	DType     string `json:"dtype"`
	Tokens    int    `json:"tokens"`
	Positions string `json:"positions"`
	Layer     int    `json:"layer"`
	LayerType string `json:"layer_type"`
	Seed      uint64 `json:"seed"`
}

// goldenSuiteFile is one file of a suite, encoded, or one bundle to write as a directory of
// .npy files.
type goldenSuiteFile struct {
	name   string
	data   []byte
	bundle goldenBundle
}

// writeSuite writes a directory of bundles: for each layer kind (or --layer), each dtype (or
// --dtype), the token counts at positions 0..N−1 (or --tokens), then at N tokens random
// positions, positions straddling the scaling's original length, and the last N positions of the
// model's cache length (or --positions alone); and index.json listing them. Every bundle is made
// before the first is written; a failed write removes what the suite wrote.
func (o *goldenOptions) writeSuite(dir string, dtype tensor.DType, model *hf.Model) error {
	dtypes := []tensor.DType{tensor.F32, tensor.BF16, tensor.F16}
	if o.userSet["dtype"] {
		dtypes = []tensor.DType{dtype}
	}
	counts := goldenSuiteTokens
	if o.tokensSet {
		counts = []int{o.tokens}
	}
	layers := []int{o.m.layer}
	if !o.layerSet {
		layers = layers[:0]
		spec := model.Spec
		if o.m.rope == "indexer" && model.Indexer != nil {
			spec = *model.Indexer
		}
		for _, g := range layerGroups(spec, model.NumLayers) {
			layers = append(layers, g.layers[0])
		}
		if len(layers) == 0 {
			layers = append(layers, o.m.layer)
		}
	}
	var cases []goldenCase
	for _, layer := range layers {
		o.m.layer = layer
		if _, spec, err := o.m.load(); err == nil && spec.NoRoPE && !goldenRunsWithoutRoPE(o.op) {
			if o.layerSet {
				return usagef("--layer %d: the layer has no RoPE, so --op %s has no cos/sin to take", layer, o.op)
			}
			fmt.Fprintf(o.stderr, "rotary golden: --suite: layer %d left out: it has no RoPE, so --op %s has no cos/sin to take\n", layer, o.op)
			continue
		}
		for _, d := range dtypes {
			for _, p := range o.suitePositions(layer, counts) {
				cases = append(cases, goldenCase{dtype: d, tokens: p.tokens, positions: p.positions, layer: layer})
			}
		}
	}
	if len(cases) == 0 {
		return usagef("--suite: no layer of the model has RoPE for --op %s", o.op)
	}
	var files []goldenSuiteFile
	var index []goldenIndexEntry
	for _, c := range cases {
		b, err := o.bundle(c)
		if err != nil {
			return err
		}
		name := fmt.Sprintf("%s_L%d_%s_T%d_%s", o.op, c.layer, c.dtype, b.tokens, fileLabel(b.positions))
		if o.format == "npy" {
			files = append(files, goldenSuiteFile{name: name, bundle: b})
		} else {
			name += ".safetensors"
			var buf bytes.Buffer
			if err := safetensors.Write(&buf, b.tensors, b.meta); err != nil {
				return usagef("%s: %v", name, err)
			}
			files = append(files, goldenSuiteFile{name: name, data: buf.Bytes()})
		}
		index = append(index, goldenIndexEntry{File: name, Op: o.op, Model: o.modelName, DType: c.dtype.String(), Tokens: b.tokens,
			Positions: b.positions, Layer: c.layer, LayerType: b.layerType, Seed: o.seed})
	}
	js, err := json.MarshalIndent(index, "", "  ")
	if err != nil {
		return err
	}
	files = append(files, goldenSuiteFile{name: "index.json", data: append(js, '\n')})
	return writeSuiteFiles(dir, files)
}

// goldenSuitePositions is one positions case of a suite.
type goldenSuitePositions struct {
	tokens    int
	positions string
}

// suitePositions lists a layer's positions cases.
func (o *goldenOptions) suitePositions(layer int, counts []int) []goldenSuitePositions {
	if o.userSet["positions"] {
		if p, _ := parseGoldenPositions(o.positions); p.kind == "file" {
			return []goldenSuitePositions{{o.tokens, o.positions}} // the file gives the token count
		}
		var out []goldenSuitePositions
		for _, n := range counts {
			out = append(out, goldenSuitePositions{n, o.positions})
		}
		return out
	}
	var out []goldenSuitePositions
	for _, n := range counts {
		out = append(out, goldenSuitePositions{n, "range"})
	}
	n := goldenDefaultTokens
	if o.tokensSet {
		n = o.tokens
	}
	o.m.layer = layer
	_, spec, err := o.m.load()
	if err != nil || spec.NoRoPE {
		// A layer without RoPE has no length to straddle; load errors are the bundle's to report.
		return append(out, goldenSuitePositions{n, "random"})
	}
	random := "random"
	if rows := int64(goldenSuiteTableLimit / max(spec.RotaryDim, 1)); o.tableOp() && int64(spec.DefaultCacheLen()) > rows {
		random = "random:" + strconv.FormatInt(rows, 10) // the table grows with the largest position
	}
	out = append(out, goldenSuitePositions{n, random})
	orig, maxLen := int64(spec.OriginalMax()), int64(spec.DefaultCacheLen())
	var starts []int64
	if orig > 0 && orig < maxLen {
		starts = append(starts, max(orig-int64(n/2), 0)) // across the scaling's switch (LongRoPE's table, YaRN's length)
	}
	if maxLen >= int64(n) {
		starts = append(starts, maxLen-int64(n)) // the last positions the cache has
	}
	for i, s := range starts {
		if s == 0 || (i > 0 && s == starts[0]) {
			continue // range already covers it, or the two lengths meet
		}
		if o.tableOp() && (s+int64(n)+1)*int64(spec.RotaryDim) > goldenSuiteTableLimit {
			fmt.Fprintf(o.stderr, "rotary golden: --suite: layer %d, positions from %d: left out (the %s bundle would hold a cos/sin table of %d rows)\n", layer, s, o.op, s+int64(n)+1)
			continue
		}
		out = append(out, goldenSuitePositions{n, "range:" + strconv.FormatInt(s, 10)})
	}
	return out
}

// goldenRunsWithoutRoPE: the op has a meaning on a layer without RoPE (query and key pass through,
// or are only scaled); the others take cos/sin.
func goldenRunsWithoutRoPE(op string) bool {
	switch op {
	case "rotary_embedding", "rotary_embedding_gathered", "query_scale":
		return true
	}
	return false
}

// tableOp: the op's bundle holds a cos/sin table up to the largest position.
func (o *goldenOptions) tableOp() bool {
	switch o.op {
	case "mrope", "apply_rotary_emb_thd", "apply_rotary_emb_thd_backward":
		return true
	}
	return false
}

// fileLabel is the positions part of a suite file's name: range, random, range-START or file.
func fileLabel(positions string) string {
	if strings.HasPrefix(positions, "file:") {
		return "file"
	}
	return strings.ReplaceAll(positions, ":", "-")
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
