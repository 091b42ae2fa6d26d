package raw

import (
	"math"
	"testing"

	"github.com/rotary-go/rotary/internal/zerotest"
	"github.com/rotary-go/rotary/tensor"
)

// TestZeroValueNew: ParseSpec of nothing, the zero Spec's Read and ReadFile with an empty path,
// the Invalid dtype, no shape and huge or negative dimensions return an error and never panic.
func TestZeroValueNew(t *testing.T) {
	zerotest.Run(t, map[string]func() error{
		"ParseSpec(\"\")":    func() error { _, err := ParseSpec(""); return zerotest.WantErr(err) },
		"Spec{}.Read":        func() error { _, err := (Spec{}).Read(); return zerotest.WantErr(err) },
		"ReadFile(\"\")":     func() error { _, err := ReadFile("", tensor.Invalid); return zerotest.WantErr(err) },
		"ReadFile(no shape)": func() error { _, err := ReadFile("", tensor.F32); return zerotest.WantErr(err) },
		"ReadFile(huge shape)": func() error {
			_, err := ReadFile("", tensor.F32, math.MaxInt, math.MaxInt)
			return zerotest.WantErr(err)
		},
		"ReadFile(negative)": func() error { _, err := ReadFile("", tensor.F32, math.MinInt); return zerotest.WantErr(err) },
	})
}
