package npy

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/rotary-go/rotary/internal/fileio"
	"github.com/rotary-go/rotary/safetensors"
	"github.com/rotary-go/rotary/tensor"
)

// codes is the descr each dtype is written with; BF16 as its uint16 bits (see the package doc).
var codes = map[tensor.DType]string{
	tensor.F32: "<f4", tensor.F64: "<f8", tensor.F16: "<f2", tensor.BF16: "<u2",
	tensor.I32: "<i4", tensor.I64: "<i8", tensor.I8: "|i1", tensor.U8: "|u1",
}

// Write writes t to w as one .npy file, the bytes np.save writes for the same array (BF16 as
// '<u2'). Any view is accepted: strided, offset or reversed views are written in row-major
// order of their shape.
func Write(w io.Writer, t tensor.Tensor) error {
	if _, ok := codes[t.DType]; !ok {
		return fmt.Errorf("dtype %v has no .npy type", t.DType)
	}
	st, err := safetensors.FromTensor("", t)
	if err != nil {
		return err
	}
	if _, err := w.Write(encodeHeader(t.DType, st.Shape)); err != nil {
		return err
	}
	_, err = w.Write(st.Data)
	return err
}

// encodeHeader is the version 1.0 preamble and header of a tensor in np.save's spelling,
// padded with spaces and a newline so that the data starts at a multiple of 64 bytes as
// numpy's writer does (lib/format.py ARRAY_ALIGN, so that the data can be memory-mapped
// aligned), or version 2.0 when the header would not fit in 1.0's 16-bit length, which is
// numpy's own fallback (_wrap_header_guess_version).
func encodeHeader(d tensor.DType, shape []int) []byte {
	var sb strings.Builder
	fmt.Fprintf(&sb, "{'descr': '%s', 'fortran_order': False, 'shape': (", codes[d])
	for i, s := range shape {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(strconv.Itoa(s))
	}
	if len(shape) == 1 {
		sb.WriteByte(',') // Python's one-element tuple, as repr writes it
	}
	sb.WriteString("), }")
	dict := sb.String()
	pre := 10
	if len(dict)+1 > math.MaxUint16 {
		pre = 12
	}
	total := (pre + len(dict) + 1 + 63) / 64 * 64
	hdr := make([]byte, total)
	copy(hdr, magic)
	hlen := total - pre
	if pre == 10 {
		hdr[6] = 1
		binary.LittleEndian.PutUint16(hdr[8:], uint16(hlen))
	} else {
		hdr[6] = 2
		binary.LittleEndian.PutUint32(hdr[8:], uint32(hlen))
	}
	n := copy(hdr[pre:], dict)
	for i := pre + n; i < total-1; i++ {
		hdr[i] = ' '
	}
	hdr[total-1] = '\n'
	return hdr
}

// WriteDir writes each tensor of order (nil: every tensor, sorted by name) to dir/NAME.npy
// as Write does, and metadata, when not empty, to dir/MetadataFile (a JSON object of strings,
// which ReadDir gives back as the set's metadata). dir is made if missing (its parent must
// exist).
//
// Everything is checked before anything is written: order names each tensor exactly once;
// names are usable as file names (not empty, no '/', '\\' or NUL, not starting with '.', not
// "__metadata__"); every tensor converts (safetensors.FromTensor); dir holds no other .npy
// file (hidden ones aside, which ReadDir skips) and no stale MetadataFile, which ReadDir would
// take into the set. Then every file is written unnamed (internal/fileio), and only when all
// are complete are they put in place, each atomically: on an error before that, nothing is
// left behind, not even a directory WriteDir made.
func WriteDir(dir string, tensors map[string]tensor.Tensor, order []string, metadata map[string]string) error {
	if order == nil {
		for n := range tensors {
			order = append(order, n)
		}
		sort.Strings(order)
	}
	encoded := make([]safetensors.Tensor, 0, len(order))
	seen := map[string]bool{}
	for _, name := range order {
		t, ok := tensors[name]
		if !ok {
			return fmt.Errorf("%s: tensor %q of the order is not among the tensors", dir, name)
		}
		if seen[name] {
			return fmt.Errorf("%s: tensor %q is twice in the order", dir, name)
		}
		seen[name] = true
		if _, ok := codes[t.DType]; !ok {
			return fmt.Errorf("%s: tensor %q: dtype %v has no .npy type", dir, name, t.DType)
		}
		st, err := safetensors.FromTensor(name, t)
		if err != nil {
			return fmt.Errorf("%s: %v", dir, err)
		}
		encoded = append(encoded, st)
	}
	if len(seen) != len(tensors) {
		for n := range tensors {
			if !seen[n] {
				return fmt.Errorf("%s: tensor %q is missing from the order", dir, n)
			}
		}
	}
	return WriteFiles(dir, encoded, metadata)
}

// WriteFiles is WriteDir for tensors already in their safetensors encoding, written in the
// order given: each file is the .npy header, then the tensor's bytes as they are (both
// formats hold little-endian elements in row-major order), or as its Stream writes them, so a
// bundle read from or made for a safetensors file is not copied to be written.
func WriteFiles(dir string, tensors []safetensors.Tensor, metadata map[string]string) error {
	type file struct {
		name string
		data func(w io.Writer) error
	}
	var files []file
	seen := map[string]bool{}
	for _, st := range tensors {
		name := st.Name
		if seen[name] {
			return fmt.Errorf("%s: tensor %q appears twice", dir, name)
		}
		seen[name] = true
		if err := checkName(name); err != nil {
			return fmt.Errorf("%s: %v", dir, err)
		}
		d, err := tensor.ParseDType(st.DType)
		if _, ok := codes[d]; err != nil || !ok {
			return fmt.Errorf("%s: tensor %q: dtype %s has no .npy type", dir, name, st.DType)
		}
		size, ok := safetensors.ElemSize(st.DType)
		n := st.NumElements()
		ok = ok && n >= 0 && (size == 0 || n <= math.MaxInt/size)
		want := n * size
		if !ok || st.Stream == nil && len(st.Data) != want || st.Stream != nil && len(st.Data) != 0 {
			return fmt.Errorf("%s: tensor %q: %d bytes for shape %v of %s", dir, name, len(st.Data), st.Shape, st.DType)
		}
		hdr := encodeHeader(d, st.Shape)
		files = append(files, file{name + ".npy", func(w io.Writer) error {
			if _, err := w.Write(hdr); err != nil {
				return err
			}
			return st.WriteData(w)
		}})
	}
	if len(metadata) > 0 {
		js, err := json.MarshalIndent(metadata, "", "  ")
		if err != nil {
			return fmt.Errorf("%s: metadata: %v", dir, err)
		}
		js = append(js, '\n')
		files = append(files, file{MetadataFile, func(w io.Writer) error { _, err := w.Write(js); return err }})
	}
	made := false
	if err := os.Mkdir(dir, 0o755); err == nil {
		made = true
	} else if !errors.Is(err, os.ErrExist) {
		return err
	} else if fi, err := os.Stat(dir); err != nil {
		return err
	} else if !fi.IsDir() {
		return fmt.Errorf("%s: not a directory (want a directory for the .npy files)", dir)
	}
	var reps []*fileio.Replacement
	defer func() {
		for _, r := range reps {
			r.Abort()
		}
	}()
	fail := func(err error) error {
		// The temporary files first (named ones where O_TMPFILE is missing): then the
		// directory is empty, nothing having been put in place, and goes too.
		for _, r := range reps {
			r.Abort()
		}
		reps = nil
		if made {
			os.Remove(dir)
		}
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fail(err)
	}
	writing := map[string]bool{}
	for _, f := range files {
		writing[f.name] = true
	}
	for _, e := range entries {
		if n := e.Name(); (strings.HasSuffix(n, ".npy") && !strings.HasPrefix(n, ".") || n == MetadataFile) && !writing[n] {
			return fail(fmt.Errorf("%s holds %s, which this set does not (reading the directory would take it in): use a new or empty directory", dir, n))
		}
	}
	for _, f := range files {
		r, err := fileio.Create(filepath.Join(dir, f.name), 0o644)
		if err != nil {
			return fail(err)
		}
		reps = append(reps, r)
		if err := f.data(r); err != nil {
			return fail(fmt.Errorf("%s: %v", filepath.Join(dir, f.name), err))
		}
	}
	for _, r := range reps {
		if err := r.Commit(); err != nil {
			return err
		}
	}
	return nil
}

// checkName checks that a tensor name can be a file's stem in a directory ReadDir reads
// back to the same set.
func checkName(name string) error {
	switch {
	case name == "":
		return errors.New("a tensor without a name cannot be a .npy file")
	case strings.ContainsAny(name, "/\\\x00"), strings.HasPrefix(name, "."):
		return fmt.Errorf("tensor %q: a name holding a slash, a backslash or NUL, or starting with '.', cannot be a .npy file's name", name)
	case name == "__metadata__":
		return fmt.Errorf("tensor %q: the name is kept for the metadata", name)
	}
	return nil
}
