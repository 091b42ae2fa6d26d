package safetensors

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/tensor"
)

// TestZeroValueNew: ToTensor and FromTensor refuse zero tensors, nil data, typed tensors without
// buffers, and Streams that write too little, too much or for a tensor past tensor.MaxBytes,
// with an error naming the tensor; they never panic, and take no more of a Stream than the
// shape's bytes.
func TestZeroValueNew(t *testing.T) {
	for name, f := range map[string]func() error{
		"ToTensor(zero)":            func() error { _, err := ToTensor(Tensor{Name: "probe"}); return err },
		"ToTensor(F32, nil data)":   func() error { _, err := ToTensor(Tensor{Name: "probe", DType: "F32", Shape: []int{2}}); return err },
		"ToTensor(BF16, nil shape)": func() error { _, err := ToTensor(Tensor{Name: "probe", DType: "BF16"}); return err },
		"ToTensor(I64, short data)": func() error {
			_, err := ToTensor(Tensor{Name: "probe", DType: "I64", Shape: []int{1}, Data: []byte{1}})
			return err
		},
		"ToTensor(nil Stream, no shape)": func() error {
			_, err := ToTensor(Tensor{Name: "probe", DType: "F32", Shape: []int{2}, Stream: func(io.Writer) error { return nil }})
			return err
		},
		"ToTensor(Stream past its bytes)": func() error {
			// A Stream that keeps writing: the bytes taken past the shape's 8 are the caller's memory.
			taken := 0
			_, err := ToTensor(Tensor{Name: "probe", DType: "F32", Shape: []int{2}, Stream: func(w io.Writer) error {
				for range 1 << 12 {
					n, err := w.Write(make([]byte, 1<<12))
					taken += n
					if err != nil {
						return err
					}
				}
				return nil
			}})
			if taken > 8 {
				return fmt.Errorf("the stream wrote %d bytes for a tensor of 8", taken)
			}
			return err
		},
		"ToTensor(Stream past its bytes, errors ignored)": func() error {
			_, err := ToTensor(Tensor{Name: "probe", DType: "F32", Shape: []int{2}, Stream: func(w io.Writer) error {
				w.Write(make([]byte, 6))
				w.Write(make([]byte, 6))
				return nil
			}})
			return err
		},
		"ToTensor(Stream past MaxBytes)": func() error {
			called := false
			_, err := ToTensor(Tensor{Name: "probe", DType: "F32", Shape: []int{int(tensor.MaxBytes/4 + 1)}, Stream: func(io.Writer) error {
				called = true
				return nil
			}})
			if called {
				return fmt.Errorf("a Stream of more than tensor.MaxBytes was run")
			}
			return err
		},
		"FromTensor(zero)": func() error { _, err := FromTensor("probe", tensor.Tensor{}); return err },
		"FromTensor(F32, no buffer)": func() error {
			_, err := FromTensor("probe", tensor.Tensor{DType: tensor.F32, Shape: []int{2}})
			return err
		},
		"FromTensor(BF16, no buffer)": func() error {
			_, err := FromTensor("probe", tensor.Tensor{DType: tensor.BF16, Shape: []int{3}})
			return err
		},
		"FromTensor(I64, no shape)": func() error { _, err := FromTensor("probe", tensor.Tensor{DType: tensor.I64}); return err },
	} {
		err := func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("panic: %v", r)
				}
			}()
			return f()
		}()
		if err == nil || !strings.Contains(err.Error(), "probe") {
			t.Errorf("%s: %v, want an error naming tensor probe", name, err)
		}
	}
}
