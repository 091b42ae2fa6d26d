//go:build arm64 && !purego

package cpu

import (
	"unsafe"

	"github.com/rotary-go/rotary/tensor"
)

// interleaveRoPEOK reports whether the ISA has interleaveRoPEAsm's kernel for rows of n elements
// of dtype d: NEON's, for n a multiple of 16 (eight pairs a block) up to a row buffer's length.
func interleaveRoPEOK(i isa, d tensor.DType, n int, inPlace bool) bool {
	return i == isaNEON && n != 0 && n%16 == 0 && n <= len(rowBuffers{}.cos)
}

// interleaveRoPEAsm runs interleave_rope's NEON kernel on `rows` rows of n elements, strides in
// bytes, all by the cos/sin row at cos and sin (dtype d), widened to float32 once for them all.
// The kernel stores a row's second half before it has read the row's end, so in place each row
// is first copied aside (a few hundred bytes, in L1).
func interleaveRoPEAsm(d tensor.DType, x, out *byte, rows, xstride, ostride int, cos, sin *byte, n int, inPlace bool) {
	var buf rowBuffers
	c, s := floatRow(d, cos, n, buf.cos[:]), floatRow(d, sin, n, buf.sin[:])
	if !inPlace {
		interleaveRoPENEON(d, out, rows, ostride, c, s, n/2, x, xstride)
		return
	}
	var row [4 * len(buf.cos)]byte
	size := n * d.Size()
	for range rows {
		copy(row[:size], unsafe.Slice(x, size))
		interleaveRoPENEON(d, out, 1, 0, c, s, n/2, &row[0], 0)
		x, out = (*byte)(unsafe.Add(unsafe.Pointer(x), xstride)), (*byte)(unsafe.Add(unsafe.Pointer(out), ostride))
	}
}

// interleaveRoPENEON calls the kernel of dtype d.
func interleaveRoPENEON(d tensor.DType, out *byte, rows, ostride int, cos, sin *float32, half int, x *byte, xstride int) {
	switch d {
	case tensor.F32:
		interleaveRoPEF32NEON(out, rows, ostride, cos, sin, half, half, x, xstride)
	case tensor.BF16:
		interleaveRoPEBF16NEON(out, rows, ostride, cos, sin, half, half, x, xstride)
	case tensor.F16:
		interleaveRoPEF16NEON(out, rows, ostride, cos, sin, half, half, x, xstride)
	}
}

// floatRow returns the n values of dtype d at p as float32: p itself for F32, else widened into
// buf (len(buf) ≥ n).
func floatRow(d tensor.DType, p *byte, n int, buf []float32) *float32 {
	if d == tensor.F32 {
		return (*float32)(unsafe.Pointer(p))
	}
	widenBits(neon, d, buf[:n], unsafe.Slice((*uint16)(unsafe.Pointer(p)), n))
	return &buf[0]
}
