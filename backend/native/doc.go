// Package native holds the reference kernels: plain loops, written to be obviously right, the
// oracle every other backend is tested against.
//
// Arithmetic is float32 with one fixed order of operations, each product rounded before the sum
// (no fused multiply-add): o1 = x1·cos − x2·sin, o2 = x2·cos + x1·sin. Inputs in F16/BF16 widen
// exactly; each output rounds once, to nearest even. A fast backend that keeps that order matches
// these kernels bit for bit.
//
// Elements a rotation does not touch (past the rotary dim) are never widened: out of place they
// are copied as raw bits, in place they are not written, so signalling NaNs and every other
// pattern come through unchanged.
//
// Kernels take arguments already checked by package ops and never fail.
package native
