package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
)

// bf16Lanes records which element of a 32-element block each lane of a deinterleaved register
// pair holds. A block of bf16 loads as 16 dwords, each a pair of neighbours; VPSLLD $16 gives
// the first of each pair as float32 (e) and masking the high halves the second (o).
type bf16Lanes struct{ e, o [16]int }

func loadedLanes() (l bf16Lanes) {
	for j := range 16 {
		l.e[j], l.o[j] = 2*j, 2*j+1
	}
	return l
}

// words gives the element in each word of VCVTNE2PS2BF16(o, e): e's lanes, then o's.
func (l bf16Lanes) words() (w [32]int) {
	for j := range 16 {
		w[j], w[16+j] = l.e[j], l.o[j]
	}
	return w
}

// unrounded is the layout whose rounding to bf16 and back is l: rounded, the words of
// VCVTNE2PS2BF16(o, e) (words) split again into dwords, word 2j to lane j of e and word 2j+1
// to lane j of o, give l.
func (l bf16Lanes) unrounded() (n bf16Lanes) {
	var w [32]int
	for j := range 16 {
		w[2*j], w[2*j+1] = l.e[j], l.o[j]
	}
	for j := range 16 {
		n.e[j], n.o[j] = w[j], w[16+j]
	}
	return n
}

// wordOrder declares the VPERMW indices that put the words of VCVTNE2PS2BF16(o, e), e and o in
// layout l, back in element order.
func wordOrder(name string, l bf16Lanes) Mem {
	m := GLOBL(name, RODATA|NOPTR)
	for p := range 32 {
		for i, e := range l.words() {
			if e == p {
				DATA(2*p, U16(uint16(i)))
			}
		}
	}
	return m
}
