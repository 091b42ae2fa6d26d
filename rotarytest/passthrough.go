package rotarytest

import (
	"fmt"
	"math"
	"sync"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// The pass-through sweep checks what the rotation leaves alone against the inputs' bits, not
// against the reference: a float round trip there quiets signalling NaNs (BF16 0x7f81 would come
// out 0x7fc1) in every backend alike, so comparing backends could not see it. What passes
// through, per op:
//
//   - rotary_embedding, rotary_embedding_gathered, mrope (in place): elements RotaryDim..D−1 of
//     every head keep their bits.
//   - apply_rotary_emb, apply_rotary_emb_thd: out's elements past the rotary dim are x's bits,
//     in place or not; their backward passes likewise copy dy's bits into dx.
//   - qk_rmsnorm_rope: Hugging Face norms the whole head and rotates its first RotaryDim
//     elements, so the rest are the normed values w·norm(x), rounded to the dtype as the norm
//     rounds them and then stored as they are. With x = 1 and ε = 0 the norm is exactly 1, so
//     those elements come out as the weight's bits; a NaN weight goes through the norm's
//     multiplication and only has to stay a NaN.
//   - kv_rmsnorm_rope_cache: every element of kv is normed or rotated; what the op must leave
//     alone is the caches' rows it does not write, to the bit.
//   - interleave_rope rotates whole rows: nothing passes through.
//
// Every op sees all 65536 F16 and BF16 patterns in one shape and the NaN, infinity, zero and
// subnormal ones in the others; F32 gets its specials (signalling and quiet NaNs of both signs,
// infinities, ±0, subnormals). The patterns are spread over the pass-through slots of many
// heads, so a few calls cover them.

func init() {
	addCases("pass-through", (*sweep).passThrough)
}

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
	res := Result{Op: op, Case: "pass-through/" + name}
	defer func() {
		if p := recover(); p != nil {
			res.Err = fmt.Errorf("panic: %v", p)
		}
		s.results = append(s.results, res)
	}()
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

func (s *sweep) passThrough() {
	for _, d := range dtypes {
		for _, sh := range passShapes {
			s.passQK(d, sh)
			s.passApply(d, sh)
			s.passTHD(d, sh)
		}
		for _, sh := range passShapes[:2] {
			s.passQKNorm(d, sh)
		}
		s.passKvCache(d)
	}
}

// passQK runs rotary_embedding, its gathered form and mrope in place on q [T, 4, D] and
// k [T, 2, D].
func (s *sweep) passQK(d tensor.DType, sh passShape) {
	const hq, hk, cacheLen = 4, 2, 64
	pat := passPatterns(d, sh.full)
	T := (passRows(pat, sh.D-sh.rd) + hq + hk - 1) / (hq + hk)
	h := sh.rd / 2
	mr := spec(sh.D, sh.rd, sh.style)
	mr.MRoPE = &rotary.MRoPE{Sections: []int{h - 2*(h/3), h / 3, h / 3}}
	for _, c := range []struct {
		op   string
		sp   rotary.Spec
		rows int
		base int64 // positions base + t%7
	}{
		{ops.RotaryEmbedding.Name(), spec(sh.D, sh.rd, sh.style), 1, 0},
		{ops.RotaryEmbeddingGather.Name(), spec(sh.D, sh.rd, sh.style), 1, cacheLen},
		{ops.MRoPE.Name(), mr, 3, 0},
	} {
		name := fmt.Sprintf("%v/%v", d, sh)
		s.passCase(c.op, name, func() error {
			emb, err := rotary.New(c.sp, rotary.WithCacheLen(cacheLen), rotary.WithDispatcher(s.under))
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
			p := make([]int64, c.rows*T)
			for i := range p {
				p[i] = c.base + int64(i%7)
			}
			pos := tensor.FromI64(p, T)
			if c.rows > 1 {
				pos = tensor.FromI64(p, c.rows, T)
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
}

// passApply runs apply_rotary_emb and its backward pass, out of place and in place, on
// [T, 8, D] (THD layout, cos and sin broadcast over the heads).
func (s *sweep) passApply(d tensor.DType, sh passShape) {
	const H = 8
	pat := passPatterns(d, sh.full)
	T := (passRows(pat, sh.D-sh.rd) + H - 1) / H
	name := fmt.Sprintf("%v/%v", d, sh)
	r := rng(len(name) * 43)
	xs, cs := []int{T, H, sh.D}, []int{T, 1, sh.rd}
	x, dy := tensor.Zeros(d, xs...), tensor.Zeros(d, xs...)
	fillPass(x, sh.D, sh.rd, pat, &r)
	fillPass(dy, sh.D, sh.rd, pat, &r)
	cos, sin := randomTensor(d, cs, &r), randomTensor(d, cs, &r)
	for _, inPlace := range []bool{false, true} {
		mode := "/out-of-place"
		if inPlace {
			mode = "/in-place"
		}
		s.passCase(ops.ApplyRotaryEmb.Name(), name+mode, func() error {
			in, out := x.Clone(), tensor.Zeros(d, xs...)
			if inPlace {
				out = in
			}
			if err := rotary.ApplyRotaryEmb(s.under, rotary.ApplyRotaryEmbParams{Layout: ops.THD, X: in, Cos: cos, Sin: sin, Out: out, Style: sh.style}); err != nil {
				return err
			}
			return checkPass("out", x, out, sh.D, sh.rd)
		})
		s.passCase(ops.ApplyRotaryEmbBackward.Name(), name+mode, func() error {
			g, dx := dy.Clone(), tensor.Zeros(d, xs...)
			if inPlace {
				dx = g
			}
			dcos, dsin := tensor.Zeros(d, cs...), tensor.Zeros(d, cs...)
			if err := rotary.ApplyRotaryEmbBackward(s.under, rotary.ApplyRotaryEmbBackwardParams{Layout: ops.THD, DY: g, X: x, Cos: cos, Sin: sin, DX: dx, DCos: dcos, DSin: dsin, Style: sh.style}); err != nil {
				return err
			}
			return checkPass("dx", dy, dx, sh.D, sh.rd)
		})
	}
}

// passTHD runs apply_rotary_emb_thd and its backward pass, out of place and in place, on two
// packed sequences of [T, 8, D].
func (s *sweep) passTHD(d tensor.DType, sh passShape) {
	const H = 8
	pat := passPatterns(d, sh.full)
	T := (passRows(pat, sh.D-sh.rd) + H - 1) / H
	name := fmt.Sprintf("%v/%v", d, sh)
	r := rng(len(name) * 47)
	xs := []int{T, H, sh.D}
	x, dy := tensor.Zeros(d, xs...), tensor.Zeros(d, xs...)
	fillPass(x, sh.D, sh.rd, pat, &r)
	fillPass(dy, sh.D, sh.rd, pat, &r)
	cos, sin := randomTensor(d, []int{T, sh.rd}, &r), randomTensor(d, []int{T, sh.rd}, &r)
	seqs := ops.PackedSeqs{CuSeqlens: tensor.FromI32([]int32{0, int32(T / 3), int32(T)}, 3)}
	for _, inPlace := range []bool{false, true} {
		mode := "/out-of-place"
		if inPlace {
			mode = "/in-place"
		}
		s.passCase(ops.ApplyRotaryEmbTHD.Name(), name+mode, func() error {
			in, out := x.Clone(), tensor.Zeros(d, xs...)
			if inPlace {
				out = in
			}
			if err := rotary.ApplyRotaryEmbTHD(s.under, rotary.ApplyRotaryEmbTHDParams{X: in, Cos: cos, Sin: sin, Out: out, Seqs: seqs, Style: sh.style}); err != nil {
				return err
			}
			return checkPass("out", x, out, sh.D, sh.rd)
		})
		s.passCase(ops.ApplyRotaryEmbTHDBackward.Name(), name+mode, func() error {
			g, dx := dy.Clone(), tensor.Zeros(d, xs...)
			if inPlace {
				dx = g
			}
			if err := rotary.ApplyRotaryEmbTHDBackward(s.under, rotary.ApplyRotaryEmbTHDBackwardParams{DY: g, Cos: cos, Sin: sin, DX: dx, Seqs: seqs, Style: sh.style}); err != nil {
				return err
			}
			return checkPass("dx", dy, dx, sh.D, sh.rd)
		})
	}
}

// passQKNorm runs qk_rmsnorm_rope on heads of ones with ε = 0 (a norm of exactly 1) and the
// patterns as the weights of the pass-through elements, query and key taking the next ones
// in turn, and checks that those elements come out as the weights.
func (s *sweep) passQKNorm(d tensor.DType, sh passShape) {
	name := fmt.Sprintf("%v/%v", d, sh)
	s.passCase(ops.QKRMSNormRoPE.Name(), name, func() error {
		const T, hq, hk = 2, 3, 1
		emb, err := rotary.New(spec(sh.D, sh.rd, sh.style), rotary.WithCacheLen(16), rotary.WithDispatcher(s.under))
		if err != nil {
			return err
		}
		pat := passPatterns(d, sh.full)
		pos := tensor.FromI64([]int64{3, 11}, T)
		ones := func(w tensor.Tensor, from, to int) {
			for i := from; i < to; i++ {
				if d == tensor.F32 {
					w.F32[i] = 1
				} else {
					w.Bits[i] = tensor.FromFloat32(d, 1)
				}
			}
		}
		weight := func(k int) (tensor.Tensor, int) {
			w := tensor.Zeros(d, sh.D)
			ones(w, 0, sh.rd)
			for j := sh.rd; j < sh.D; j++ {
				setBits(w, j, pat[k%len(pat)])
				k++
			}
			return w, k
		}
		for k := 0; k < len(pat); {
			var qw, kw tensor.Tensor
			qw, k = weight(k)
			kw, k = weight(k)
			q, key := tensor.Zeros(d, T, hq, sh.D), tensor.Zeros(d, T, hk, sh.D)
			ones(q, 0, q.Len())
			ones(key, 0, key.Len())
			if err := emb.ForwardQKNorm(pos, q, key, qw, kw, 0); err != nil {
				return err
			}
			for _, c := range []struct {
				what   string
				out, w tensor.Tensor
			}{{"query", q, qw}, {"key", key, kw}} {
				for i := range c.out.Len() {
					j := i % sh.D
					if j < sh.rd {
						continue
					}
					g, w := bitsAt(c.out, i), bitsAt(c.w, j)
					if g == w || isNaNBits(d, w) && isNaNBits(d, g) {
						continue
					}
					return fmt.Errorf("%s: head %d element %d: bits %#x, want the weight's %#x", c.what, i/sh.D, j, g, w)
				}
			}
		}
		return nil
	})
}

// passKvCache runs kv_rmsnorm_rope_cache on float caches full of the patterns and checks that
// every element outside the rows it writes keeps its bits.
func (s *sweep) passKvCache(d tensor.DType) {
	const B, S, Dv, Dk, bs = 2, 5, 64, 32, 16
	slots := (len(passPatterns(d, true)) + Dv + Dk - 1) / (Dv + Dk)
	blocks := max((slots+bs-1)/bs, 4)
	for _, mode := range []ops.CacheMode{ops.CacheNorm, ops.CachePA, ops.CachePANZ, ops.CachePABlkBNSD} {
		name := fmt.Sprintf("%v/%s", d, mode)
		s.passCase(ops.KVRMSNormRoPECache.Name(), name, func() error {
			r := rng(len(name) * 53)
			shape := func(w int) []int {
				if mode == ops.CacheNorm {
					return []int{blocks, 1, bs, w}
				}
				return []int{blocks, bs, 1, w}
			}
			kc, cc := tensor.Zeros(d, shape(Dk)...), tensor.Zeros(d, shape(Dv)...)
			pat := passPatterns(d, true)
			for i := range kc.Len() + cc.Len() {
				if i < kc.Len() {
					setBits(kc, i, pat[i%len(pat)])
				} else {
					setBits(cc, i-kc.Len(), pat[i%len(pat)])
				}
			}
			var idx []int64
			switch {
			case mode == ops.CacheNorm:
				for i := range B * S {
					idx = append(idx, int64((i*3+1)%bs))
				}
			case mode.PerBlock():
				idx = []int64{int64(blocks / 3 * bs), int64((blocks - 1) * bs)}
			default:
				for i := range B * S {
					idx = append(idx, int64((i*37+5)%(blocks*bs)))
				}
			}
			idx[len(idx)-1] = -1
			index := tensor.FromI64(idx, len(idx))
			if mode == ops.CacheNorm {
				index.Shape = []int{B, S}
			}
			p := ops.KVRMSNormRoPECacheParams{
				KV: randomTensor(d, []int{B, 1, S, Dv + Dk}, &r), Gamma: randomTensor(d, []int{Dv}, &r),
				Cos: randomTensor(d, []int{B, 1, S, Dk}, &r), Sin: randomTensor(d, []int{B, 1, S, Dk}, &r),
				Index: index, KCache: kc, CKVCache: cc, Epsilon: 1e-6, CacheMode: mode,
			}
			a, err := ops.NewKVRMSNormRoPECache(p)
			if err != nil {
				return err
			}
			written := [2]map[int]bool{{}, {}}
			for b := range B {
				for s := range S {
					block, slot, ok := a.Slot(b, s)
					if !ok {
						continue
					}
					for c := range Dk {
						written[0][a.KLayout.At(block, slot, c)] = true
					}
					for c := range Dv {
						written[1][a.CKVLayout.At(block, slot, c)] = true
					}
				}
			}
			k0, c0 := kc.Clone(), cc.Clone()
			if err := rotary.KVRMSNormRoPECache(s.under, p); err != nil {
				return err
			}
			for ci, c := range []struct {
				what      string
				want, got tensor.Tensor
			}{{"k_cache", k0, kc}, {"ckv_cache", c0, cc}} {
				for i := range c.want.Len() {
					if written[ci][i] {
						continue
					}
					if w, g := bitsAt(c.want, i), bitsAt(c.got, i); w != g {
						return fmt.Errorf("%s: element %d, in no row the op writes: bits %#x, want %#x", c.what, i, g, w)
					}
				}
			}
			return nil
		})
	}
}
