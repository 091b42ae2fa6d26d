package main

import "fmt"

// The NEON bulk conversions of package cpu's convert.go (widenBits, narrowBits): sixteen values
// a block, n a multiple of 16, each value loaded and stored once.

func (a *a64) convertKernels() {
	for _, d := range []dtype{bf16, f16} {
		a.convertKernel(d, true)
		a.convertKernel(d, false)
	}
}

// convertKernel emits widen<D>NEON(dst *float32, src *uint16, n int) or
// narrow<D>NEON(dst *uint16, src *float32, n int).
func (a *a64) convertKernel(d dtype, widen bool) {
	name, doc := fmt.Sprintf("narrow%s%s", d.name, neon.name), "%s rounds n float32 values (n a multiple of 16) at src to %s at dst, nearest even."
	params := []a64Param{{"dst", "*uint16"}, {"src", "*float32"}, {"n", "int"}}
	if widen {
		name, doc = fmt.Sprintf("widen%s%s", d.name, neon.name), "%s widens n %s values (n a multiple of 16) at src to float32 at dst."
		params = []a64Param{{"dst", "*float32"}, {"src", "*uint16"}, {"n", "int"}}
	}
	a.text(name, fmt.Sprintf(doc, name, d.name), params, []xreg{0, 1, 2})
	a.ins("CBZ R2, done")
	a.setConsts(d, rTmp)
	a.ins("LSR $4, R2, R2")
	a.label("block")
	if widen {
		a.ins("VLD1.P 32(R1), [%s, %s]", vreg(0).H8(), vreg(1).H8())
		a.widen8(d, 0, 4, 5)
		a.widen8(d, 1, 6, 7)
		a.ins("VST1.P [%s, %s, %s, %s], 64(R0)", vreg(4).S4(), vreg(5).S4(), vreg(6).S4(), vreg(7).S4())
	} else {
		a.ins("VLD1.P 64(R1), [%s, %s, %s, %s]", vreg(0).S4(), vreg(1).S4(), vreg(2).S4(), vreg(3).S4())
		tmp := [4]vreg{24, 25, 26, 27}
		a.narrow8(d, 0, 1, 4, tmp)
		a.narrow8(d, 2, 3, 5, tmp)
		a.ins("VST1.P [%s, %s], 32(R0)", vreg(4).H8(), vreg(5).H8())
	}
	a.ins("SUBS $1, R2, R2")
	a.ins("BNE block")
	a.label("done")
	a.ins("RET")
}
