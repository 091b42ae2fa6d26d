package tensor

import (
	"syscall"
	"testing"
)

// hugeU8 maps n bytes of address space without touching them: Check reads only the buffer's
// length, so multi-GiB buffers cost nothing.
func hugeU8(t *testing.T, n int) []uint8 {
	t.Helper()
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ, syscall.MAP_ANON|syscall.MAP_PRIVATE|syscall.MAP_NORESERVE)
	if err != nil {
		t.Skipf("cannot reserve %d bytes of address space: %v", n, err)
	}
	t.Cleanup(func() { syscall.Munmap(b) })
	return b
}

// TestCheckExtentOverflow: past 2^32 elements a stride and a length each within the buffer
// multiply past int. The view [2^32+1] with stride 2^32 over 2^32+1 bytes has its extent
// 2^32·2^32 wrap to 0 and passed Check, though its third element lies at 2^33.
func TestCheckExtentOverflow(t *testing.T) {
	n := 1<<32 + 1
	buf := hugeU8(t, n)
	for _, c := range []struct {
		shape, strides []int
		offset         int
		ok             bool
	}{
		{[]int{1<<32 + 1}, []int{1 << 32}, 0, false},
		{[]int{1<<32 + 1}, []int{-(1 << 32)}, 1 << 32, false},
		{[]int{2, 1<<32 + 1}, []int{1, 1 << 32}, 0, false},
		{[]int{3, 1 << 31}, []int{1 << 31, 1 << 31}, 0, false},
		{[]int{2}, []int{1 << 32}, 0, true},
		{[]int{2}, []int{-(1 << 32)}, 1 << 32, true},
		{[]int{1<<32 + 1}, []int{1}, 0, true},
		{[]int{1<<32 + 1, 5}, []int{1, 0}, 0, true},
	} {
		v := Tensor{DType: U8, Shape: c.shape, Strides: c.strides, Offset: c.offset, U8: buf}
		if err := v.Check("v"); (err == nil) != c.ok {
			t.Errorf("Check of %v strides %v offset %d over %d bytes = %v, want ok %v", c.shape, c.strides, c.offset, n, err, c.ok)
		}
	}
}
