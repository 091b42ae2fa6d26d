package ops_test

import (
	"fmt"

	"github.com/rotary-go/rotary/ops"
)

// A Dispatcher takes vLLM's custom_ops syntax: "none" disables every op, "+name" enables one
// again. A disabled op runs the native implementation; an enabled one the chosen backend's
// (Which names it), the fastest registered when the backend is Auto.
func ExampleNewDispatcher() {
	d, err := ops.NewDispatcher("none,+rotary_embedding", ops.Auto)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, op := range []string{"rotary_embedding", "mrope"} {
		fmt.Println(op, d.Enabled(op))
	}
	// Output:
	// rotary_embedding true
	// mrope false
}
