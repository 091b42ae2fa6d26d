package raw

import (
	"fmt"
	"math"
	"testing"

	"github.com/rotary-go/rotary/tensor"
)

// TestZeroValueNew: ParseSpec of nothing, the zero Spec's Read and ReadFile with an empty path,
// the Invalid dtype, no shape and huge or negative dimensions return an error and never panic.
func TestZeroValueNew(t *testing.T) {
	for name, f := range map[string]func() error{
		"ParseSpec(\"\")":      func() error { _, err := ParseSpec(""); return err },
		"Spec{}.Read":          func() error { _, err := (Spec{}).Read(); return err },
		"ReadFile(\"\")":       func() error { _, err := ReadFile("", tensor.Invalid); return err },
		"ReadFile(no shape)":   func() error { _, err := ReadFile("", tensor.F32); return err },
		"ReadFile(huge shape)": func() error { _, err := ReadFile("", tensor.F32, math.MaxInt, math.MaxInt); return err },
		"ReadFile(negative)":   func() error { _, err := ReadFile("", tensor.F32, math.MinInt); return err },
	} {
		err := func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("panic: %v", r)
				}
			}()
			if f() == nil {
				return fmt.Errorf("no error")
			}
			return nil
		}()
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
