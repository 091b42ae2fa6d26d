package ops_test

import (
	"testing"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// TestNewPositionsLimit: a limit is the row count of the table the positions index, so a table
// of no rows refuses every position; only NoLimit leaves positions unbounded.
func TestNewPositionsLimit(t *testing.T) {
	pos := tensor.FromI64([]int64{0, 5}, 2)
	if _, err := ops.NewPositions(pos, 2, nil, 0); err == nil {
		t.Errorf("limit 0 (a table of no rows): positions accepted")
	}
	if _, err := ops.NewPositions(pos, 2, nil, 5); err == nil {
		t.Errorf("limit 5: position 5 accepted")
	}
	if _, err := ops.NewPositions(pos, 2, nil, 6); err != nil {
		t.Errorf("limit 6: %v", err)
	}
	if _, err := ops.NewPositions(tensor.FromI64([]int64{1 << 62}, 1), 1, nil, ops.NoLimit); err != nil {
		t.Errorf("NoLimit: %v", err)
	}
}
