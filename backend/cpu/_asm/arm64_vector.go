package main

// What the NEON kernels share: the constants of the bf16 rounding, and the widening of eight
// bf16 or f16 values to two float32 vectors and back.

// The constants' registers, V28 to V31, set by setConsts; the kernels keep their data below.
const (
	vZero  vreg = 28 // 0: the low halves of widened bf16
	vOne   vreg = 29 // 1 per lane: the lowest bit kept of a bf16
	vBias  vreg = 30 // 0x7fff per lane: the rounding's bias
	vQuiet vreg = 31 // 0x00400000 per lane: a NaN's quiet bit, as a bf16's 0x40
)

// setConsts sets the constants d's widening and rounding use (bf16's; f32 and f16 need none),
// through the general register tmp.
func (a *a64) setConsts(d dtype, tmp xreg) {
	if d != bf16 {
		return
	}
	a.ins("VEOR %s, %s, %s", vZero.B16(), vZero.B16(), vZero.B16())
	for _, c := range []struct {
		v   vreg
		val uint32
	}{{vOne, 1}, {vBias, 0x7fff}, {vQuiet, 0x00400000}} {
		a.ins("MOVW $0x%x, %s", c.val, tmp)
		a.ins("VDUP %s, %s", tmp, c.v.S4())
	}
}

// widen8 widens the eight bf16 or f16 values of raw to float32, the first four into lo and the
// last four into hi, exactly: bf16 by placing each value in the high half of a zero word
// (ZIP1/ZIP2 with zero), f16 by FCVTL/FCVTL2 (which quiets a signalling NaN, as every widened
// value is multiplied before it is stored, which quiets it anyway).
func (a *a64) widen8(d dtype, raw, lo, hi vreg) {
	switch d {
	case bf16:
		a.ins("VZIP1 %s, %s, %s", raw.H8(), vZero.H8(), lo.H8())
		a.ins("VZIP2 %s, %s, %s", raw.H8(), vZero.H8(), hi.H8())
	case f16:
		a.fcvtl(lo, raw)
		a.fcvtl2(hi, raw)
	default:
		panic("widen8: " + d.name)
	}
}

// narrow8 rounds lo and hi (four float32 each) to eight bf16 or f16 values in dst, nearest
// even, as tensor.FromFloat32. dst may be lo, not hi. bf16 uses tmp's four registers:
// r = (v + 0x7fff + ((v >> 16) & 1)) >> 16, and a NaN keeps its high half with the quiet bit
// set, the lanes chosen by FCMEQ v, v (false only for NaN); UZP2 then takes the high halves of
// the eight words in order.
func (a *a64) narrow8(d dtype, lo, hi, dst vreg, tmp [4]vreg) {
	if dst == hi {
		panic("narrow8: dst is hi")
	}
	switch d {
	case bf16:
		r0, r1, m, q := tmp[0], tmp[1], tmp[2], tmp[3]
		a.roundBF16(lo, r0, m, q)
		a.roundBF16(hi, r1, m, q)
		a.ins("VUZP2 %s, %s, %s", r1.H8(), r0.H8(), dst.H8())
	case f16:
		a.fcvtn(dst, lo)
		a.fcvtn2(dst, hi)
	default:
		panic("narrow8: " + d.name)
	}
}

// roundBF16 leaves in r the words whose high halves are v's lanes rounded to bf16; m and q are
// scratch.
func (a *a64) roundBF16(v, r, m, q vreg) {
	a.ins("VUSHR $16, %s, %s", v.S4(), r.S4())
	a.ins("VAND %s, %s, %s", vOne.B16(), r.B16(), r.B16())
	a.ins("VADD %s, %s, %s", v.S4(), r.S4(), r.S4())
	a.ins("VADD %s, %s, %s", vBias.S4(), r.S4(), r.S4())
	a.fcmeq(m, v, v)
	a.ins("VORR %s, %s, %s", vQuiet.B16(), v.B16(), q.B16())
	a.ins("VBIF %s, %s, %s", m.B16(), q.B16(), r.B16()) // r where not NaN, q where NaN
}
