package tensor

import (
	"fmt"
	"testing"

	"github.com/rotary-go/rotary/internal/zerotest"
)

// TestZeroValueNew: the bulk conversions with nil slices, and CheckPtr, Check and Stride on
// nil and zero tensors, return an error or a zero result and never panic.
func TestZeroValueNew(t *testing.T) {
	var z Tensor
	zerotest.Run(t, map[string]func() error{
		"BF16FromFloat32s(nil, nil)": func() error { _, err := BF16FromFloat32s(nil, nil); return err },
		"Float32sFromBF16(nil, nil)": func() error { _, err := Float32sFromBF16(nil, nil); return err },
		"F16FromFloat32s(nil, nil)":  func() error { _, err := F16FromFloat32s(nil, nil); return err },
		"Float32sFromF16(nil, nil)":  func() error { _, err := Float32sFromF16(nil, nil); return err },
		"BF16FromFloat32s(nil, src)": func() error { return wantErr(BF16FromFloat32s(nil, []float32{1})) },
		"Float32sFromBF16(nil, src)": func() error { return wantErr(Float32sFromBF16(nil, []uint16{1})) },
		"F16FromFloat32s(nil, src)":  func() error { return wantErr(F16FromFloat32s(nil, []float32{1})) },
		"Float32sFromF16(nil, src)":  func() error { return wantErr(Float32sFromF16(nil, []uint16{1})) },
		"FromFloat32s(zero DType)":   func() error { return wantErr(FromFloat32s(0, nil, nil)) },
		"ToFloat32s(zero DType)":     func() error { return wantErr(ToFloat32s(0, nil, nil)) },
		"FromFloat32s(F32)":          func() error { return wantErr(FromFloat32s(F32, nil, []float32{1})) },
		"ToFloat32s(I64)":            func() error { return wantErr(ToFloat32s(I64, nil, []uint16{1})) },
		"CheckPtr(nil)": func() error {
			if err := CheckPtr(nil, "probe"); err == nil {
				return fmt.Errorf("no error")
			}
			return nil
		},
		"zero Check":  func() error { _ = z.Check("probe"); _ = CheckPtr(&z, "probe"); return nil },
		"zero Stride": func() error { _, _, _ = z.Stride(0), z.Stride(-1), z.Stride(1<<30); return nil },
	})
}

func wantErr(_ int, err error) error {
	if err == nil {
		return fmt.Errorf("no error")
	}
	return nil
}
