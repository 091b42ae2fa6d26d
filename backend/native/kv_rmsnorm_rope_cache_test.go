package native_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rotary-go/rotary/backend/native"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// The reference here follows torch_npu npu_kv_rmsnorm_rope_cache's formulas literally in float64:
// rms = sqrt(mean(x²) + eps), c_kv = x/rms·gamma on kv[..., :Dv]; on x = kv[..., Dv:],
// part1 = cat(x[0::2], x[1::2]), part2 = cat(−x[1::2], x[0::2]), k_rope = part1·cos + part2·sin.
// Cache positions are derived from torch_npu's description of each mode, the NZ ones from the
// [BlockNum, D/C0, BlockSize, 1, C0] memory shape, independently of ops.KVCacheLayout.

type kvcCase struct {
	mode       ops.CacheMode
	dt         tensor.DType
	kI8, cI8   bool // quantised caches
	asym       bool // with offsets
	perTensor  bool // scales and offsets of one element
	nz5        bool // NZ caches given in their 5-D memory shape, as strided views
	stridedKV  bool // kv rows padded
	cosBatch   bool // cos/sin [B,1,1,Dk]
	outputs    bool
	B, S       int
	Dv, Dk     int
	blocks, bs int // paged: BlockNum, BlockSize; Norm: Bcache, Scache
}

func (c kvcCase) String() string {
	q := "float"
	switch {
	case c.kI8 && c.cI8:
		q = "int8"
	case c.kI8:
		q = "k-int8"
	case c.cI8:
		q = "ckv-int8"
	}
	if c.asym {
		q += "-asym"
	}
	if c.perTensor {
		q += "-tensor"
	}
	s := fmt.Sprintf("%s/%v/%s", c.mode, c.dt, q)
	if c.nz5 {
		s += "/nz5"
	}
	if c.stridedKV {
		s += "/strided"
	}
	if c.cosBatch {
		s += "/cos-per-batch"
	}
	if c.outputs {
		s += "/outputs"
	}
	return s
}

// kvcT is a tensor with the float64 values it holds (already rounded to its dtype).
type kvcT struct {
	t tensor.Tensor
	v []float64 // by backing index
}

// kvcFill makes a 1-D tensor of n values uniform in [lo, hi); callers reshape it with view.
func kvcFill(r *rand.Rand, d tensor.DType, n int, lo, hi float64) kvcT {
	t := tensor.Zeros(d, n)
	v := make([]float64, n)
	for i := range n {
		f := float32(lo + (hi-lo)*r.Float64())
		switch d {
		case tensor.F32:
			t.F32[i] = f
		case tensor.I8:
			t.I8[i] = int8(f)
		default:
			t.Bits[i] = tensor.FromFloat32(d, f)
		}
		v[i] = t.Float64At(i)
	}
	return kvcT{t: t, v: v}
}

func view(k kvcT, shape, strides []int, off int) kvcT {
	k.t.Shape, k.t.Strides, k.t.Offset = shape, strides, off
	return k
}

type kvcBuilt struct {
	p                  ops.KVRMSNormRoPECacheParams
	kv, gamma, cos     kvcT
	sin                kvcT
	index              []int64
	kCache, cCache     kvcT
	kScale, cScale     []float32 // per channel, expanded
	kOffset, cOffset   []float32
	kCacheIdx, cCacheI func(block, slot, c int) int // independent position formula
}

func kvcBuild(c kvcCase, seed uint64) *kvcBuilt {
	r := rand.New(rand.NewPCG(seed, 7))
	B, S, Dv, Dk := c.B, c.S, c.Dv, c.Dk
	D := Dv + Dk
	bt := &kvcBuilt{}
	// kv, optionally padded rows with guard values around.
	if c.stridedKV {
		rs := D + 5
		k := kvcFill(r, c.dt, B*S*rs+3, -3, 3)
		bt.kv = view(k, []int{B, 1, S, D}, []int{S * rs, S * rs, rs, 1}, 2)
	} else {
		bt.kv = view(kvcFill(r, c.dt, B*S*D, -3, 3), []int{B, 1, S, D}, nil, 0)
	}
	bt.gamma = view(kvcFill(r, c.dt, Dv, 0.5, 2), []int{Dv}, nil, 0)
	cs := S
	if c.cosBatch {
		cs = 1
	}
	bt.cos = view(kvcFill(r, c.dt, B*cs*Dk, 0, 0), []int{B, 1, cs, Dk}, nil, 0)
	bt.sin = view(kvcFill(r, c.dt, B*cs*Dk, 0, 0), []int{B, 1, cs, Dk}, nil, 0)
	for i := range B * cs {
		for j := range Dk / 2 {
			th := r.Float64() * 2 * math.Pi
			for _, e := range []struct {
				k kvcT
				v float64
			}{{bt.cos, math.Cos(th)}, {bt.sin, math.Sin(th)}} {
				// pair j's angle in both halves, as a real cos/sin cache holds it
				for _, at := range []int{i*Dk + j, i*Dk + Dk/2 + j} {
					if c.dt == tensor.F32 {
						e.k.t.F32[at] = float32(e.v)
					} else {
						e.k.t.Bits[at] = tensor.FromFloat32(c.dt, float32(e.v))
					}
					e.k.v[at] = e.k.t.Float64At(at)
				}
			}
		}
	}

	cacheType := func(i8 bool) tensor.DType {
		if i8 {
			return tensor.I8
		}
		return c.dt
	}
	mk := func(i8 bool, width int) (kvcT, func(block, slot, ch int) int) {
		d := cacheType(i8)
		n := c.blocks * c.bs * width
		lo, hi := -100.0, 100.0
		if !i8 {
			lo, hi = -9, 9
		}
		switch {
		case c.mode == ops.CacheNorm:
			k := view(kvcFill(r, d, n, lo, hi), []int{c.blocks, 1, c.bs, width}, nil, 0)
			return k, func(b, s, ch int) int { return k.t.Index(b, 0, s, ch) }
		case c.mode.NZ():
			c0 := 32 / d.Size()
			if c.nz5 {
				// A strided view: every block padded by 7 elements.
				bstride := c.bs*width + 7
				k := view(kvcFill(r, d, c.blocks*bstride+4, lo, hi), []int{c.blocks, width / c0, c.bs, 1, c0},
					[]int{bstride, c.bs * c0, c0, c0, 1}, 3)
				return k, func(b, s, ch int) int { return k.t.Index(b, ch/c0, s, 0, ch%c0) }
			}
			k := view(kvcFill(r, d, n, lo, hi), []int{c.blocks, c.bs, 1, width}, nil, 0)
			return k, func(b, s, ch int) int {
				return b*c.bs*width + ch/c0*(c.bs*c0) + s*c0 + ch%c0
			}
		default:
			k := view(kvcFill(r, d, n, lo, hi), []int{c.blocks, c.bs, 1, width}, nil, 0)
			return k, func(b, s, ch int) int { return k.t.Index(b, s, 0, ch) }
		}
	}
	bt.kCache, bt.kCacheIdx = mk(c.kI8, Dk)
	bt.cCache, bt.cCacheI = mk(c.cI8, Dv)

	// Index: distinct targets with some −1s.
	switch {
	case c.mode == ops.CacheNorm:
		bt.index = make([]int64, B*S)
		for b := range B {
			perm := r.Perm(c.bs)
			for s := range S {
				bt.index[b*S+s] = int64(perm[s])
			}
		}
	case c.mode.PerBlock():
		nb := (S + c.bs - 1) / c.bs
		perm := r.Perm(c.blocks)
		bt.index = make([]int64, B*nb)
		for i := range bt.index {
			// The remainder within the block is ignored by the op.
			bt.index[i] = int64(perm[i]*c.bs + r.IntN(c.bs))
		}
	default:
		perm := r.Perm(c.blocks * c.bs)
		bt.index = make([]int64, B*S)
		for i := range bt.index {
			bt.index[i] = int64(perm[i])
		}
	}
	bt.index[1] = -1
	if len(bt.index) > 4 {
		bt.index[len(bt.index)-2] = -1
	}
	idx := tensor.FromI64(bt.index, len(bt.index))
	if c.mode == ops.CacheNorm {
		idx.Shape = []int{B, S}
	}

	bt.p = ops.KVRMSNormRoPECacheParams{
		KV: bt.kv.t, Gamma: bt.gamma.t, Cos: bt.cos.t, Sin: bt.sin.t, Index: idx,
		KCache: bt.kCache.t, CKVCache: bt.cCache.t, Epsilon: 1e-5, CacheMode: c.mode,
	}
	quant := func(on bool, width int) (scale, offset []float32, ts, to tensor.Tensor) {
		if !on {
			return nil, nil, tensor.Tensor{}, tensor.Tensor{}
		}
		n := width
		if c.perTensor {
			n = 1
		}
		sv := make([]float32, n)
		ov := make([]float32, n)
		for i := range sv {
			sv[i] = float32(5 + 15*r.Float64())
			ov[i] = float32(math.Round(20*r.Float64()-10) + 0.25)
		}
		scale, offset = make([]float32, width), make([]float32, width)
		for ch := range width {
			scale[ch] = sv[min(ch, n-1)]
			if c.asym {
				offset[ch] = ov[min(ch, n-1)]
			}
		}
		ts = tensor.FromF32(sv, n)
		if c.asym {
			to = tensor.FromF32(ov, n)
			if !c.perTensor {
				to.Shape = []int{1, width} // [N, D] with N = 1
			}
		}
		return scale, offset, ts, to
	}
	bt.kScale, bt.kOffset, bt.p.KRoPEScale, bt.p.KRoPEOffset = quant(c.kI8, Dk)
	bt.cScale, bt.cOffset, bt.p.CKVScale, bt.p.CKVOffset = quant(c.cI8, Dv)
	if c.outputs {
		bt.p.KRoPE = tensor.Zeros(c.dt, B, 1, S, Dk)
		bt.p.CKV = tensor.Zeros(c.dt, B, 1, S, Dv)
	}
	return bt
}

// exact computes token (b, s)'s c_kv and k_rope in float64 from the seed's formulas, with the
// bounds each kernel result must meet: c_kv has no cancellation; k_rope's float32 arithmetic may
// lose up to 2^-22 of its terms' magnitude.
func (bt *kvcBuilt) exact(c kvcCase, b, s int) (ckv, krope, kslack []float64) {
	D := c.Dv + c.Dk
	x := make([]float64, D)
	for j := range D {
		x[j] = bt.kv.v[bt.kv.t.Index(b, 0, s, j)]
	}
	var ss float64
	for _, v := range x[:c.Dv] {
		ss += v * v
	}
	rms := math.Sqrt(ss/float64(c.Dv) + 1e-5)
	ckv = make([]float64, c.Dv)
	for j := range ckv {
		ckv[j] = x[j] / rms * bt.gamma.v[j]
	}
	r := x[c.Dv:]
	var x1, x2 []float64
	for i := 0; i < c.Dk; i += 2 {
		x1, x2 = append(x1, r[i]), append(x2, r[i+1])
	}
	part1 := append(append([]float64{}, x1...), x2...)
	neg := make([]float64, len(x2))
	for i, v := range x2 {
		neg[i] = -v
	}
	part2 := append(neg, x1...)
	cs := s
	if c.cosBatch {
		cs = 0
	}
	krope, kslack = make([]float64, c.Dk), make([]float64, c.Dk)
	for j := range c.Dk {
		cv, sv := bt.cos.v[bt.cos.t.Index(b, 0, cs, j)], bt.sin.v[bt.sin.t.Index(b, 0, cs, j)]
		krope[j] = part1[j]*cv + part2[j]*sv
		kslack[j] = (math.Abs(part1[j]*cv) + math.Abs(part2[j]*sv)) * 0x1p-22
	}
	return ckv, krope, kslack
}

// target is where token (b, s) lands: (block, slot), or ok = false for a skipped token.
func (bt *kvcBuilt) target(c kvcCase, b, s int) (block, slot int, ok bool) {
	switch {
	case c.mode == ops.CacheNorm:
		v := bt.index[b*c.S+s]
		return b, int(v), v >= 0
	case c.mode.PerBlock():
		nb := (c.S + c.bs - 1) / c.bs
		v := bt.index[b*nb+s/c.bs]
		return int(v) / c.bs, s % c.bs, v >= 0
	}
	v := bt.index[b*c.S+s]
	return int(v) / c.bs, int(v) % c.bs, v >= 0
}

// ckvSlack bounds the float32 arithmetic's error in a c_kv value y of Dv = dv (first order, u =
// 2^-24): the sum of squares (dv/32 fused steps per lane, five tree levels) ≤ (dv/32+5)u, the mean
// and ε 2u more, halved by the square root, the rounding of r u, and the two products 2u:
// ((dv/32+7)/2 + 3)u·|y|, rounded up.
func ckvSlack(dv int, y float64) float64 {
	return float64(dv/32+14) * 0x1p-25 * math.Abs(y)
}

// quantExact is the int8 value of an exact y; near is true when y·scale + offset lies so close
// to a rounding boundary that float32 arithmetic may land on either side.
func quantExact(y float64, scale, offset float32) (int8, bool) {
	v := y*float64(scale) + float64(offset)
	near := math.Abs(v-math.Floor(v)-0.5) < 1e-3
	r := math.RoundToEven(v)
	return int8(max(-128, min(127, r))), near
}

// checkFloat checks got (a value of dtype d) against want with the slack of its terms.
func checkFloat(t *testing.T, what string, d tensor.DType, got, want, slack float64) {
	t.Helper()
	if tensor.ULPDiff(d, got, want) <= 1 {
		return
	}
	if math.Abs(got-want) <= slack+ulpOf(d, want) {
		return
	}
	t.Errorf("%s = %v, want %v (dtype %v, %d ULP)", what, got, want, d, tensor.ULPDiff(d, got, want))
}

func ulpOf(d tensor.DType, v float64) float64 {
	bits := 24
	switch d {
	case tensor.F16:
		bits = 11
	case tensor.BF16:
		bits = 8
	}
	_, e := math.Frexp(v)
	return math.Ldexp(1, e-bits)
}

func kvcCheck(t *testing.T, c kvcCase, bt *kvcBuilt, k0, c0 tensor.Tensor) {
	t.Helper()
	type want struct {
		v, slack float64
		ch       int
		scale    float32
		offset   float32
	}
	wantK, wantC := map[int]want{}, map[int]want{}
	for b := range c.B {
		for s := range c.S {
			ckv, kr, ks := bt.exact(c, b, s)
			if c.outputs {
				for j := range c.Dk {
					got := bt.p.KRoPE.Float64At(bt.p.KRoPE.Index(b, 0, s, j))
					checkFloat(t, fmt.Sprintf("k_rope[%d,0,%d,%d]", b, s, j), c.dt, got, kr[j], ks[j])
				}
				for j := range c.Dv {
					got := bt.p.CKV.Float64At(bt.p.CKV.Index(b, 0, s, j))
					checkFloat(t, fmt.Sprintf("c_kv[%d,0,%d,%d]", b, s, j), c.dt, got, ckv[j], ckvSlack(c.Dv, ckv[j]))
				}
			}
			blk, slot, ok := bt.target(c, b, s)
			if !ok {
				continue
			}
			for j := range c.Dk {
				w := want{v: kr[j], slack: ks[j], ch: j}
				if c.kI8 {
					w.scale, w.offset = bt.kScale[j], bt.kOffset[j]
				}
				wantK[bt.kCacheIdx(blk, slot, j)] = w
			}
			for j := range c.Dv {
				w := want{v: ckv[j], slack: ckvSlack(c.Dv, ckv[j]), ch: j}
				if c.cI8 {
					w.scale, w.offset = bt.cScale[j], bt.cOffset[j]
				}
				wantC[bt.cCacheI(blk, slot, j)] = w
			}
		}
	}
	for _, cc := range []struct {
		name   string
		got    tensor.Tensor
		before tensor.Tensor
		want   map[int]want
	}{{"k_cache", bt.kCache.t, k0, wantK}, {"ckv_cache", bt.cCache.t, c0, wantC}} {
		n := len(cc.got.F32) + len(cc.got.Bits) + len(cc.got.I8)
		written := 0
		for i := range n {
			w, ok := cc.want[i]
			got := cc.got.Float64At(i)
			if !ok {
				if kvcBitsAt(cc.got, i) != kvcBitsAt(cc.before, i) {
					t.Fatalf("%s: backing element %d changed (%v → %v) but no token maps there", cc.name, i, cc.before.Float64At(i), got)
				}
				continue
			}
			written++
			if cc.got.DType == tensor.I8 {
				q, near := quantExact(w.v, w.scale, w.offset)
				if int8(got) != q && !(near && math.Abs(got-float64(q)) == 1) {
					t.Errorf("%s element %d (channel %d): %v, want %d = round(%v·%v + %v)", cc.name, i, w.ch, got, q, w.v, w.scale, w.offset)
				}
				continue
			}
			checkFloat(t, fmt.Sprintf("%s element %d (channel %d)", cc.name, i, w.ch), cc.got.DType, got, w.v, w.slack)
		}
		if written == 0 {
			t.Fatalf("%s: no element expected to change", cc.name)
		}
	}
}

// backingCopy copies t's whole backing slice (guards and gaps included).
func backingCopy(t tensor.Tensor) tensor.Tensor {
	t.F32, t.Bits, t.I8 = append([]float32(nil), t.F32...), append([]uint16(nil), t.Bits...), append([]int8(nil), t.I8...)
	return t
}

func kvcBitsAt(t tensor.Tensor, i int) uint32 {
	switch t.DType {
	case tensor.F32:
		return math.Float32bits(t.F32[i])
	case tensor.I8:
		return uint32(uint8(t.I8[i]))
	}
	return uint32(t.Bits[i])
}

func kvcCases() []kvcCase {
	base := kvcCase{B: 3, S: 5, Dv: 64, Dk: 32}
	var cs []kvcCase
	modes := []ops.CacheMode{ops.CacheNorm, ops.CachePA, ops.CachePABNSD, ops.CachePANZ, ops.CachePABlkBNSD, ops.CachePABlkNZ}
	for _, m := range modes {
		for _, dt := range []tensor.DType{tensor.F16, tensor.BF16, tensor.F32} {
			for q := range 4 {
				c := base
				c.mode, c.dt = m, dt
				switch q {
				case 1: // symmetric int8 k_cache only, per channel
					c.kI8 = true
				case 2: // both int8, asymmetric, per tensor
					c.kI8, c.cI8, c.asym, c.perTensor = true, true, true, true
				case 3: // both int8, asymmetric, per channel
					c.kI8, c.cI8, c.asym = true, true, true
				}
				c.outputs = q%2 == 0
				if m == ops.CacheNorm {
					c.blocks, c.bs = 4, 7 // Bcache > B
				} else {
					c.blocks, c.bs = 9, 4 // several blocks per sequence in PA_BLK modes
				}
				cs = append(cs, c)
				if m.NZ() && q != 1 {
					c.nz5 = true
					cs = append(cs, c)
				}
			}
		}
	}
	// Layout variants.
	v := base
	v.mode, v.dt, v.blocks, v.bs, v.stridedKV, v.cosBatch, v.outputs = ops.CachePA, tensor.BF16, 8, 4, true, true, true
	cs = append(cs, v)
	v.mode, v.blocks, v.bs, v.S = ops.CacheNorm, 3, 9, 1
	cs = append(cs, v)
	return cs
}

func TestKVRMSNormRoPECacheExact(t *testing.T) {
	for i, c := range kvcCases() {
		t.Run(c.String(), func(t *testing.T) {
			bt := kvcBuild(c, uint64(i))
			k0, c0 := backingCopy(bt.kCache.t), backingCopy(bt.cCache.t)
			a, err := ops.NewKVRMSNormRoPECache(bt.p)
			if err != nil {
				t.Fatal(err)
			}
			native.KVRMSNormRoPECache(&a)
			kvcCheck(t, c, bt, k0, c0)
		})
	}
}

// TestKVRMSNormRoPECacheQuantRounding pins the int8 conversion on values where it matters:
// with cos = 1 and sin = 0 the rope result is kv's rope part de-interleaved, exactly, so
// k_cache holds round_half_even(x·scale + offset) saturated to int8.
func TestKVRMSNormRoPECacheQuantRounding(t *testing.T) {
	const Dv, Dk = 8, 16
	// (NaN and infinities would spill into their pair's partner through ·0; ops tests them.)
	x := []float32{0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 127.5, 300, -300, -128.5, 126.5, -127.5, 1e9, 3.49, -3.51, 2.25}
	// Scale 1; the asymmetric run adds an offset of 0.25 per tensor.
	wantSym := []int8{0, 2, 2, 0, -2, -2, 127, 127, -128, -128, 126, -128, 127, 3, -4, 2}
	wantAsym := []int8{1, 2, 3, 0, -1, -2, 127, 127, -128, -128, 127, -127, 127, 4, -3, 2}
	for _, asym := range []bool{false, true} {
		kv := make([]float32, Dv+Dk)
		for j := range Dv {
			kv[j] = 1
		}
		// interleave x so that the de-interleaved output is x itself
		for i := range Dk / 2 {
			kv[Dv+2*i] = x[i]
			kv[Dv+2*i+1] = x[Dk/2+i]
		}
		cos, sin := make([]float32, Dk), make([]float32, Dk)
		for j := range cos {
			cos[j] = 1
		}
		gamma := make([]float32, Dv)
		for j := range gamma {
			gamma[j] = 1
		}
		kc := tensor.Zeros(tensor.I8, 1, 4, 1, Dk)
		p := ops.KVRMSNormRoPECacheParams{
			KV: tensor.FromF32(kv, 1, 1, 1, Dv+Dk), Gamma: tensor.FromF32(gamma, Dv),
			Cos: tensor.FromF32(cos, 1, 1, 1, Dk), Sin: tensor.FromF32(sin, 1, 1, 1, Dk),
			Index: tensor.FromI64([]int64{2}, 1), KCache: kc, CKVCache: tensor.Zeros(tensor.F32, 1, 4, 1, Dv),
			KRoPEScale: tensor.FromF32([]float32{1}, 1), CacheMode: ops.CachePA,
		}
		want := wantSym
		if asym {
			p.KRoPEOffset = tensor.FromF32([]float32{0.25}, 1)
			want = wantAsym
		}
		a, err := ops.NewKVRMSNormRoPECache(p)
		if err != nil {
			t.Fatal(err)
		}
		native.KVRMSNormRoPECache(&a)
		for j, w := range want {
			if got := kc.I8[2*Dk+j]; got != w {
				t.Errorf("asym=%t: x = %v → %d, want %d", asym, x[j], got, w)
			}
		}
		for j, v := range kc.I8 {
			if j/Dk != 2 && v != 0 {
				t.Fatalf("asym=%t: slot %d was written", asym, j/Dk)
			}
		}
	}
}
