package ops_test

import (
	"reflect"
	"strings"
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

// TestPositionsInto: PositionsInto over a view that already holds something leaves it exactly
// as NewPositions returns it, accepted or refused, with the same error; an accepted view's
// strides are the tensor's own (Tensor.Stride), which it reads from the fields directly.
func TestPositionsInto(t *testing.T) {
	i64 := []int64{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8}
	cases := []struct {
		name   string
		pos    tensor.Tensor
		tokens int
	}{
		{"1-D", tensor.FromI64(i64[:4], 4), 4},
		{"1-D i32", tensor.FromI32([]int32{1, 2, 3}, 3), 3},
		{"1-D strided", tensor.Tensor{DType: tensor.I64, Shape: []int{4}, Strides: []int{3}, Offset: 1, I64: i64}, 4},
		{"3 rows", tensor.FromI64(i64, 3, 4), 4},
		{"3 rows strided", tensor.Tensor{DType: tensor.I64, Shape: []int{3, 2}, Strides: []int{4, 2}, Offset: 1, I64: i64}, 2},
		{"token count", tensor.FromI64(i64[:4], 4), 5},
		{"rows not allowed", tensor.FromI64(i64, 4, 3), 3},
		{"negative", tensor.FromI64([]int64{0, -1}, 2), 2},
		{"past the limit", tensor.FromI64([]int64{0, 100}, 2), 2},
		{"float", tensor.FromF32([]float32{0, 1}, 2), 2},
		{"outside the buffer", tensor.FromI64(i64[:2], 3), 3},
	}
	for _, c := range cases {
		want, werr := ops.NewPositions(c.pos, c.tokens, []int{3}, 10)
		p := ops.Positions{I32: []int32{1}, I64: []int64{1}, Off: 5, Rows: 5, Tokens: 5, RowStride: 5, Stride: 5, Max: 5}
		err := ops.PositionsInto(&p, &c.pos, c.tokens, []int{3}, 10)
		if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
			t.Errorf("%s: error %v, NewPositions' %v", c.name, err, werr)
		}
		if !reflect.DeepEqual(p, want) {
			t.Errorf("%s: view %+v, want NewPositions' %+v", c.name, p, want)
		}
		if err != nil {
			continue
		}
		row, col := 0, c.pos.Stride(0)
		if c.pos.Rank() == 2 {
			row, col = c.pos.Stride(0), c.pos.Stride(1)
		}
		if p.RowStride != row || p.Stride != col {
			t.Errorf("%s: row and token strides %d, %d; want %d, %d", c.name, p.RowStride, p.Stride, row, col)
		}
	}
}

// TestPositionsErrorIndex: a bad position is named by its index in the tensor as given: [i] in
// a 1-D tensor, [r,i] in a 2-D one.
func TestPositionsErrorIndex(t *testing.T) {
	if _, err := ops.NewPositions(tensor.FromI64([]int64{0, 1, -3}, 3), 3, nil, ops.NoLimit); err == nil || !strings.Contains(err.Error(), "at [2] ") {
		t.Errorf("1-D: %v, want the position at [2]", err)
	}
	if _, err := ops.NewPositions(tensor.FromI64([]int64{0, 1, 2, 0, -1, 2}, 2, 3), 3, []int{2}, ops.NoLimit); err == nil || !strings.Contains(err.Error(), "at [1,1] ") {
		t.Errorf("2-D: %v, want the position at [1,1]", err)
	}
}
