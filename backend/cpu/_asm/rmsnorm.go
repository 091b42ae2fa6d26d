package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// sumSquaresLoop emits native.SumSquares of the n (a multiple of 16) elements of dtype d at x and
// returns it in the low lane of an xmm: elements j..j+31 go to the lanes 0..31, 32 at a time,
// then a last 16. bf16 loads deinterleaved, a 32-element block's even elements in one register
// and its odd ones in the other (one instruction each instead of two widenings); the lanes are
// the same, only held in another order, which sumTree's interleaved form adds up.
func (g *generator) sumSquaresLoop(d dtype, x, n Register) VecVirtual {
	i, end := GP64(), GP64()
	MOVQ(n, end)
	ANDQ(I8(-32), end)
	acc := [2]VecVirtual{ZMM(), ZMM()}
	VXORPS(acc[0], acc[0], acc[0])
	VXORPS(acc[1], acc[1], acc[1])
	var hiMask VecVirtual
	if d == bf16 {
		hiMask = ZMM()
		VPBROADCASTD(g.data.hiMask, hiMask)
	}
	XORQ(i, i)
	sum, tail, done := g.newLabel("sum"), g.newLabel("sumtail"), g.newLabel("sumdone")
	block := func(tail bool) {
		m := Mem{Base: x, Index: i, Scale: uint8(d.esize)}
		if d != bf16 {
			accSquares(load(d, 16, m), acc[0])
			if !tail {
				m.Disp = 16 * d.esize
				accSquares(load(d, 16, m), acc[1])
			}
			return
		}
		ev, od := ZMM(), ZMM()
		if tail {
			// 16 elements: a ymm load leaves the upper lanes zero, which add nothing. (Zeroed
			// first as well: avo takes the load for a partial write, and the register for live
			// from the kernel's entry.)
			VXORPS(od, od, od)
			VMOVDQU16(m, od.AsY())
			VPSLLD(U8(16), od, ev)
			VPANDD(hiMask, od, od)
		} else {
			VPSLLD(U8(16), m, ev)
			VPANDD(m, hiMask, od)
		}
		accSquares(ev, acc[0])
		accSquares(od, acc[1])
	}
	TESTQ(end, end)
	JZ(LabelRef(tail))
	Label(sum)
	block(false)
	ADDQ(U32(32), i)
	CMPQ(i, end)
	JB(LabelRef(sum))
	Label(tail)
	CMPQ(i, n)
	JAE(LabelRef(done))
	block(true)
	Label(done)
	if d == bf16 {
		// Lane 2l in acc[0], 2l+1 in acc[1]: the first step adds the neighbours.
		VADDPS(acc[1], acc[0], acc[0])
		return sumTree(acc[0], true)
	}
	return sumLanes(acc[0], acc[1])
}

// accSquares adds the squares of v's 16 lanes into acc's, one fused multiply-add each
// (native.FMA32's rounding; a NaN in acc stays ahead of one in v, as FMA32(v, v, acc) has it).
func accSquares(v, acc VecVirtual) {
	VFMADD231PS(v, v, acc)
}

// sumLanes adds up native.SumSquares' 32 lanes, lo holding lanes 0..15 and hi 16..31, in its
// neighbour-first order, and returns the sum in the low lane of an xmm. At each step the lower
// lane of a pair is the first operand, so a NaN there wins, as in the reference's s_i += s_{i+w}.
func sumLanes(lo, hi VecVirtual) VecVirtual {
	// Neighbours (2m, 2m+1): per 128-bit lane k, even = [lo4k, lo4k+2, hi4k, hi4k+2] and odd the
	// lanes after them; the sums T are [T2k, T2k+1, T8+2k, T8+2k+1].
	ev, od := ZMM(), ZMM()
	VSHUFPS(U8(0x88), hi, lo, ev)
	VSHUFPS(U8(0xdd), hi, lo, od)
	VADDPS(od, ev, ev)
	return sumTree(ev, false)
}

// sumTree finishes sumLanes from 16 pair sums T in v: with interleaved set, T_m in lane m;
// otherwise in sumLanes' order, T2k and T2k+1 in lanes 4k and 4k+1 and T8+2k, T8+2k+1 in
// lanes 4k+2 and 4k+3.
func sumTree(v VecVirtual, interleaved bool) VecVirtual {
	t := ZMM()
	VPERMILPS(U8(0xb1), v, t) // swap neighbouring lanes: T2m + T2m+1
	VADDPS(t, v, v)
	if interleaved {
		// U_m in lane 2m: U2m + U2m+1 sit 2 lanes apart.
		VPERMILPS(U8(0x4e), v, t)
		VADDPS(t, v, v)
		// V_m in lane 4m: V2m + V2m+1 sit in neighbouring 128-bit lanes.
	} else {
		// U_k in lane 4k, U4+k in lane 4k+2: U2m + U2m+1 sit in neighbouring 128-bit lanes.
		VSHUFF32X4(U8(0xb1), v, v, t)
		VADDPS(t, v, v)
		// V0, V1 in lanes 0, 8 and V2, V3 in lanes 2, 10: the pairs sit 256 bits apart.
	}
	hi := YMM()
	if interleaved {
		VSHUFF32X4(U8(0xb1), v, v, t)
		VADDPS(t, v, v)
		// W0 in lane 0, W1 in lane 8.
		VEXTRACTF32X8(U8(1), v, hi)
		VADDSS(hi.AsX(), v.AsX(), v.AsX())
		return v
	}
	VEXTRACTF32X8(U8(1), v, hi)
	VADDPS(hi, v.AsY(), v.AsY()) // W0 in lane 0, W1 in lane 2
	w1 := XMM()
	VMOVHLPS(v.AsX(), v.AsX(), w1)
	VADDSS(w1, v.AsX(), v.AsX())
	return v
}

// rmsConsts loads rmsScale's constants for rows of n elements: float32(n) and float64 1.
func (g *generator) rmsConsts(n Register) (nF, oneD VecVirtual) {
	nF, oneD = XMM(), XMM()
	VCVTSI2SSQ(n, nF, nF)
	VMOVSD(g.data.oneF64, oneD)
	return nF, oneD
}

// rmsScale returns native.RMSNormScale(sum, n, eps) broadcast to a zmm, sum in the low lane of an
// xmm (nF = float32(n), oneD = 1.0): the mean and ε in float32, the reciprocal square root in
// float64 rounded once.
func rmsScale(sum VecVirtual, nF, oneD, eps Register) VecVirtual {
	rz := ZMM()
	VBROADCASTSS(rmsScalar(sum, nF, oneD, eps), rz)
	return rz
}

// rmsScalar is rmsScale's value in the low lane of an xmm.
func rmsScalar(sum VecVirtual, nF, oneD, eps Register) VecVirtual {
	r := XMM()
	VDIVSS(nF, sum.AsX(), r)
	return rmsFinish(r, oneD, eps)
}

// rmsFinish is rmsScalar after the mean, which r holds: r + ε, then the reciprocal square root.
func rmsFinish(r VecVirtual, oneD, eps Register) VecVirtual {
	u, q := XMM(), XMM()
	VADDSS(eps, r, r)
	VCVTSS2SD(r, r, u) // upper lane from r: no dependency on an earlier chain
	VSQRTSD(u, u, u)
	VDIVSD(u, oneD, q)
	VCVTSD2SS(q, r, r)
	return r
}
