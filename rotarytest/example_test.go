package rotarytest_test

import (
	"fmt"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rotarytest"
)

// A sweep without a testing.T, as a tool that reports on a backend would run it: each case's
// worst difference from the reference. Here the reference is swept against itself, so no case
// differs; an out-of-tree backend passes its own name, after importing the package that
// registers its kernels.
func ExampleSweep() {
	opts := rotarytest.Options{Short: true}
	results, err := rotarytest.Sweep(ops.Native, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	failed := 0
	for _, r := range results {
		if r.Failed(opts) {
			failed++
			fmt.Println(r)
		}
	}
	fmt.Println("over 100 cases:", len(results) > 100, "failed:", failed)
	// Output:
	// over 100 cases: true failed: 0
}
