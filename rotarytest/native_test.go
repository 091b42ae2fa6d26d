package rotarytest_test

import (
	"testing"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rotarytest"
)

// The reference passes its own suite bit for bit: this checks the harness (guards, clones,
// dispatch) more than the kernels, which are checked against float64 math in their packages.
func TestNativeConformance(t *testing.T) {
	rotarytest.Run(t, ops.Native, rotarytest.Options{})
}

func TestUnknownBackend(t *testing.T) {
	if _, err := rotarytest.Sweep("no-such-backend", rotarytest.Options{}); err == nil {
		t.Fatal("want an error for an unknown backend")
	}
}
