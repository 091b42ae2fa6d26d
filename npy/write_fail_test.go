package npy

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/rotary-go/rotary/internal/fileio"
	"github.com/rotary-go/rotary/safetensors"
)

// TestWriteFilesFailureLeavesNothing: a tensor whose bytes cannot be written leaves no
// directory behind when WriteFiles made it, with named temporary files (where O_TMPFILE is
// missing) as with unnamed ones.
func TestWriteFilesFailureLeavesNothing(t *testing.T) {
	for _, tmpfile := range []bool{true, false} {
		saved := fileio.TmpfileEnabled
		fileio.TmpfileEnabled = tmpfile
		dir := filepath.Join(t.TempDir(), "bundle")
		ok := safetensors.FromFloat32s("a", []int{2}, []float32{1, 2})
		bad := safetensors.Tensor{Name: "b", DType: "F32", Shape: []int{2}, Stream: func(io.Writer) error { return errors.New("disk on fire") }}
		err := WriteFiles(dir, []safetensors.Tensor{ok, bad}, nil)
		fileio.TmpfileEnabled = saved
		if err == nil {
			t.Fatalf("O_TMPFILE %t: no error", tmpfile)
		}
		if _, statErr := os.Stat(dir); !errors.Is(statErr, os.ErrNotExist) {
			entries, _ := os.ReadDir(dir)
			t.Errorf("O_TMPFILE %t: %s left behind (%d entries)", tmpfile, dir, len(entries))
		}
	}
}
