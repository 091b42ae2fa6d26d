package tensor

import (
	"bytes"
	"strings"
	"testing"
)

// TestReadElements: elements read in either byte order, past the buffer's size too; a file
// shorter than the tensor is an error saying where it ended.
func TestReadElements(t *testing.T) {
	le := []byte{0, 0, 0x80, 0x3f, 0, 0, 0, 0x40} // 1.0, 2.0 as little-endian float32
	be := []byte{0x3f, 0x80, 0, 0, 0x40, 0, 0, 0}
	for name, c := range map[string]struct {
		data []byte
		big  bool
	}{"little": {le, false}, "big": {be, true}} {
		x := Zeros(F32, 2)
		if err := ReadElements(bytes.NewReader(append([]byte{9}, c.data...)), 1, x, c.big); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if x.F32[0] != 1 || x.F32[1] != 2 {
			t.Errorf("%s: %v", name, x.F32)
		}
	}
	big := Zeros(I8, 3<<20)
	src := make([]byte, 3<<20)
	src[len(src)-1] = 7
	if err := ReadElements(bytes.NewReader(src), 0, big, false); err != nil || big.I8[len(big.I8)-1] != 7 {
		t.Errorf("3 MiB of I8: %v, last %d", err, big.I8[len(big.I8)-1])
	}
	if err := ReadElements(bytes.NewReader(le[:6]), 0, Zeros(F32, 2), false); err == nil || !strings.Contains(err.Error(), "ended at byte 6") {
		t.Errorf("a short file: %v", err)
	}
}

// TestReadElementsRefusesViews: the zero Tensor, a shape its data does not hold and a strided
// view are errors, not a panic or a write to the wrong elements.
func TestReadElementsRefusesViews(t *testing.T) {
	r := bytes.NewReader(make([]byte, 64))
	strided := FromF32(make([]float32, 6), 2, 3)
	strided.Shape, strided.Strides = []int{3, 2}, []int{1, 3}
	for name, x := range map[string]Tensor{"zero": {}, "short": FromF32(nil, 4), "strided": strided} {
		if err := ReadElements(r, 0, x, false); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
