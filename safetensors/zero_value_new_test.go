package safetensors

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/tensor"
)

// TestZeroValueNew: ToTensor and FromTensor refuse zero tensors, nil data and typed tensors
// without buffers with an error naming the tensor, and never panic.
func TestZeroValueNew(t *testing.T) {
	for name, f := range map[string]func() error{
		"ToTensor(zero)":            func() error { _, err := ToTensor(Tensor{Name: "probe"}); return err },
		"ToTensor(F32, nil data)":   func() error { _, err := ToTensor(Tensor{Name: "probe", DType: "F32", Shape: []int{2}}); return err },
		"ToTensor(BF16, nil shape)": func() error { _, err := ToTensor(Tensor{Name: "probe", DType: "BF16"}); return err },
		"ToTensor(I64, short data)": func() error {
			_, err := ToTensor(Tensor{Name: "probe", DType: "I64", Shape: []int{1}, Data: []byte{1}})
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
