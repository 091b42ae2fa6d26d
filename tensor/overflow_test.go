package tensor

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

// noPanic runs f and fails the test, instead of crashing it, if f panics.
func noPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s panicked: %v", what, r)
		}
	}()
	f()
}

// TestZerosInvalidShape: a negative dimension, an element count that overflows int (wrapping to
// 0 or to a negative length) and an absurd one allocate nothing; none panics or asks the runtime
// for terabytes (which ends the process: "fatal error: out of memory"). The result keeps the
// dtype and the shape asked for, so that the check of whatever takes it names that shape rather
// than calling the tensor missing (or, for an optional argument, taking it for absent).
func TestZerosInvalidShape(t *testing.T) {
	for _, c := range []struct {
		shape []int
		want  string
	}{
		{[]int{-1}, "negative dimension in shape [-1]"},
		{[]int{2, -3}, "negative dimension in shape [2,-3]"},
		{[]int{3, 1 << 62}, "[3,4611686018427387904]"},       // wraps to a negative length
		{[]int{1 << 32, 1 << 32}, "[4294967296,4294967296]"}, // wraps to 0
		{[]int{1 << 62, 4}, "[4611686018427387904,4]"},       // wraps to 0
		{[]int{1 << 40}, "[1099511627776]"},                  // fits int: 4 TiB of float32
		{[]int{1 << 20, 1 << 20, 1 << 10}, "[1048576,1048576,1024]"},
	} {
		noPanic(t, "Zeros"+ShapeString(c.shape), func() {
			z := Zeros(F32, c.shape...)
			if z.IsZero() || z.F32 != nil || !reflect.DeepEqual(z.Shape, c.shape) {
				t.Errorf("Zeros(F32, %v) = %v-element %v %v tensor, want an unbacked F32 %v", c.shape, len(z.F32), z.DType, z.Shape, c.shape)
			}
			err := z.Check("x")
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "missing") {
				t.Errorf("Zeros(F32, %v).Check: %v, want an error naming %s", c.shape, err, c.want)
			}
		})
	}
}

func TestNew(t *testing.T) {
	z, err := New(BF16, 2, 3)
	if err != nil || z.DType != BF16 || len(z.Bits) != 6 || !reflect.DeepEqual(z.Shape, []int{2, 3}) {
		t.Errorf("New(BF16, 2, 3) = %+v, %v", z, err)
	}
	if z, err := New(U8, 0, 1<<62, 1<<62); err != nil || z.Len() != 0 {
		t.Errorf("New of an empty shape with huge dimensions: %v, %v", z.Shape, err)
	}
	for _, c := range []struct {
		d     DType
		shape []int
		want  string
	}{
		{Invalid, []int{2}, "dtype"},
		{DType(99), []int{2}, "dtype"},
		{F32, []int{-1}, "negative"},
		{F32, []int{1 << 32, 1 << 32}, "overflows"},
		{F64, []int{1 << 33, 1<<31 + 1}, "overflows"},
		{F32, []int{1 << 40}, "exceed"},
		{U8, []int{int(MaxBytes + 1)}, "exceed"},
		{F64, []int{int(MaxBytes/8 + 1)}, "exceed"},
	} {
		if _, err := New(c.d, c.shape...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%v, %v) = %v, want an error mentioning %q", c.d, c.shape, err, c.want)
		}
	}
}

// TestNumElementsOverflow: a product past math.MaxInt or a negative dimension is -1, not the
// wrapped product (0 for 2^32·2^32, which passed for an empty tensor).
func TestNumElementsOverflow(t *testing.T) {
	for _, c := range []struct {
		shape []int
		want  int
	}{
		{[]int{1 << 32, 1 << 32}, -1},
		{[]int{3, 1 << 62}, -1},
		{[]int{math.MaxInt, 2}, -1},
		{[]int{-1, 2}, -1},
		{[]int{-1, -1}, -1},
		{[]int{0, 1 << 62, 1 << 62}, 0},
		{[]int{1 << 62, 1 << 62, 0}, 0},
		{[]int{math.MaxInt, 1}, math.MaxInt},
		{[]int{1 << 31, 1 << 31}, 1 << 62},
	} {
		if got := NumElements(c.shape); got != c.want {
			t.Errorf("NumElements(%v) = %d, want %d", c.shape, got, c.want)
		}
		if got := (Tensor{DType: F32, Shape: c.shape}).Len(); got != c.want {
			t.Errorf("Len of %v = %d, want %d", c.shape, got, c.want)
		}
	}
}

// TestReshapeOverflow: Reshape compared wrapped element counts, so an empty tensor took a shape
// of 2^64 elements and a one-element tensor the shape [-1, -1].
func TestReshapeOverflow(t *testing.T) {
	for _, c := range []struct {
		from  Tensor
		shape []int
	}{
		{FromF32(nil, 0), []int{1 << 32, 1 << 32}},
		{FromF32(nil, 0), []int{1 << 62, 4}},
		{FromF32([]float32{1}, 1), []int{-1, -1}},
		{FromF32(make([]float32, 2), 2), []int{-2, -1}},
		{Tensor{DType: F32, Shape: []int{1 << 32, 1 << 32}}, []int{0}},
	} {
		if r, err := c.from.Reshape(c.shape...); err == nil {
			t.Errorf("Reshape %v to %v = %v, want an error", c.from.Shape, c.shape, r.Shape)
		}
	}
}

// TestCloneInvalidView: Clone indexed its source without checking it, so a view past its buffer
// panicked with an index out of range.
func TestCloneInvalidView(t *testing.T) {
	for _, v := range []Tensor{
		FromF32(make([]float32, 2), 3),
		{DType: F32, Shape: []int{2, 2}, Strides: []int{2, 1}, Offset: 1, F32: make([]float32, 4)},
		{DType: I64, Shape: []int{2}, Strides: []int{-1}, I64: make([]int64, 2)},
		{DType: F32, Shape: []int{2, 3}, Strides: []int{1}, F32: make([]float32, 6)},
		{DType: F32, Shape: []int{-1}},
	} {
		noPanic(t, "Clone", func() {
			if c := v.Clone(); !c.IsZero() {
				t.Errorf("Clone of invalid %v/%v = %+v, want the absent Tensor", v.Shape, v.Strides, c)
			}
		})
	}
}

// TestAccessorsNeverPanic: Stride and Index past the rank (a contiguous Stride sliced its shape
// out of range), Contiguous with strides of the wrong rank, and Float64At / Int64At outside the
// backing slice all panicked.
func TestAccessorsNeverPanic(t *testing.T) {
	v := FromF32(iota32(6), 2, 3)
	short := Tensor{DType: F32, Shape: []int{2, 3}, Strides: []int{3}, F32: iota32(6)}
	noPanic(t, "accessors", func() {
		for _, k := range []int{-1, 2, 7} {
			if s := v.Stride(k); s != 0 {
				t.Errorf("Stride(%d) of rank 2 = %d, want 0", k, s)
			}
		}
		if s := short.Stride(1); s != 0 {
			t.Errorf("Stride(1) without a stride = %d, want 0", s)
		}
		if i := v.Index(1, 2, 5, 9); i != 5 {
			t.Errorf("Index(1, 2, 5, 9) = %d, want 5 (coordinates past the rank ignored)", i)
		}
		if short.Contiguous() {
			t.Errorf("strides %v of shape %v taken for contiguous", short.Strides, short.Shape)
		}
		for _, i := range []int{-1, 6, math.MaxInt} {
			if f := v.Float64At(i); f != 0 {
				t.Errorf("Float64At(%d) = %v, want 0", i, f)
			}
			if n := FromI32(make([]int32, 6), 6).Int64At(i); n != 0 {
				t.Errorf("Int64At(%d) = %d, want 0", i, n)
			}
		}
	})
}

// TestContiguousStridesOverflow: the row-major stride of a shape past int wrapped (to 0, a
// broadcast stride, for [2, 2^62, 4]); it saturates at math.MaxInt instead, which Check refuses.
func TestContiguousStridesOverflow(t *testing.T) {
	shape := []int{2, 1 << 62, 4}
	if got := ContiguousStrides(shape); !reflect.DeepEqual(got, []int{math.MaxInt, 4, 1}) {
		t.Errorf("ContiguousStrides(%v) = %v", shape, got)
	}
	if got := (Tensor{DType: F32, Shape: shape}).Stride(0); got != math.MaxInt {
		t.Errorf("Stride(0) of %v = %d, want math.MaxInt", shape, got)
	}
	if got := ContiguousStrides([]int{5, 0, 1 << 62, 4}); !reflect.DeepEqual(got, []int{0, math.MaxInt, 4, 1}) {
		t.Errorf("ContiguousStrides with a zero dimension = %v", got)
	}
}
