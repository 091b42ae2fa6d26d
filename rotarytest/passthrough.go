package rotarytest

import (
	"fmt"
	"math"
	"sync"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/tensor"
)

// The pass-through cases check what the rotation leaves alone against the inputs' bits, not
// against the reference: a float round trip there quiets signalling NaNs (BF16 0x7f81 would come
// out 0x7fc1) in every backend alike, so comparing backends could not see it. Each op's file
// says what passes through in its op and runs its part of these cases from its sweep.
//
// Every op sees all 65536 F16 and BF16 patterns in one shape and the NaN, infinity, zero and
// subnormal ones in the others; F32 gets its specials (signalling and quiet NaNs of both signs,
// infinities, ±0, subnormals). The patterns are spread over the pass-through slots of many
// heads, so a few calls cover them.

// passPatterns is the bit patterns of dtype d the pass-through slots take; callers must not
// modify it. The full set is every 16-bit pattern; the short one keeps the exponents that go
// wrong (all ones: NaNs and infinities; all zeros: subnormals and zeros) and one in 61 of the
// rest. F32 always takes its specials and, short in the same way, one pattern for each upper
// half.
func passPatterns(d tensor.DType, full bool) []uint32 {
	sets := passSets()
	switch {
	case d == tensor.F32:
		return sets[0]
	case full:
		return sets[1]
	case d == tensor.F16:
		return sets[2]
	}
	return sets[3]
}

var passSets = sync.OnceValue(func() [4][]uint32 {
	var sets [4][]uint32
	sets[0] = []uint32{
		0x7f800001, 0xff800001, 0x7fa00000, 0xffa00000, 0x7fbfffff, 0xffbfffff, // signalling NaNs
		0x7fc00000, 0xffc00000, 0x7fc00001, 0x7fffffff, 0xffffffff, // quiet NaNs
		0x7f800000, 0xff800000, 0x00000000, 0x80000000, // infinities, zeros
		0x00000001, 0x80000001, 0x007fffff, 0x807fffff, 0x00400000, // subnormals
		0x00800000, 0x80800000, 0x7f7fffff, 0xff7fffff, 0x3f800000, 0xbf800000,
	}
	for i := range uint32(1 << 16) {
		// Mantissas varied down to the low half.
		if b := i<<16 | (i*0x9e37+0x1234)&0xffff; b>>23&0xff == 0 || b>>23&0xff == 0xff || i%61 == 0 {
			sets[0] = append(sets[0], b)
		}
		sets[1] = append(sets[1], i)
		if e := i >> 10 & 0x1f; e == 0 || e == 0x1f || i%61 == 0 {
			sets[2] = append(sets[2], i)
		}
		if e := i >> 7 & 0xff; e == 0 || e == 0xff || i%61 == 0 {
			sets[3] = append(sets[3], i)
		}
	}
	return sets
})

func bitsAt(t tensor.Tensor, i int) uint32 {
	if t.DType == tensor.F32 {
		return math.Float32bits(t.F32[i])
	}
	return uint32(t.Bits[i])
}

func setBits(t tensor.Tensor, i int, b uint32) {
	if t.DType == tensor.F32 {
		t.F32[i] = math.Float32frombits(b)
		return
	}
	t.Bits[i] = uint16(b)
}

func isNaNBits(d tensor.DType, b uint32) bool {
	switch d {
	case tensor.F32:
		return b&0x7fffffff > 0x7f800000
	case tensor.F16:
		return b&0x7fff > 0x7c00
	}
	return b&0x7fff > 0x7f80
}

// passRows is how many heads of P pass-through elements hold every pattern of pat.
func passRows(pat []uint32, P int) int {
	return (len(pat) + P - 1) / P
}

// fillPass fills the contiguous tensor t, rows of D elements: the first rd of each row with
// finite values, the rest with pat in turn (from the start again once it runs out).
func fillPass(t tensor.Tensor, D, rd int, pat []uint32, r *rng) {
	k := 0
	for i := range t.Len() {
		if i%D < rd {
			v := r.value()
			if t.DType == tensor.F32 {
				t.F32[i] = v
			} else {
				t.Bits[i] = tensor.FromFloat32(t.DType, v)
			}
			continue
		}
		setBits(t, i, pat[k%len(pat)])
		k++
	}
}

// checkPass compares elements rd..D−1 of every row of got with want's, bit for bit.
func checkPass(what string, want, got tensor.Tensor, D, rd int) error {
	for i := range want.Len() {
		if i%D < rd {
			continue
		}
		if w, g := bitsAt(want, i), bitsAt(got, i); w != g {
			return fmt.Errorf("%s: row %d element %d: bits %#x, want %#x", what, i/D, i%D, g, w)
		}
	}
	return nil
}

// passCase records one pass-through case: f runs the op under the backend and checks.
func (s *sweep) passCase(op, name string, f func() error) {
	if s.lacks(op, name) {
		return
	}
	res := &Result{Op: op, Case: "pass-through/" + name}
	defer s.record(res)
	res.Err = f()
}

// passShape is one head size and rotary dim of the sweep, with the style it runs in.
type passShape struct {
	D, rd int
	style rotary.Style
	full  bool // all 16-bit patterns, not the short set
}

// The shapes: a typical partial rotation, one whose pairs end in the Go tail after the 8-pair
// assembly blocks, and one past the cpu backend's 512-element rows, which goes elsewhere. The
// first takes every pattern; the others, to keep the sweep fast under the race detector, the
// short set.
var passShapes = []passShape{{128, 64, rotary.NeoX, true}, {96, 20, rotary.GPTJ, false}, {2048, 514, rotary.GPTJ, false}}

func (sh passShape) String() string { return fmt.Sprintf("head%d/rot%d/%v", sh.D, sh.rd, sh.style) }

// forPass runs f for every dtype and each of shapes.
func forPass(shapes []passShape, f func(d tensor.DType, sh passShape)) {
	for _, d := range dtypes {
		for _, sh := range shapes {
			f(d, sh)
		}
	}
}

// passCacheLen is the cache passQK's embeddings hold: positions from it on take the gathered
// rotation.
const passCacheLen = 64

// passQK runs Embedding.Forward with spec sp (serving op) in place on q [T, 4, D] and
// k [T, 2, D] at positions base to base+6 in turn, rows of them.
func (s *sweep) passQK(op string, d tensor.DType, sh passShape, sp rotary.Spec, rows int, base int64) {
	const hq, hk = 4, 2
	pat := passPatterns(d, sh.full)
	T := (passRows(pat, sh.D-sh.rd) + hq + hk - 1) / (hq + hk)
	name := fmt.Sprintf("%v/%v", d, sh)
	s.passCase(op, name, func() error {
		emb, err := rotary.New(sp, rotary.WithCacheLen(passCacheLen), rotary.WithDispatcher(s.under))
		if err != nil {
			return err
		}
		r := rng(len(name) * 41)
		qk := tensor.Zeros(d, T, hq+hk, sh.D)
		fillPass(qk, sh.D, sh.rd, pat, &r)
		q, k := tensor.Zeros(d, T, hq, sh.D), tensor.Zeros(d, T, hk, sh.D)
		for t := range T {
			for j := range (hq + hk) * sh.D {
				b := bitsAt(qk, t*(hq+hk)*sh.D+j)
				if j < hq*sh.D {
					setBits(q, t*hq*sh.D+j, b)
				} else {
					setBits(k, t*hk*sh.D+j-hq*sh.D, b)
				}
			}
		}
		p := make([]int64, rows*T)
		for i := range p {
			p[i] = base + int64(i%7)
		}
		pos := tensor.FromI64(p, T)
		if rows > 1 {
			pos = tensor.FromI64(p, rows, T)
		}
		q0, k0 := q.Clone(), k.Clone()
		if err := emb.Forward(pos, q, k); err != nil {
			return err
		}
		if err := checkPass("query", q0, q, sh.D, sh.rd); err != nil {
			return err
		}
		return checkPass("key", k0, k, sh.D, sh.rd)
	})
}

// passMode names the run of a pass-through case that writes beside its input or over it.
func passMode(inPlace bool) string {
	if inPlace {
		return "/in-place"
	}
	return "/out-of-place"
}
