package safetensors

import (
	"io"

	"github.com/rotary-go/rotary/internal/errs"
	"github.com/rotary-go/rotary/internal/fileio"
	"github.com/rotary-go/rotary/tensor"
)

// Named is a decoded tensor and its name.
type Named struct {
	Name string
	tensor.Tensor
}

// ReadTensors reads the safetensors file at path decoded, as ToTensor decodes each tensor, in
// file order, with its metadata (nil when absent). Each tensor's elements are read from the
// file straight into its own memory (tensor.ReadElements), so memory is the tensors themselves
// and a megabyte, where ReadFile then ToTensor holds every byte twice. The file is checked as
// ReadFile checks it before anything is allocated; a dtype tensor.Tensor has no type for is
// refused with an error wrapping ErrDType, naming the tensor.
func ReadTensors(path string) ([]Named, map[string]string, error) {
	type result struct {
		tensors []Named
		meta    map[string]string
	}
	r, err := fileio.ReadAt(path, func(r io.ReaderAt, size int64) (result, error) {
		f, spans, dataStart, err := readLayout(r, size)
		if err != nil {
			return result{}, err
		}
		out := make([]Named, len(f.Tensors))
		for i, st := range f.Tensors {
			d, ok := dtypes[st.DType]
			if !ok {
				return result{}, errs.Wrapf(ErrDType, "tensor %q: dtype %q has no tensor.DType (want F32, F16, BF16, F64, I32, I64, I8 or U8)", st.Name, st.DType)
			}
			t, err := tensor.New(d, copyShape(st.Shape)...)
			if err != nil {
				return result{}, invalidf("tensor %q: %v", st.Name, err)
			}
			if err := tensor.ReadElements(r, dataStart+int64(spans[i].begin), t, false); err != nil {
				return result{}, err
			}
			out[i] = Named{Name: st.Name, Tensor: t}
		}
		return result{out, f.Metadata}, nil
	})
	return r.tensors, r.meta, err
}
