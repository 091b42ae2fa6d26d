package cpu

import (
	"unsafe"

	"github.com/rotary-go/rotary/tensor"
)

// maxRank bounds the ranks the fast path walks without allocating; higher ranks go to native.
const maxRank = 8

// rowWalk steps through the rows of a shape in row-major order, keeping each operand's offset.
type rowWalk struct {
	lead    []int        // the leading dimensions (shape without the last)
	coords  [maxRank]int // current row's coordinates
	strides [6][maxRank]int
	offs    [6]int
	n       int // operands
}

// operand registers t (broadcast dimensions get stride 0) and returns its index.
func (w *rowWalk) operand(t tensor.Tensor) int {
	k := w.n
	w.n++
	w.offs[k] = t.Offset
	for d := range w.lead {
		if t.Shape[d] != 1 {
			w.strides[k][d] = t.Stride(d)
		}
	}
	return k
}

// seek moves to row r (row-major over lead), from the first row.
func (w *rowWalk) seek(r int) {
	for d := len(w.lead) - 1; d >= 0 && r > 0; d-- {
		c := r % w.lead[d]
		r /= w.lead[d]
		w.coords[d] = c
		for k := range w.n {
			w.offs[k] += c * w.strides[k][d]
		}
	}
}

// next advances to the next row; false after the last.
func (w *rowWalk) next() bool {
	for d := len(w.lead) - 1; d >= 0; d-- {
		w.coords[d]++
		for k := range w.n {
			w.offs[k] += w.strides[k][d]
		}
		if w.coords[d] < w.lead[d] {
			return true
		}
		for k := range w.n {
			w.offs[k] -= w.strides[k][d] * w.lead[d]
		}
		w.coords[d] = 0
	}
	return false
}

// skip steps past n rows from the current one, which for n > 1 is the first of dimension
// inner (a group of rows along it).
func (w *rowWalk) skip(inner, n int) {
	if n > 1 {
		// Jump to the group's last row, then step past it.
		w.coords[inner] = n - 1
		for op := range w.n {
			w.offs[op] += (n - 1) * w.strides[op][inner]
		}
	}
	w.next()
}

// rowF32 returns row [off, off+n) of t as float32: the slice itself for F32, else widened into buf.
func rowF32(t tensor.Tensor, off, n int, buf []float32) []float32 {
	if t.DType == tensor.F32 {
		return t.F32[off : off+n : off+n]
	}
	b := t.Bits[off : off+n]
	for j := range n {
		buf[j] = tensor.ToFloat32(t.DType, b[j])
	}
	return buf[:n]
}

// widenRow returns row [off, off+n) of t as float32: the slice itself for F32, else widened into
// buf by the bulk conversion (which may quiet an f16 signalling NaN: a cos or sin value only
// enters products, whose NaN results carry no promised payload).
func widenRow(k *kernels, t *tensor.Tensor, off, n int, buf []float32) []float32 {
	if t.DType == tensor.F32 {
		return t.F32[off : off+n : off+n]
	}
	widenBits(k, t.DType, buf[:n], t.Bits[off:off+n])
	return buf[:n]
}

// elemPtr is the address of backing element i of t (F32, BF16 or F16).
func elemPtr(t *tensor.Tensor, i int) *byte {
	if t.DType == tensor.F32 {
		return (*byte)(unsafe.Pointer(&t.F32[i]))
	}
	return (*byte)(unsafe.Pointer(&t.Bits[i]))
}

// rowPtr is the address of backing element i of t (F32, BF16 or F16), with elements i..i+n-1
// bounds-checked: for kernels that take a row by its address.
func rowPtr(t tensor.Tensor, i, n int) *byte {
	if t.DType == tensor.F32 {
		return (*byte)(unsafe.Pointer(&t.F32[i : i+n][0]))
	}
	return (*byte)(unsafe.Pointer(&t.Bits[i : i+n][0]))
}

// copyRow copies n elements of src at so to dst at do (same dtype); a no-op in place.
func copyRow(dst tensor.Tensor, do int, src tensor.Tensor, so, n int) {
	if src.DType == tensor.F32 {
		if &dst.F32[do] != &src.F32[so] {
			copy(dst.F32[do:do+n], src.F32[so:so+n])
		}
		return
	}
	if &dst.Bits[do] != &src.Bits[so] {
		copy(dst.Bits[do:do+n], src.Bits[so:so+n])
	}
}

// rowBuffers are float32 scratch rows on the stack for rotary dims up to 512.
type rowBuffers struct {
	cos, sin [512]float32
}
