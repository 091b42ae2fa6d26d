package tensor

import (
	"fmt"
	"math"
	"math/bits"
	"strings"
)

// Tensor is a strided view over a typed backing slice. Exactly one of the data slices is set,
// the one that DType names (F16 and BF16 use Bits). The zero Tensor means "absent", which ops
// accept for optional arguments.
//
// Element (i0, i1, ...) lives at index Offset + Σ ik·Strides[k] of the backing slice. Nil
// Strides means contiguous row-major. Views never own their memory: ops write through them.
type Tensor struct {
	DType   DType
	Shape   []int
	Strides []int
	Offset  int

	F32  []float32
	Bits []uint16 // F16 or BF16 bit patterns
	F64  []float64
	I32  []int32
	I64  []int64
	I8   []int8
	U8   []uint8
}

// FromF32 is a contiguous F32 view of data with the given shape.
func FromF32(data []float32, shape ...int) Tensor {
	return Tensor{DType: F32, Shape: shape, F32: data}
}

// FromBits is a contiguous F16 or BF16 view of raw bits with the given shape.
func FromBits(d DType, data []uint16, shape ...int) Tensor {
	return Tensor{DType: d, Shape: shape, Bits: data}
}

// FromF64 is a contiguous F64 view.
func FromF64(data []float64, shape ...int) Tensor { return Tensor{DType: F64, Shape: shape, F64: data} }

// FromI32 is a contiguous I32 view.
func FromI32(data []int32, shape ...int) Tensor { return Tensor{DType: I32, Shape: shape, I32: data} }

// FromI64 is a contiguous I64 view.
func FromI64(data []int64, shape ...int) Tensor { return Tensor{DType: I64, Shape: shape, I64: data} }

// FromI8 is a contiguous I8 view.
func FromI8(data []int8, shape ...int) Tensor { return Tensor{DType: I8, Shape: shape, I8: data} }

// MaxBytes bounds the memory New allocates for one tensor (16 GiB): a shape asking for more is
// taken for a mistake rather than left to end the process out of memory.
const MaxBytes int64 = 1 << 34

// New allocates a contiguous zero tensor of the given type and shape, refusing an unknown
// dtype, a negative dimension, and a shape whose element count overflows int or whose bytes
// exceed MaxBytes.
func New(d DType, shape ...int) (Tensor, error) {
	size := d.Size()
	if size == 0 {
		return Tensor{}, fmt.Errorf("new tensor: unknown dtype %v", d)
	}
	n, ok := product(shape)
	if !ok {
		return Tensor{}, fmt.Errorf("new tensor %s: a dimension is negative or the element count overflows int", ShapeString(shape))
	}
	if int64(n) > MaxBytes/int64(size) {
		return Tensor{}, fmt.Errorf("new tensor %s of %v: %d elements exceed %d bytes", ShapeString(shape), d, n, MaxBytes)
	}
	t := Tensor{DType: d, Shape: append([]int(nil), shape...)}
	switch d {
	case F32:
		t.F32 = make([]float32, n)
	case F16, BF16:
		t.Bits = make([]uint16, n)
	case F64:
		t.F64 = make([]float64, n)
	case I32:
		t.I32 = make([]int32, n)
	case I64:
		t.I64 = make([]int64, n)
	case I8:
		t.I8 = make([]int8, n)
	case U8:
		t.U8 = make([]uint8, n)
	}
	return t, nil
}

// Zeros is New for shapes the caller knows to be valid. For one New refuses it allocates
// nothing and returns a view of dtype d and that shape over no elements, instead of panicking:
// Check (and so every op that takes it) then refuses it naming the shape. The absent Tensor
// would be reported as missing, or taken for an optional argument left out.
func Zeros(d DType, shape ...int) Tensor {
	t, err := New(d, shape...)
	if err != nil {
		return Tensor{DType: d, Shape: append([]int(nil), shape...)}
	}
	return t
}

// NumElements is the product of the dimensions (1 for a scalar), or -1 when a dimension is
// negative or the product overflows int. A zero dimension makes it 0 however large the others.
func NumElements(shape []int) int {
	n, ok := product(shape)
	if !ok {
		return -1
	}
	return n
}

// mulInt is a·b for a, b ≥ 0; ok is false when the product overflows int. Shapes come from
// files and callers, so sizes are multiplied only after dividing shows the product fits.
func mulInt(a, b int) (int, bool) {
	if a != 0 && b > math.MaxInt/a {
		return 0, false
	}
	return a * b, true
}

// product is the element count of shape; ok is false for a negative dimension before any 0, or
// an overflow. It multiplies with an overflow flag rather than dividing per dimension: the
// operators' checks take a dozen counts and strides per call.
func product(shape []int) (int, bool) {
	n, over := 1, false
	for _, d := range shape {
		switch {
		case d < 0:
			return 0, false
		case d == 0:
			return 0, true
		}
		hi, lo := bits.Mul64(uint64(n), uint64(d))
		over = over || hi != 0 || lo > math.MaxInt
		n = int(lo)
	}
	return n, !over
}

// IsZero reports whether t is the absent tensor.
func (t Tensor) IsZero() bool { return t.DType == Invalid }

// Rank is the number of dimensions.
func (t Tensor) Rank() int { return len(t.Shape) }

// Len is the number of elements, -1 for a shape NumElements refuses.
func (t Tensor) Len() int { return NumElements(t.Shape) }

// Stride is the step in elements along dimension k: 0 for a k outside the shape or without a
// stride. A row-major stride past math.MaxInt (a shape no buffer holds) is math.MaxInt, which
// Check refuses for any dimension of two or more.
func (t Tensor) Stride(k int) int { return t.stride(k) }

// StrideOf is t.Stride(k) read through a pointer: a method on the value copies the whole
// Tensor wherever the compiler does not inline it, which hot paths and per-call checks avoid.
func StrideOf(t *Tensor, k int) int { return t.stride(k) }

// stride is Stride through a pointer: inlined, a method on the value copies the whole Tensor.
func (t *Tensor) stride(k int) int {
	if k < 0 || k >= len(t.Shape) {
		return 0
	}
	if t.Strides != nil {
		if k >= len(t.Strides) {
			return 0
		}
		return t.Strides[k]
	}
	s, ok := product(t.Shape[k+1:])
	if !ok {
		return math.MaxInt
	}
	return s
}

// ContiguousStrides returns the row-major strides of shape, math.MaxInt where one overflows
// (see Stride).
func ContiguousStrides(shape []int) []int {
	st := make([]int, len(shape))
	for k := range shape {
		s, ok := product(shape[k+1:])
		if !ok {
			s = math.MaxInt
		}
		st[k] = s
	}
	return st
}

// backingLen is the length of the slice DType selects.
func (t *Tensor) backingLen() int {
	switch t.DType {
	case F32:
		return len(t.F32)
	case F16, BF16:
		return len(t.Bits)
	case F64:
		return len(t.F64)
	case I32:
		return len(t.I32)
	case I64:
		return len(t.I64)
	case I8:
		return len(t.I8)
	case U8:
		return len(t.U8)
	}
	return 0
}

// Check verifies that t is well formed: a known dtype, non-negative dimensions, strides of the
// right rank, and every element inside the backing slice. name is used in the error.
func (t Tensor) Check(name string) error { return CheckPtr(&t, name) }

// CheckPtr is t.Check(name) without copying *t. The ops check their tensors on every call, and
// on a call that rotates one token, copying the Tensor (a dozen slices and ints) into each
// check costs more than the checking does.
func CheckPtr(t *Tensor, name string) error {
	if t == nil {
		return fmt.Errorf("%s: missing (nil)", name)
	}
	if t.DType == Invalid || t.DType.Size() == 0 {
		return fmt.Errorf("%s: missing or unknown dtype", name)
	}
	for _, d := range t.Shape {
		if d < 0 {
			return fmt.Errorf("%s: negative dimension in shape %s", name, ShapeString(t.Shape))
		}
	}
	if t.Strides != nil && len(t.Strides) != len(t.Shape) {
		return fmt.Errorf("%s: %d strides for shape %v", name, len(t.Strides), t.Shape)
	}
	for _, d := range t.Shape {
		if d == 0 {
			return nil // empty: nothing is ever read or written
		}
	}
	n := t.backingLen()
	if t.Strides == nil {
		// Contiguous: the elements are Offset .. Offset+Len-1; dimensions capped by the buffer
		// keep the running product from overflowing.
		count := 1
		for _, d := range t.Shape {
			if d > n || count > n/d {
				if _, ok := product(t.Shape); !ok {
					return fmt.Errorf("%s: shape %s: the element count overflows int", name, ShapeString(t.Shape))
				}
				return fmt.Errorf("%s: shape %s reaches outside its %d-element buffer", name, ShapeString(t.Shape), n)
			}
			count *= d
		}
		if t.Offset < 0 || t.Offset > n-count {
			return fmt.Errorf("%s: view %v (offset %d) reaches outside its %d-element buffer", name, t.Shape, t.Offset, n)
		}
		return nil
	}
	// Every element must lie in the buffer. A stride and a length each capped by the buffer can
	// still multiply past int once the buffer passes 2^32 elements and wrap around to a small
	// extent, so the extent is compared by dividing first; the sums that follow stay within a
	// buffer's length of the range they are checked against.
	lo, hi := t.Offset, t.Offset
	if lo < 0 || lo >= n {
		return fmt.Errorf("%s: offset %d outside its %d-element buffer", name, t.Offset, n)
	}
	for k, d := range t.Shape {
		st := t.stride(k)
		if d > 1 && (st < -n || st > n || d > n && st != 0) {
			return fmt.Errorf("%s: view %v (strides %v) is larger than its %d-element buffer", name, t.Shape, t.stridesOrContiguous(), n)
		}
		if d <= 1 || st == 0 {
			continue
		}
		if d-1 > (n-1)/max(st, -st) {
			lo = -1
			break
		}
		s := st * (d - 1)
		if s < 0 {
			lo += s
		} else {
			hi += s
		}
		if lo < 0 || hi >= n {
			break
		}
	}
	if lo < 0 || hi >= n {
		return fmt.Errorf("%s: view %v (strides %v, offset %d) reaches outside its %d-element buffer", name, t.Shape, t.stridesOrContiguous(), t.Offset, t.backingLen())
	}
	return nil
}

func (t *Tensor) stridesOrContiguous() []int {
	if t.Strides != nil {
		return t.Strides
	}
	return ContiguousStrides(t.Shape)
}

// Reshape returns a view with a new shape over the same elements; t must be contiguous.
func (t Tensor) Reshape(shape ...int) (Tensor, error) {
	if !t.Contiguous() {
		return Tensor{}, fmt.Errorf("reshape of a non-contiguous %v view", t.Shape)
	}
	n, ok := product(shape)
	if !ok {
		return Tensor{}, fmt.Errorf("reshape %v to %v: a dimension is negative or the element count overflows int", t.Shape, shape)
	}
	if m, ok := product(t.Shape); !ok || n != m {
		return Tensor{}, fmt.Errorf("reshape %v to %v changes the element count", t.Shape, shape)
	}
	r := t
	r.Shape = append([]int(nil), shape...)
	r.Strides = nil
	return r, nil
}

// Permute returns a view of t with its dimensions reordered: dimension k of the view is
// dimension axes[k] of t (torch's permute; Clone makes it contiguous). axes must name every
// dimension once.
func (t Tensor) Permute(axes ...int) (Tensor, error) {
	if len(axes) != len(t.Shape) {
		return Tensor{}, fmt.Errorf("permute %s by %v: want %d axes", ShapeString(t.Shape), axes, len(t.Shape))
	}
	r := t
	r.Shape, r.Strides = make([]int, len(axes)), make([]int, len(axes))
	seen := make([]bool, len(axes))
	for k, a := range axes {
		if a < 0 || a >= len(axes) || seen[a] {
			return Tensor{}, fmt.Errorf("permute %s by %v: want each axis 0..%d once", ShapeString(t.Shape), axes, len(axes)-1)
		}
		seen[a] = true
		r.Shape[k], r.Strides[k] = t.Shape[a], t.stride(a)
	}
	return r, nil
}

// Contiguous reports whether t is laid out row-major without gaps.
// Strides of the wrong rank, or a shape whose row-major strides overflow, are not contiguous.
func (t Tensor) Contiguous() bool {
	if t.Strides == nil {
		return true
	}
	if len(t.Strides) != len(t.Shape) {
		return false
	}
	s, ok := 1, true
	for k := len(t.Shape) - 1; k >= 0; k-- {
		if t.Shape[k] != 1 && (!ok || t.Strides[k] != s) {
			return false
		}
		s, ok = mulInt(s, max(t.Shape[k], 0))
	}
	return true
}

// ShapeString formats a shape as [a,b,c].
func ShapeString(shape []int) string {
	parts := make([]string, len(shape))
	for i, d := range shape {
		parts[i] = fmt.Sprint(d)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// Float64At reads element at flat backing index i as float64 (exact for every type); 0 for an
// index outside the backing slice.
func (t Tensor) Float64At(i int) float64 {
	switch t.DType {
	case F32:
		if uint(i) < uint(len(t.F32)) {
			return float64(t.F32[i])
		}
	case F16, BF16:
		if uint(i) < uint(len(t.Bits)) {
			return float64(ToFloat32(t.DType, t.Bits[i]))
		}
	case F64:
		if uint(i) < uint(len(t.F64)) {
			return t.F64[i]
		}
	case I32, I64, I8, U8:
		if uint(i) < uint(t.backingLen()) {
			return float64(t.Int64At(i))
		}
	}
	return 0
}

// Float32At reads float element i of the backing slice as float32, exactly. t must be F32, F16 or
// BF16 and i inside the backing slice: it does no checks of its own, as the ops' argument checks
// already guarantee both, and it stays small enough to inline into the kernels' element loops.
func (t Tensor) Float32At(i int) float32 {
	if t.DType == F32 {
		return t.F32[i]
	}
	return widen16(t.DType, t.Bits[i])
}

// widen16 is ToFloat32 kept out of line: inlined, its body would push Float32At over the
// inlining budget.
//
//go:noinline
func widen16(d DType, h uint16) float32 { return ToFloat32(d, h) }

// SetFloat32 stores v into float element i of the backing slice, rounded to nearest even for F16
// and BF16. t must be F32, F16 or BF16 and i inside the backing slice, as for Float32At.
func (t Tensor) SetFloat32(i int, v float32) {
	if t.DType == F32 {
		t.F32[i] = v
		return
	}
	t.Bits[i] = FromFloat32(t.DType, v)
}

// Int64At reads an integer element at flat backing index i; 0 for an index outside the backing
// slice.
func (t Tensor) Int64At(i int) int64 {
	switch t.DType {
	case I32:
		if uint(i) < uint(len(t.I32)) {
			return int64(t.I32[i])
		}
	case I64:
		if uint(i) < uint(len(t.I64)) {
			return t.I64[i]
		}
	case I8:
		if uint(i) < uint(len(t.I8)) {
			return int64(t.I8[i])
		}
	case U8:
		if uint(i) < uint(len(t.U8)) {
			return int64(t.U8[i])
		}
	}
	return 0
}

// Index is the backing index of the element at the given coordinates, which it does not check
// against the shape; coordinates past the rank count for nothing (Stride is 0 there).
func (t Tensor) Index(coords ...int) int {
	i := t.Offset
	for k, c := range coords {
		i += c * t.Stride(k)
	}
	return i
}

// Clone returns a contiguous copy of t with its own memory, or the absent Tensor when t fails
// Check (a view reaching outside its buffer cannot be copied) or New refuses its shape.
func (t Tensor) Clone() Tensor {
	if t.Check("clone") != nil {
		return Tensor{}
	}
	c, err := New(t.DType, t.Shape...)
	if err != nil {
		return Tensor{}
	}
	n := t.Len()
	if n == 0 {
		return c
	}
	if t.Contiguous() {
		// One run of n elements from Offset: a copy, where the walk below costs a stride
		// computation per element.
		o := t.Offset
		switch t.DType {
		case F32:
			copy(c.F32, t.F32[o:o+n])
		case F16, BF16:
			copy(c.Bits, t.Bits[o:o+n])
		case F64:
			copy(c.F64, t.F64[o:o+n])
		case I32:
			copy(c.I32, t.I32[o:o+n])
		case I64:
			copy(c.I64, t.I64[o:o+n])
		case I8:
			copy(c.I8, t.I8[o:o+n])
		case U8:
			copy(c.U8, t.U8[o:o+n])
		}
		return c
	}
	coords := make([]int, len(t.Shape))
	for j := 0; j < n; j++ {
		i := t.Index(coords...)
		switch t.DType {
		case F32:
			c.F32[j] = t.F32[i]
		case F16, BF16:
			c.Bits[j] = t.Bits[i]
		case F64:
			c.F64[j] = t.F64[i]
		case I32:
			c.I32[j] = t.I32[i]
		case I64:
			c.I64[j] = t.I64[i]
		case I8:
			c.I8[j] = t.I8[i]
		case U8:
			c.U8[j] = t.U8[i]
		}
		for k := len(coords) - 1; k >= 0; k-- {
			coords[k]++
			if coords[k] < t.Shape[k] {
				break
			}
			coords[k] = 0
		}
	}
	return c
}
