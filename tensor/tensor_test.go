package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// iota32 is 0, 1, ..., n-1 as float32.
func iota32(n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(i)
	}
	return s
}

// elems reads every element of t in row-major coordinate order through Index.
func elems(t Tensor) []float64 {
	var out []float64
	n := t.Len()
	coords := make([]int, t.Rank())
	for j := 0; j < n; j++ {
		out = append(out, t.Float64At(t.Index(coords...)))
		for k := len(coords) - 1; k >= 0; k-- {
			coords[k]++
			if coords[k] < t.Shape[k] {
				break
			}
			coords[k] = 0
		}
	}
	return out
}

func floats(v ...float64) []float64 { return v }

func TestCheck(t *testing.T) {
	base := iota32(12) // a 3×4 matrix
	cases := []struct {
		name    string
		t       Tensor
		wantErr string // "" for a valid tensor; otherwise a substring of the error
	}{
		{"contiguous", FromF32(base, 3, 4), ""},
		{"contiguous exact fit 1-D", FromF32(base, 12), ""},
		{"scalar", FromF32(base[:1]), ""},
		{"transposed", Tensor{DType: F32, Shape: []int{4, 3}, Strides: []int{1, 4}, F32: base}, ""},
		{"sliced rows 1..2 cols 1..3", Tensor{DType: F32, Shape: []int{2, 3}, Strides: []int{4, 1}, Offset: 5, F32: base}, ""},
		{"every other column", Tensor{DType: F32, Shape: []int{3, 2}, Strides: []int{4, 2}, Offset: 1, F32: base}, ""},
		{"last element exactly", Tensor{DType: F32, Shape: []int{1}, Offset: 11, F32: base}, ""},
		{"reversed", Tensor{DType: F32, Shape: []int{12}, Strides: []int{-1}, Offset: 11, F32: base}, ""},
		{"reversed rows", Tensor{DType: F32, Shape: []int{3, 4}, Strides: []int{-4, 1}, Offset: 8, F32: base}, ""},
		{"broadcast", Tensor{DType: F32, Shape: []int{5, 4}, Strides: []int{0, 1}, F32: base[:4]}, ""},
		{"dimension of one, odd stride", Tensor{DType: F32, Shape: []int{1, 12}, Strides: []int{1000, 1}, F32: base}, ""},
		{"empty 1-D, no data", FromF32(nil, 0), ""},
		{"empty 2-D, no data", FromF32(nil, 3, 0), ""},
		{"empty, strided, offset past the end", Tensor{DType: F32, Shape: []int{0, 5}, Strides: []int{100, 1}, Offset: 50, F32: base}, ""},
		{"F16 bits", FromBits(F16, make([]uint16, 6), 2, 3), ""},
		{"BF16 transposed", Tensor{DType: BF16, Shape: []int{3, 2}, Strides: []int{1, 3}, Bits: make([]uint16, 6)}, ""},
		{"I8", FromI8(make([]int8, 4), 2, 2), ""},
		{"U8", Tensor{DType: U8, Shape: []int{4}, U8: make([]uint8, 4)}, ""},
		{"F64", FromF64(make([]float64, 4), 4), ""},
		{"I32", FromI32(make([]int32, 4), 4), ""},
		{"I64", FromI64(make([]int64, 4), 4), ""},

		{"absent", Tensor{}, "dtype"},
		{"unknown dtype", Tensor{DType: DType(200), Shape: []int{1}}, "dtype"},
		{"negative dim", FromF32(base, 3, -4), "negative"},
		{"negative dim in empty", FromF32(nil, 0, -1), "negative"},
		{"too few strides", Tensor{DType: F32, Shape: []int{3, 4}, Strides: []int{1}, F32: base}, "strides"},
		{"too many strides", Tensor{DType: F32, Shape: []int{12}, Strides: []int{1, 1}, F32: base}, "strides"},
		{"strides for a scalar", Tensor{DType: F32, Shape: []int{}, Strides: []int{1}, F32: base}, "strides"},
		{"buffer too short", FromF32(base[:11], 3, 4), "outside"},
		{"offset past the end", Tensor{DType: F32, Shape: []int{1}, Offset: 12, F32: base}, "outside"},
		{"offset pushes the last row out", Tensor{DType: F32, Shape: []int{2, 4}, Strides: []int{4, 1}, Offset: 5, F32: base}, "outside"},
		{"negative offset", Tensor{DType: F32, Shape: []int{2}, Offset: -1, F32: base}, "outside"},
		{"transposed with a short buffer", Tensor{DType: F32, Shape: []int{4, 3}, Strides: []int{1, 4}, F32: base[:11]}, "outside"},
		{"stride too large", Tensor{DType: F32, Shape: []int{3, 4}, Strides: []int{5, 1}, F32: base}, "outside"},
		{"negative stride below zero", Tensor{DType: F32, Shape: []int{12}, Strides: []int{-1}, Offset: 10, F32: base}, "outside"},
		{"scalar on an empty buffer", FromF32(nil), "outside"},
		{"data in the wrong slice", Tensor{DType: F32, Shape: []int{2}, Bits: make([]uint16, 2)}, "outside"},
		{"F16 without bits", Tensor{DType: F16, Shape: []int{2}, F32: make([]float32, 2)}, "outside"},
	}
	for _, c := range cases {
		err := c.t.Check("x")
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("%s: Check() = %v, want nil", c.name, err)
		case c.wantErr != "" && err == nil:
			t.Errorf("%s: Check() = nil, want an error mentioning %q", c.name, c.wantErr)
		case err != nil && (!strings.Contains(err.Error(), c.wantErr) || !strings.HasPrefix(err.Error(), "x:")):
			t.Errorf("%s: Check() = %q, want an error starting with the name and mentioning %q", c.name, err, c.wantErr)
		}
	}
}

func TestStrideAndIndex(t *testing.T) {
	c := FromF32(iota32(24), 2, 3, 4)
	for k, want := range []int{12, 4, 1} {
		if got := c.Stride(k); got != want {
			t.Errorf("contiguous Stride(%d) = %d, want %d", k, got, want)
		}
	}
	if got := c.Index(1, 2, 3); got != 23 {
		t.Errorf("contiguous Index(1,2,3) = %d, want 23", got)
	}
	if got := c.Index(); got != 0 {
		t.Errorf("Index() = %d, want 0", got)
	}

	// The transpose of a 3×4 matrix: element (i, j) is base[j*4+i].
	tr := Tensor{DType: F32, Shape: []int{4, 3}, Strides: []int{1, 4}, F32: iota32(12)}
	if tr.Stride(0) != 1 || tr.Stride(1) != 4 {
		t.Errorf("transposed strides = %d, %d", tr.Stride(0), tr.Stride(1))
	}
	for i := 0; i < 4; i++ {
		for j := 0; j < 3; j++ {
			if got := tr.Index(i, j); got != j*4+i {
				t.Errorf("transposed Index(%d,%d) = %d, want %d", i, j, got, j*4+i)
			}
		}
	}

	// A slice with an offset: rows 1..2, columns 1..3.
	sl := Tensor{DType: F32, Shape: []int{2, 3}, Strides: []int{4, 1}, Offset: 5, F32: iota32(12)}
	if got := sl.Index(0, 0); got != 5 {
		t.Errorf("sliced Index(0,0) = %d, want 5", got)
	}
	if got := sl.Index(1, 2); got != 11 {
		t.Errorf("sliced Index(1,2) = %d, want 11", got)
	}

	// An offset applies to contiguous (nil Strides) views too.
	off := Tensor{DType: F32, Shape: []int{2, 2}, Offset: 3, F32: iota32(12)}
	if got := off.Index(1, 1); got != 6 {
		t.Errorf("offset contiguous Index(1,1) = %d, want 6", got)
	}
}

func TestContiguous(t *testing.T) {
	cases := []struct {
		name string
		t    Tensor
		want bool
	}{
		{"nil strides", FromF32(iota32(12), 3, 4), true},
		{"explicit row-major", Tensor{DType: F32, Shape: []int{3, 4}, Strides: []int{4, 1}}, true},
		{"row slice with offset", Tensor{DType: F32, Shape: []int{2, 4}, Strides: []int{4, 1}, Offset: 4}, true},
		{"unit dims ignore strides", Tensor{DType: F32, Shape: []int{1, 3, 1}, Strides: []int{99, 1, 7}}, true},
		{"scalar", Tensor{DType: F32, Shape: []int{}, Strides: []int{}}, true},
		{"transposed", Tensor{DType: F32, Shape: []int{4, 3}, Strides: []int{1, 4}}, false},
		{"column slice", Tensor{DType: F32, Shape: []int{3, 2}, Strides: []int{4, 1}}, false},
		{"every other", Tensor{DType: F32, Shape: []int{6}, Strides: []int{2}}, false},
		{"reversed", Tensor{DType: F32, Shape: []int{4}, Strides: []int{-1}}, false},
		{"broadcast", Tensor{DType: F32, Shape: []int{2, 3}, Strides: []int{0, 1}}, false},
	}
	for _, c := range cases {
		if got := c.t.Contiguous(); got != c.want {
			t.Errorf("%s: Contiguous() = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestClone(t *testing.T) {
	base := iota32(12) // 3×4
	cases := []struct {
		name string
		t    Tensor
		want []float64
	}{
		{"contiguous", FromF32(base, 3, 4), floats(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)},
		{"transposed", Tensor{DType: F32, Shape: []int{4, 3}, Strides: []int{1, 4}, F32: base},
			floats(0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11)},
		{"sliced", Tensor{DType: F32, Shape: []int{2, 3}, Strides: []int{4, 1}, Offset: 5, F32: base},
			floats(5, 6, 7, 9, 10, 11)},
		{"sliced transposed", Tensor{DType: F32, Shape: []int{3, 2}, Strides: []int{1, 4}, Offset: 5, F32: base},
			floats(5, 9, 6, 10, 7, 11)},
		{"reversed rows", Tensor{DType: F32, Shape: []int{3, 4}, Strides: []int{-4, 1}, Offset: 8, F32: base},
			floats(8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3)},
		{"reversed", Tensor{DType: F32, Shape: []int{4}, Strides: []int{-1}, Offset: 3, F32: base}, floats(3, 2, 1, 0)},
		{"broadcast", Tensor{DType: F32, Shape: []int{2, 3}, Strides: []int{0, 1}, Offset: 1, F32: base},
			floats(1, 2, 3, 1, 2, 3)},
		{"offset contiguous", Tensor{DType: F32, Shape: []int{2, 2}, Offset: 3, F32: base}, floats(3, 4, 5, 6)},
		{"scalar", Tensor{DType: F32, Shape: []int{}, Offset: 7, F32: base}, floats(7)},
		{"3-D permuted", Tensor{DType: F32, Shape: []int{2, 2, 3}, Strides: []int{1, 6, 2}, F32: base},
			floats(0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11)},
	}
	for _, c := range cases {
		if err := c.t.Check("view"); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := elems(c.t); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: elements via Index = %v, want %v", c.name, got, c.want)
		}
		cl := c.t.Clone()
		if cl.DType != c.t.DType || !slices.Equal(cl.Shape, c.t.Shape) {
			t.Errorf("%s: clone is %v %v, want %v %v", c.name, cl.DType, cl.Shape, c.t.DType, c.t.Shape)
		}
		if cl.Strides != nil || cl.Offset != 0 || !cl.Contiguous() {
			t.Errorf("%s: clone has strides %v offset %d, want a contiguous tensor", c.name, cl.Strides, cl.Offset)
		}
		if len(cl.F32) != len(c.want) {
			t.Errorf("%s: clone has %d elements, want %d", c.name, len(cl.F32), len(c.want))
		}
		if got := elems(cl); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: clone = %v, want %v", c.name, got, c.want)
		}
		if err := cl.Check("clone"); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}

	// The clone owns its memory and its shape.
	src := iota32(12)
	v := Tensor{DType: F32, Shape: []int{4, 3}, Strides: []int{1, 4}, F32: src}
	cl := v.Clone()
	cl.F32[0] = 100
	if src[0] != 0 {
		t.Errorf("writing the clone changed the source")
	}
	src[4] = -1
	if cl.F32[1] != 4 {
		t.Errorf("writing the source changed the clone")
	}
	cl.Shape[0] = 99
	if v.Shape[0] != 4 {
		t.Errorf("the clone shares its shape slice with the source")
	}
}

func TestCloneEveryDType(t *testing.T) {
	// A transposed 2×3 view of a 3×2 buffer holding 1..6: clone order is 1,3,5,2,4,6.
	want := floats(1, 3, 5, 2, 4, 6)
	view := func(t Tensor) Tensor {
		t.Shape, t.Strides = []int{2, 3}, []int{1, 2}
		return t
	}
	f16 := make([]uint16, 6)
	bf16 := make([]uint16, 6)
	for i := range f16 {
		f16[i] = F16FromFloat32(float32(i + 1))
		bf16[i] = BF16FromFloat32(float32(i + 1))
	}
	cases := []Tensor{
		view(Tensor{DType: F32, F32: []float32{1, 2, 3, 4, 5, 6}}),
		view(Tensor{DType: F16, Bits: f16}),
		view(Tensor{DType: BF16, Bits: bf16}),
		view(Tensor{DType: F64, F64: []float64{1, 2, 3, 4, 5, 6}}),
		view(Tensor{DType: I32, I32: []int32{1, 2, 3, 4, 5, 6}}),
		view(Tensor{DType: I64, I64: []int64{1, 2, 3, 4, 5, 6}}),
		view(Tensor{DType: I8, I8: []int8{1, 2, 3, 4, 5, 6}}),
		view(Tensor{DType: U8, U8: []uint8{1, 2, 3, 4, 5, 6}}),
	}
	for _, v := range cases {
		if err := v.Check("view"); err != nil {
			t.Fatalf("%v: %v", v.DType, err)
		}
		cl := v.Clone()
		if cl.DType != v.DType || cl.backingLen() != 6 || cl.Strides != nil {
			t.Errorf("%v: clone is %v with %d elements, strides %v", v.DType, cl.DType, cl.backingLen(), cl.Strides)
		}
		got := make([]float64, 6)
		for i := range got {
			got[i] = cl.Float64At(i)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%v: clone = %v, want %v", v.DType, got, want)
		}
		if !v.DType.IsFloat() && v.DType != F64 {
			for i := range 6 {
				if cl.Int64At(i) != int64(want[i]) {
					t.Errorf("%v: clone Int64At(%d) = %d, want %v", v.DType, i, cl.Int64At(i), want[i])
				}
			}
		}
	}
}

func TestCloneEmpty(t *testing.T) {
	for _, shape := range [][]int{{0}, {3, 0}, {0, 4, 5}} {
		v := Tensor{DType: BF16, Shape: shape, Strides: ContiguousStrides(shape), Offset: 9}
		cl := v.Clone()
		if cl.Len() != 0 || len(cl.Bits) != 0 || !slices.Equal(cl.Shape, shape) || cl.DType != BF16 {
			t.Errorf("Clone of empty %v = %+v", shape, cl)
		}
		if err := cl.Check("clone"); err != nil {
			t.Errorf("Clone of empty %v: %v", shape, err)
		}
	}
}

func TestReshape(t *testing.T) {
	data := iota32(12)
	base := FromF32(data, 3, 4)

	r, err := base.Reshape(2, 6)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.Shape, []int{2, 6}) || r.Strides != nil || r.Index(1, 0) != 6 {
		t.Errorf("Reshape(2,6) = shape %v strides %v", r.Shape, r.Strides)
	}
	r.F32[r.Index(1, 5)] = -1 // a view: writes go through to the original
	if data[11] != -1 {
		t.Errorf("Reshape copied the data instead of viewing it")
	}
	data[11] = 11

	// A contiguous slice with an offset and explicit strides keeps its offset.
	rows := Tensor{DType: F32, Shape: []int{2, 4}, Strides: []int{4, 1}, Offset: 4, F32: data}
	flat, err := rows.Reshape(8)
	if err != nil {
		t.Fatal(err)
	}
	if flat.Offset != 4 || flat.Strides != nil {
		t.Errorf("Reshape of an offset view: offset %d strides %v", flat.Offset, flat.Strides)
	}
	if got, want := elems(flat), floats(4, 5, 6, 7, 8, 9, 10, 11); !reflect.DeepEqual(got, want) {
		t.Errorf("Reshape of an offset view = %v, want %v", got, want)
	}
	if err := flat.Check("flat"); err != nil {
		t.Error(err)
	}

	// Unit dimensions with arbitrary strides are still contiguous.
	unit := Tensor{DType: F32, Shape: []int{1, 12, 1}, Strides: []int{77, 1, 5}, F32: data}
	u, err := unit.Reshape(3, 4)
	if err != nil {
		t.Fatal(err)
	}
	if got := elems(u); !reflect.DeepEqual(got, elems(base)) {
		t.Errorf("Reshape of a unit-dim view = %v", got)
	}

	// The new shape is copied, not aliased.
	shape := []int{4, 3}
	r2, err := base.Reshape(shape...)
	if err != nil {
		t.Fatal(err)
	}
	shape[0] = 99
	if r2.Shape[0] != 4 {
		t.Errorf("Reshape aliases its shape argument")
	}

	// Scalars and empties.
	if s, err := FromF32(data[:1], 1, 1).Reshape(); err != nil || s.Rank() != 0 || s.Len() != 1 {
		t.Errorf("Reshape to a scalar: %v %v", s.Shape, err)
	}
	if _, err := FromF32(nil, 0, 3).Reshape(3, 0, 7); err != nil {
		t.Errorf("Reshape of an empty tensor: %v", err)
	}

	// Errors: changed element count, non-contiguous views.
	if _, err := base.Reshape(5, 3); err == nil || !strings.Contains(err.Error(), "count") {
		t.Errorf("Reshape(5,3) of 12 elements: err = %v", err)
	}
	if _, err := base.Reshape(12, 1, 2); err == nil {
		t.Errorf("Reshape(12,1,2) of 12 elements succeeded")
	}
	for _, v := range []Tensor{
		{DType: F32, Shape: []int{4, 3}, Strides: []int{1, 4}, F32: data},
		{DType: F32, Shape: []int{2, 3}, Strides: []int{4, 1}, Offset: 5, F32: data},
		{DType: F32, Shape: []int{4}, Strides: []int{-1}, Offset: 3, F32: data},
	} {
		if r, err := v.Reshape(v.Len()); err == nil || !strings.Contains(err.Error(), "non-contiguous") {
			t.Errorf("Reshape of non-contiguous %v/%v = %v, %v; want an error", v.Shape, v.Strides, r.Shape, err)
		}
		// Cloning first makes it reshapeable, with the view's element order.
		r, err := v.Clone().Reshape(v.Len())
		if err != nil {
			t.Errorf("Reshape of a clone: %v", err)
		} else if !reflect.DeepEqual(elems(r), elems(v)) {
			t.Errorf("Reshape of a clone = %v, want %v", elems(r), elems(v))
		}
	}
}

func TestZerosAndHelpers(t *testing.T) {
	for _, d := range []DType{F32, F16, BF16, F64, I32, I64, I8, U8} {
		shape := []int{2, 3}
		z := Zeros(d, shape...)
		shape[0] = 50
		if z.DType != d || !reflect.DeepEqual(z.Shape, []int{2, 3}) || z.backingLen() != 6 || z.Strides != nil {
			t.Errorf("Zeros(%v, 2, 3) = %+v", d, z)
		}
		if err := z.Check("z"); err != nil {
			t.Errorf("Zeros(%v): %v", d, err)
		}
		for i := 0; i < 6; i++ {
			if z.Float64At(i) != 0 {
				t.Errorf("Zeros(%v)[%d] = %v", d, i, z.Float64At(i))
			}
		}
	}
	if z := Zeros(F32); z.Len() != 1 || len(z.F32) != 1 || z.Rank() != 0 {
		t.Errorf("Zeros(F32) scalar = %+v", z)
	}

	if NumElements(nil) != 1 || NumElements([]int{2, 3, 4}) != 24 || NumElements([]int{5, 0}) != 0 {
		t.Errorf("NumElements wrong")
	}
	if got := ContiguousStrides([]int{2, 3, 4}); !reflect.DeepEqual(got, []int{12, 4, 1}) {
		t.Errorf("ContiguousStrides(2,3,4) = %v", got)
	}
	if got := ContiguousStrides(nil); len(got) != 0 {
		t.Errorf("ContiguousStrides(nil) = %v", got)
	}
	if got := ShapeString([]int{2, 3, 4}); got != "[2,3,4]" {
		t.Errorf("ShapeString = %q", got)
	}
	if got := ShapeString(nil); got != "[]" {
		t.Errorf("ShapeString(nil) = %q", got)
	}
	if !(Tensor{}).IsZero() || FromF32(nil, 0).IsZero() {
		t.Errorf("IsZero wrong")
	}

	// Float64At is exact for each type.
	if got := FromBits(F16, []uint16{0x3555}).Float64At(0); got != 0.333251953125 {
		t.Errorf("F16 Float64At = %v", got)
	}
	if got := FromBits(BF16, []uint16{0xc040}).Float64At(0); got != -3 {
		t.Errorf("BF16 Float64At = %v", got)
	}
	if got := FromI64([]int64{1 << 53}).Float64At(0); got != 1<<53 {
		t.Errorf("I64 Float64At = %v", got)
	}
	if got := FromI8([]int8{-128}).Int64At(0); got != -128 {
		t.Errorf("I8 Int64At = %v", got)
	}
	if got := (Tensor{DType: U8, U8: []uint8{255}}).Int64At(0); got != 255 {
		t.Errorf("U8 Int64At = %v", got)
	}
	if got := FromI64([]int64{math.MinInt64}).Int64At(0); got != math.MinInt64 {
		t.Errorf("I64 Int64At = %v", got)
	}
}

func TestDType(t *testing.T) {
	sizes := map[DType]int{Invalid: 0, F32: 4, F16: 2, BF16: 2, F64: 8, I32: 4, I64: 8, I8: 1, U8: 1, DType(99): 0}
	for d, want := range sizes {
		if got := d.Size(); got != want {
			t.Errorf("%v.Size() = %d, want %d", d, got, want)
		}
	}
	for d, want := range map[DType]bool{F32: true, F16: true, BF16: true, F64: false, I32: false, Invalid: false} {
		if got := d.IsFloat(); got != want {
			t.Errorf("%v.IsFloat() = %v, want %v", d, got, want)
		}
	}
	if got := DType(99).String(); got != "DType(99)" {
		t.Errorf("DType(99).String() = %q", got)
	}
	// Every type's String parses back to itself.
	for _, d := range []DType{F32, F16, BF16, F64, I32, I64, I8, U8} {
		p, err := ParseDType(d.String())
		if err != nil || p != d {
			t.Errorf("ParseDType(%q) = %v, %v; want %v", d.String(), p, err, d)
		}
	}
}

func TestParseDType(t *testing.T) {
	accept := map[string]DType{
		"F32": F32, "f32": F32, "float32": F32, "FLOAT32": F32, "float": F32,
		"F16": F16, "f16": F16, "float16": F16, "half": F16, "fp16": F16, "Float16": F16,
		"BF16": BF16, "bf16": BF16, "bfloat16": BF16, "BFloat16": BF16,
		"F64": F64, "float64": F64, "double": F64,
		"I32": I32, "int32": I32, "I64": I64, "int64": I64,
		"I8": I8, "int8": I8, "U8": U8, "uint8": U8,
	}
	for s, want := range accept {
		got, err := ParseDType(s)
		if err != nil || got != want {
			t.Errorf("ParseDType(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "f8", "bfloat", "F32 ", " f16", "float128", "int", "bool", "invalid", "DType(2)", "bf 16"} {
		got, err := ParseDType(s)
		if err == nil {
			t.Errorf("ParseDType(%q) = %v, want an error", s, got)
			continue
		}
		if got != Invalid {
			t.Errorf("ParseDType(%q) returned %v with its error", s, got)
		}
		if !strings.Contains(err.Error(), `"`+s+`"`) {
			t.Errorf("ParseDType(%q) error %q does not name the input", s, err)
		}
	}
}

// TestFloat32At: every F16 and BF16 pattern reads as ToFloat32 gives it and, NaNs aside, stores
// back to the same bits; F32 reads and stores bits unchanged, NaN payloads included; the index
// is into the backing slice, whatever the view's offset.
func TestFloat32At(t *testing.T) {
	for _, d := range []DType{F16, BF16} {
		bits := make([]uint16, 1<<16)
		for i := range bits {
			bits[i] = uint16(i)
		}
		x := Tensor{DType: d, Shape: []int{1 << 15}, Offset: 1 << 15, Bits: bits}
		out := Tensor{DType: d, Shape: []int{1 << 15}, Offset: 7, Bits: make([]uint16, len(bits))}
		for i := range bits {
			v := x.Float32At(i)
			if want := ToFloat32(d, uint16(i)); math.Float32bits(v) != math.Float32bits(want) {
				t.Fatalf("%v Float32At(%d) = %#x, want %#x", d, i, math.Float32bits(v), math.Float32bits(want))
			}
			out.SetFloat32(i, v)
			if v != v {
				if got := out.Float32At(i); got == got {
					t.Fatalf("%v pattern %#04x: NaN stored back as %v", d, i, got)
				}
				continue
			}
			if out.Bits[i] != uint16(i) {
				t.Fatalf("%v pattern %#04x stored back as %#04x", d, i, out.Bits[i])
			}
		}
	}
	f := []uint32{0, 0x80000000, 1, 0x007fffff, 0x3f800001, 0x7f7fffff, 0x7f800000, 0xff800000, 0x7f800001, 0x7fc00001, 0xffbfffff}
	x := Tensor{DType: F32, Shape: []int{1}, Offset: 2, F32: make([]float32, len(f))}
	for i, b := range f {
		x.SetFloat32(i, math.Float32frombits(b))
		if got := math.Float32bits(x.Float32At(i)); got != b || math.Float32bits(x.F32[i]) != b {
			t.Errorf("F32 %#08x: stored and read back as %#08x (backing %#08x)", b, got, math.Float32bits(x.F32[i]))
		}
	}
}

// TestSetFloat32Rounds: F16 and BF16 stores round to nearest, ties to even, as FromFloat32 does.
func TestSetFloat32Rounds(t *testing.T) {
	for _, c := range []struct {
		d    DType
		v    float32
		want uint16
	}{
		{BF16, 1 + 0x1p-8, 0x3f80},           // tie, down to even
		{BF16, 1 + 3*0x1p-8, 0x3f82},         // tie, up to even
		{BF16, 1 + 0x1p-8 + 0x1p-20, 0x3f81}, // above the tie
		{BF16, -(1 + 3*0x1p-8), 0xbf82},      // negative tie
		{BF16, 1 + 0x1p-9, 0x3f80},           // below the tie
		{F16, 1 + 0x1p-11, 0x3c00},           // tie, down to even
		{F16, 1 + 3*0x1p-11, 0x3c02},         // tie, up to even
		{F16, 1 + 0x1p-11 + 0x1p-20, 0x3c01}, // above the tie
		{F16, -(1 + 3*0x1p-11), 0xbc02},      // negative tie
		{F16, 65520, 0x7c00},                 // the tie past the largest finite: +Inf
		{F16, 0x1p-25, 0x0000},               // half the smallest subnormal: to even, zero
		{F16, 3 * 0x1p-25, 0x0002},           // 1.5 smallest subnormals: to even, 2
	} {
		x := Tensor{DType: c.d, Shape: []int{1}, Bits: make([]uint16, 1)}
		x.SetFloat32(0, c.v)
		if x.Bits[0] != c.want {
			t.Errorf("%v SetFloat32(%v) = %#04x, want %#04x", c.d, c.v, x.Bits[0], c.want)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, d := range []DType{F16, BF16} {
		x := Tensor{DType: d, Shape: []int{1}, Bits: make([]uint16, 1)}
		for range 1 << 16 {
			v := math.Float32frombits(r.Uint32())
			x.SetFloat32(0, v)
			if want := FromFloat32(d, v); x.Bits[0] != want {
				t.Fatalf("%v SetFloat32(%#08x) = %#04x, want %#04x", d, math.Float32bits(v), x.Bits[0], want)
			}
		}
	}
}

// TestCheckPtrNil: CheckPtr(nil) is bad input naming the tensor, not a panic.
func TestCheckPtrNil(t *testing.T) {
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v", r)
			}
		}()
		err = CheckPtr(nil, "query")
	}()
	if err == nil || !strings.Contains(err.Error(), "query: missing") {
		t.Errorf("CheckPtr(nil): %v, want an error naming query as missing", err)
	}
}

// TestPermute: a permuted view reads element (i, j, k) of the view at t's (j, k, i) for axes
// (1, 2, 0), over the same memory; Clone of it is the transposed copy; bad axes are errors.
func TestPermute(t *testing.T) {
	v := make([]float32, 24)
	for i := range v {
		v[i] = float32(i)
	}
	x := FromF32(v, 2, 3, 4)
	p, err := x.Permute(1, 2, 0)
	if err != nil || !reflect.DeepEqual(p.Shape, []int{3, 4, 2}) {
		t.Fatalf("Permute(1, 2, 0) = %v, %v", p.Shape, err)
	}
	c := p.Clone()
	for i := range 3 {
		for j := range 4 {
			for k := range 2 {
				if got, want := c.F32[(i*4+j)*2+k], v[(k*3+i)*4+j]; got != want {
					t.Fatalf("permuted (%d,%d,%d) = %v, want %v", i, j, k, got, want)
				}
			}
		}
	}
	for _, axes := range [][]int{{0, 1}, {0, 1, 1}, {0, 1, 3}, {-1, 0, 1}} {
		if _, err := x.Permute(axes...); err == nil {
			t.Errorf("Permute%v of a rank-3 tensor: no error", axes)
		}
	}
}
