package golden

import (
	"reflect"
	"testing"

	"github.com/rotary-go/rotary/tensor"
)

// TestBatchPositions: [rows, B, S] is read as [rows, B·S], row b's tokens after row b−1's;
// other ranks pass unchanged.
func TestBatchPositions(t *testing.T) {
	p, err := BatchPositions(tensor.FromI64([]int64{0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32}, 2, 2, 3))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.Shape, []int{2, 6}) || p.Int64At(3) != 10 || p.Int64At(6) != 20 {
		t.Errorf("positions %v: at 3 %d, at 6 %d", p.Shape, p.Int64At(3), p.Int64At(6))
	}
	two, err := BatchPositions(tensor.FromI64([]int64{1, 2, 3}, 1, 3))
	if err != nil || !reflect.DeepEqual(two.Shape, []int{1, 3}) {
		t.Errorf("[1, 3]: %v, %v", two.Shape, err)
	}
}
