package main

import "fmt"

// mropeGatherKernel emits mropeGatherNEON, NEON's counterpart of mropeGatherAVX512 (mrope.go has
// the contract): a token's cos/sin row assembled from the cache rows of its axes' positions,
// sixteen floats a chunk, by the same masks (bit 16(a−1)+l of a chunk's uint64 set where float l
// takes row a ≥ 1, the later axis winning). NEON has no masked loads: each field of the mask
// is broadcast and tested against each lane's bit (CMTST), and the row's lanes are inserted
// where it is set (BIT). An axis whose field is zero is not loaded at all; one that is loads
// all sixteen floats of its row, which the Go side bounds-checks.
func (a *a64) mropeGatherKernel() {
	name := "mropeGather" + neon.name
	a.b.WriteString("\n// Lane l of vector q holds bit 4q+l: the chunk's float that a mask bit selects.\n")
	for q := range 4 {
		for l := range 4 {
			fmt.Fprintf(&a.b, "DATA mropebits<>+%d(SB)/4, $0x%08x\n", 16*q+4*l, uint32(1)<<(4*q+l))
		}
	}
	a.b.WriteString("GLOBL mropebits<>(SB), RODATA|NOPTR, $64\n")
	rows := [4]xreg{1, 2, 3, 4}
	const dst, masks, chunks, m, field, tbl xreg = 0, 5, 6, 10, 11, 12
	a.text(name, name+" assembles chunks×16 floats of dst from r0 ... r3 by masks: each chunk's uint64 holds three 16-lane masks, for r1, r2 and r3, over r0.",
		[]a64Param{{"dst", "*float32"}, {"r0", "*float32"}, {"r1", "*float32"}, {"r2", "*float32"}, {"r3", "*float32"}, {"masks", "*uint64"}, {"chunks", "int"}},
		[]xreg{dst, rows[0], rows[1], rows[2], rows[3], masks, chunks})
	a.ins("CBZ %s, done", chunks)
	a.ins("MOVD $mropebits<>(SB), %s", tbl)
	bits := vreg(20) // V20–V23
	a.ins("VLD1 (%s), [%s, %s, %s, %s]", tbl, bits.S4(), (bits + 1).S4(), (bits + 2).S4(), (bits + 3).S4())
	a.label("chunk")
	a.ins("VLD1 (%s), [V0.S4, V1.S4, V2.S4, V3.S4]", rows[0])
	a.ins("MOVD.P 8(%s), %s", masks, m)
	for ax := 1; ax < 4; ax++ {
		skip := fmt.Sprintf("axis%ddone", ax)
		a.ins("UBFX $%d, %s, $16, %s", 16*(ax-1), m, field)
		a.ins("CBZ %s, %s", field, skip)
		a.ins("VLD1 (%s), [V4.S4, V5.S4, V6.S4, V7.S4]", rows[ax])
		a.ins("VDUP %s, V8.S4", field)
		for q := range 4 {
			sel := vreg(9 + q)
			a.ins("VCMTST %s, V8.S4, %s", (bits + vreg(q)).S4(), sel.S4())
			a.ins("VBIT %s, %s, %s", sel.B16(), vreg(4+q).B16(), vreg(q).B16()) // row ax's lanes where selected
		}
		a.label(skip)
	}
	a.ins("VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(%s)", dst)
	for _, r := range rows {
		a.ins("ADD $64, %s, %s", r, r)
	}
	a.ins("SUBS $1, %s, %s", chunks, chunks)
	a.ins("BNE chunk")
	a.label("done")
	a.ins("RET")
}
