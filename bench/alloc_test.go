package bench

import (
	"fmt"
	"testing"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// TestCallsDoNotAllocate: every op's per-layer call, as the suite makes it (the public API with
// its arguments built once), allocates nothing on the fast backend, which every default
// dispatcher picks, at decode and at a small batch: an engine calls it on every layer of every
// forward pass. (The native backend is the readable oracle; several of its kernels take a
// row of scratch per call.)
func TestCallsDoNotAllocate(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("allocation counts in -short mode or under the race detector")
	}
	for _, c := range cases {
		for _, backend := range []string{"cpu"} {
			for _, d := range []tensor.DType{tensor.F32, tensor.BF16} {
				for _, T := range []int{1, 16} {
					name := fmt.Sprintf("%s %s %s %s %d", c.Op, c.Model, backend, d, T)
					disp, err := ops.NewDispatcher("all", backend)
					if err != nil {
						t.Fatal(err)
					}
					call, _, err := c.Setup(d, T, disp)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if err := call(); err != nil { // the first call may grow scratch
						t.Fatalf("%s: %v", name, err)
					}
					if n := testing.AllocsPerRun(5, func() {
						if err := call(); err != nil {
							t.Fatal(err)
						}
					}); n != 0 {
						t.Errorf("%s: %v allocations per call", name, n)
					}
				}
			}
		}
	}
}
