package rotary

import "github.com/rotary-go/rotary/ops"

// dispatcher is the Dispatcher a call runs through: d, or ops.Default for nil, the choice every
// function taking a *ops.Dispatcher documents.
func dispatcher(d *ops.Dispatcher) *ops.Dispatcher {
	if d == nil {
		return ops.Default
	}
	return d
}
