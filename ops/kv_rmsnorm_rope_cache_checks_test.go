package ops_test

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// What NewKVRMSNormRoPECache accepts and derives, and the text of every error it returns, pinned
// over many parameter sets (bases in every cache mode, each mutated by one or more changes that
// each trip one check, or none) against a golden file: the checks are rewritten for speed, never
// for behaviour.

var kvcUpdate = flag.Bool("kvc-update", false, "rewrite testdata/kv_rmsnorm_rope_cache_checks.golden")

const kvcGolden = "testdata/kv_rmsnorm_rope_cache_checks.golden"

type kvcMut struct {
	name string
	f    func(p *ops.KVRMSNormRoPECacheParams)
}

// kvcBases are valid calls, one or more per cache mode, dtype and quantisation.
func kvcBases() []kvcMut {
	bf := func(shape ...int) tensor.Tensor { return tensor.Zeros(tensor.BF16, shape...) }
	return []kvcMut{
		{"PA", func(*ops.KVRMSNormRoPECacheParams) {}},
		{"PA in order", func(p *ops.KVRMSNormRoPECacheParams) { p.Index = tensor.FromI64([]int64{0, 1, 2, 3, 4, 15}, kvB*kvS) }},
		{"Norm", func(p *ops.KVRMSNormRoPECacheParams) {
			p.CacheMode = ops.CacheNorm
			p.KCache, p.CKVCache = bf(kvB, 1, 4, kvDk), bf(kvB, 1, 4, kvDv)
			p.Index = tensor.FromI64([]int64{0, 3, -1, 2, 1, 0}, kvB, kvS)
		}},
		{"Norm default, I32 strided index", func(p *ops.KVRMSNormRoPECacheParams) {
			p.CacheMode = ""
			p.KCache, p.CKVCache = bf(kvB+1, 1, 4, kvDk), bf(kvB+1, 1, 4, kvDv)
			p.Index = tensor.Tensor{DType: tensor.I32, Shape: []int{kvB, kvS}, Strides: []int{1, 2}, Offset: 1, I32: []int32{9, 0, 3, 1, 2, 2, 1, 9}}
		}},
		{"PA_BLK_BNSD", func(p *ops.KVRMSNormRoPECacheParams) {
			p.CacheMode = ops.CachePABlkBNSD
			p.KCache, p.CKVCache = bf(4, 2, 1, kvDk), bf(4, 2, 1, kvDv)
			p.Index = tensor.FromI64([]int64{0, 2, 7, 4}, 4) // blocks 0, 1, 3, 2: remainders are ignored
		}},
		{"PA_NZ 4-D, cos per batch", func(p *ops.KVRMSNormRoPECacheParams) {
			p.CacheMode = ops.CachePANZ
			p.Cos = tensor.FromBits(tensor.BF16, p.Cos.Bits[:kvB*kvDk], kvB, 1, 1, kvDk)
			p.Sin = tensor.FromBits(tensor.BF16, p.Sin.Bits[:kvB*kvDk], kvB, 1, 1, kvDk)
		}},
		{"PA_BLK_NZ int8 5-D", func(p *ops.KVRMSNormRoPECacheParams) {
			p.CacheMode = ops.CachePABlkNZ
			p.KCache = bf(4, 1, 2, 1, kvDk)
			p.CKVCache = tensor.Zeros(tensor.I8, 4, 1, 2, 1, 32)
			p.CKVScale = tensor.FromF32([]float32{25}, 1)
			p.Index = tensor.FromI64([]int64{6, 0, 2, 4}, 4)
			p.KRoPE, p.CKV = tensor.Tensor{}, tensor.Tensor{}
		}},
		{"PA_BNSD int8 offsets", func(p *ops.KVRMSNormRoPECacheParams) {
			kvInt8(p)
			p.CacheMode = ops.CachePABNSD
			p.KRoPEOffset = tensor.FromF32([]float32{-3.5}, 1)
			p.CKVScale = tensor.Tensor{DType: tensor.F32, Shape: []int{1, kvDv}, Strides: []int{0, 2}, Offset: 1, F32: make([]float32, 2*kvDv)}
			p.CKVOffset = tensor.FromF32(make([]float32, kvDv), 1, kvDv)
		}},
		{"F32, I32 index, epsilon 0", func(p *ops.KVRMSNormRoPECacheParams) {
			f := func(shape ...int) tensor.Tensor { return tensor.Zeros(tensor.F32, shape...) }
			p.KV, p.Gamma, p.Cos, p.Sin = f(kvB, 1, kvS, kvDv+kvDk), f(kvDv), f(kvB, 1, kvS, kvDk), f(kvB, 1, kvS, kvDk)
			p.KCache, p.CKVCache, p.KRoPE, p.CKV = f(4, 4, 1, kvDk), f(4, 4, 1, kvDv), f(kvB, 1, kvS, kvDk), f(kvB, 1, kvS, kvDv)
			p.Index = tensor.FromI32([]int32{0, 5, -1, 9, 2, 15}, 6)
			p.Epsilon = 0
		}},
		{"decode, strided rows, padded blocks", func(p *ops.KVRMSNormRoPECacheParams) {
			p.CacheMode = ops.CachePABNSD
			for _, t := range []*tensor.Tensor{&p.KV, &p.KRoPE, &p.CKV} {
				d := t.Shape[3]
				*t = tensor.Tensor{DType: tensor.BF16, Shape: []int{kvB * kvS, 1, 1, d}, Strides: []int{d + 8, d + 8, d + 8, 1}, Offset: 2, Bits: make([]uint16, kvB*kvS*(d+8)+2)}
			}
			for _, t := range []*tensor.Tensor{&p.Cos, &p.Sin} {
				*t = bf(1, 1, 1, kvDk)
			}
			for _, c := range []*tensor.Tensor{&p.KCache, &p.CKVCache} {
				d := c.Shape[3]
				*c = tensor.FromBits(tensor.BF16, make([]uint16, 4*(4*d+8)), 4, 4, 1, d)
				c.Strides = []int{4*d + 8, d, d, 1}
			}
		}},
		{"one sequence, F16", func(p *ops.KVRMSNormRoPECacheParams) {
			f := func(shape ...int) tensor.Tensor { return tensor.Zeros(tensor.F16, shape...) }
			p.KV, p.Gamma, p.Cos, p.Sin = f(1, 1, kvB*kvS, kvDv+kvDk), f(kvDv), f(1, 1, 1, kvDk), f(1, 1, 1, kvDk)
			p.KRoPE, p.CKV = tensor.Tensor{}, f(1, 1, kvB*kvS, kvDv)
			p.CacheMode = "PA_BLK_BSND"
			p.Index = tensor.FromI64([]int64{6, 1, 4}, 3) // blocks 3, 0, 2
			p.KCache, p.CKVCache = f(4, 2, 1, kvDk), f(4, 2, 1, kvDv)
		}},
		{"DeepSeek decode", func(p *ops.KVRMSNormRoPECacheParams) {
			const B, Dv, Dk = 8, 512, 64
			*p = ops.KVRMSNormRoPECacheParams{
				KV: bf(B, 1, 1, Dv+Dk), Gamma: bf(Dv), Cos: bf(B, 1, 1, Dk), Sin: bf(B, 1, 1, Dk),
				Index:  tensor.FromI64([]int64{0, 130, 7, 300, 9, 64, 65, 511}, B),
				KCache: tensor.Zeros(tensor.I8, 4, 128, 1, Dk), CKVCache: bf(4, 128, 1, Dv),
				KRoPEScale: tensor.FromF32(make([]float32, Dk), Dk),
				Epsilon:    1e-6, CacheMode: ops.CachePANZ,
			}
		}},
	}
}

// kvcMuts each change one thing, mostly to something a check refuses.
func kvcMuts() []kvcMut {
	f32 := func(shape ...int) tensor.Tensor { return tensor.Zeros(tensor.F32, shape...) }
	bf := func(shape ...int) tensor.Tensor { return tensor.Zeros(tensor.BF16, shape...) }
	idx := func(v ...int64) func(p *ops.KVRMSNormRoPECacheParams) {
		return func(p *ops.KVRMSNormRoPECacheParams) { p.Index = tensor.FromI64(v, len(v)) }
	}
	// dtypeOf keeps a float tensor's shape and view but changes its dtype to d.
	dtypeOf := func(t *tensor.Tensor, d tensor.DType) {
		n := len(t.F32) + len(t.Bits)
		t.F32, t.Bits = nil, nil
		t.DType = d
		switch d {
		case tensor.F32:
			t.F32 = make([]float32, n)
		case tensor.I32:
			t.I32 = make([]int32, n)
		default:
			t.Bits = make([]uint16, n)
		}
	}
	type P = ops.KVRMSNormRoPECacheParams
	return []kvcMut{
		{"index past the blocks", idx(0, 1, 2, 3, 4, 16)},
		{"index below -1", idx(0, -2, 2, 3, 4, 5)},
		{"index duplicate slot", idx(0, 7, 2, 3, 7, -1)},
		{"index in order but repeated", idx(0, 1, 2, 2, 3, 4)},
		{"index all skipped", idx(-1, -1, -1, -1, -1, -1)},
		{"index decreasing", idx(15, 9, 8, 3, 1, 0)},
		{"index short", idx(0, 1, 2)},
		{"index first value", func(p *P) { p.Index.Offset = 0; setIndex(p, 0, 3) }},
		{"index last value", func(p *P) { setIndex(p, p.Index.Len()-1, 1) }},
		{"index huge", func(p *P) { setIndex(p, 1, math.MaxInt64) }},
		{"index I32 duplicate", func(p *P) { p.Index = tensor.FromI32([]int32{3, 3, 0, 1, 2, 4}, 6) }},
		{"index I8", func(p *P) { p.Index = tensor.FromI8(make([]int8, 6), 6) }},
		{"index float", func(p *P) { p.Index = f32(6) }},
		{"index missing", func(p *P) { p.Index = tensor.Tensor{} }},
		{"index shape [B, S]", func(p *P) { p.Index.Shape, p.Index.Strides = []int{kvB, kvS}, nil }},
		{"index shape [B·S]", func(p *P) { p.Index.Shape, p.Index.Strides = []int{kvB * kvS}, nil }},
		{"index buffer short", func(p *P) {
			if p.Index.I64 != nil {
				p.Index.I64 = p.Index.I64[:len(p.Index.I64)-1]
			} else {
				p.Index.I32 = p.Index.I32[:len(p.Index.I32)-1]
			}
		}},
		{"index strides of the wrong rank", func(p *P) { p.Index.Strides = []int{1, 1, 1} }},
		{"index broadcast", func(p *P) { p.Index.Strides = make([]int, len(p.Index.Shape)) }},
		{"k_cache width", func(p *P) { p.KCache = bf(4, 4, 1, kvDk+2) }},
		{"k_cache rank", func(p *P) { p.KCache = bf(16, kvDk) }},
		{"k_cache heads", func(p *P) { p.KCache = bf(4, 4, 2, kvDk) }},
		{"ckv_cache more blocks", func(p *P) { p.CKVCache = bf(5, 4, 1, kvDv) }},
		{"caches of one block", func(p *P) { p.KCache, p.CKVCache = bf(1, 4, 1, kvDk), bf(1, 4, 1, kvDv) }},
		{"k_cache F16", func(p *P) { dtypeOf(&p.KCache, tensor.F16) }},
		{"k_cache missing", func(p *P) { p.KCache = tensor.Tensor{} }},
		{"ckv_cache missing", func(p *P) { p.CKVCache = tensor.Tensor{} }},
		{"ckv_cache outside its buffer", func(p *P) { p.CKVCache.Offset++ }},
		{"ckv_cache negative dimension", func(p *P) {
			if len(p.CKVCache.Shape) > 0 {
				p.CKVCache.Shape = append([]int{-1}, p.CKVCache.Shape[1:]...)
			}
		}},
		{"ckv_cache blocks broadcast", func(p *P) {
			if len(p.CKVCache.Shape) == 0 {
				return
			}
			p.CKVCache.Strides = append([]int{0}, tensor.ContiguousStrides(p.CKVCache.Shape)[1:]...)
			p.CKVCache.Shape = append([]int{1 << 20}, p.CKVCache.Shape[1:]...)
		}},
		{"k_cache rows strided", func(p *P) {
			if len(p.KCache.Shape) == 0 {
				return
			}
			st := tensor.ContiguousStrides(p.KCache.Shape)
			st[len(st)-1] = 2
			p.KCache.Strides = st
			p.KCache.Bits = make([]uint16, 2*len(p.KCache.Bits)+len(p.KCache.I8)*2)
		}},
		{"NZ mode", func(p *P) { p.CacheMode = ops.CachePANZ }},
		{"PA_BLK_NZ mode", func(p *P) { p.CacheMode = ops.CachePABlkNZ }},
		{"PA mode", func(p *P) { p.CacheMode = ops.CachePA }},
		{"Norm mode", func(p *P) { p.CacheMode = ops.CacheNorm }},
		{"PA_BLK_BNSD mode", func(p *P) { p.CacheMode = ops.CachePABlkBNSD }},
		{"NZ 4-D view not contiguous", func(p *P) {
			p.CacheMode = ops.CachePANZ
			p.KCache = tensor.Tensor{DType: tensor.BF16, Shape: []int{4, 4, 1, kvDk}, Strides: []int{2 * 4 * kvDk, kvDk, kvDk, 1}, Bits: make([]uint16, 8*4*kvDk)}
		}},
		{"NZ 5-D wrong group", func(p *P) { p.CacheMode = ops.CachePANZ; p.KCache = bf(4, 2, 4, 1, 8) }},
		{"NZ 5-D", func(p *P) {
			p.CacheMode = ops.CachePANZ
			p.KCache, p.CKVCache = bf(4, 1, 4, 1, kvDk), bf(4, 2, 4, 1, kvDv/2)
		}},
		{"int8 caches", kvInt8},
		{"int8 without scale", func(p *P) { kvInt8(p); p.CKVScale = tensor.Tensor{} }},
		{"int8 offset without scale", func(p *P) { kvInt8(p); p.KRoPEScale, p.KRoPEOffset = tensor.Tensor{}, f32(1) }},
		{"int8 NZ, too narrow", func(p *P) { kvInt8(p); p.CacheMode = ops.CachePANZ }},
		{"scale with a float cache", func(p *P) { p.KRoPEScale = f32(kvDk) }},
		{"offset with a float cache", func(p *P) { p.CKVOffset = f32(1) }},
		{"scale shape", func(p *P) { kvInt8(p); p.KRoPEScale = f32(kvDk + 1) }},
		{"scale [1, D]", func(p *P) { kvInt8(p); p.KRoPEScale = f32(1, kvDk) }},
		{"scale rank 3", func(p *P) { kvInt8(p); p.KRoPEScale = f32(1, 1, 1) }},
		{"scale dtype", func(p *P) { kvInt8(p); p.CKVScale = bf(kvDv) }},
		{"scale outside its buffer", func(p *P) { kvInt8(p); p.CKVScale.Offset = 1 }},
		{"offset shape", func(p *P) { kvInt8(p); p.KRoPEOffset = f32(2, kvDk) }},
		{"offset per channel strided", func(p *P) {
			kvInt8(p)
			p.CKVOffset = tensor.Tensor{DType: tensor.F32, Shape: []int{kvDv}, Strides: []int{3}, Offset: 2, F32: make([]float32, 3*kvDv)}
		}},
		{"kv I32", func(p *P) { dtypeOf(&p.KV, tensor.I32) }},
		{"kv F16", func(p *P) { dtypeOf(&p.KV, tensor.F16) }},
		{"kv missing", func(p *P) { p.KV = tensor.Tensor{} }},
		{"kv heads", func(p *P) { p.KV = bf(kvB, 2, kvS, kvDv+kvDk) }},
		{"kv rank", func(p *P) { p.KV = bf(kvB, kvS, kvDv+kvDk) }},
		{"kv rank 0", func(p *P) { p.KV.Shape, p.KV.Strides = nil, nil }},
		{"kv width", func(p *P) { p.KV = bf(kvB, 1, kvS, kvDv+kvDk+2) }},
		{"kv rows not contiguous", func(p *P) {
			p.KV.Strides = []int{kvS * 96, kvS * 96, 96, 2}
			p.KV.Bits, p.KV.F32 = make([]uint16, kvB*kvS*96), nil
			p.KV.DType = tensor.BF16
		}},
		{"kv strides of the wrong rank", func(p *P) { p.KV.Strides = []int{1} }},
		{"kv no tokens", func(p *P) {
			if len(p.KV.Shape) == 4 {
				p.KV.Shape = []int{0, 1, kvS, p.KV.Shape[3]}
			}
		}},
		{"kv B·S overflows", func(p *P) {
			p.KV = tensor.Tensor{DType: tensor.BF16, Shape: []int{1 << 40, 1, 1 << 40, kvDv + kvDk}, Strides: []int{0, 0, 0, 1}, Bits: make([]uint16, kvDv+kvDk)}
		}},
		{"gamma dtype", func(p *P) { p.Gamma = f32(kvDv) }},
		{"gamma rank", func(p *P) { p.Gamma = bf(1, kvDv) }},
		{"gamma empty", func(p *P) { p.Gamma = bf(0) }},
		{"gamma missing", func(p *P) { p.Gamma = tensor.Tensor{} }},
		{"gamma broadcast, Dv + Dk overflows", func(p *P) {
			p.Gamma = tensor.Tensor{DType: p.KV.DType, Shape: []int{math.MaxInt}, Strides: []int{0}, Bits: make([]uint16, 1), F32: make([]float32, 1)}
		}},
		{"cos dtype", func(p *P) { p.Cos = f32(kvB, 1, kvS, kvDk) }},
		{"cos shape", func(p *P) { p.Cos = bf(kvB, 1, 2, kvDk) }},
		{"cos heads", func(p *P) { p.Cos, p.Sin = bf(kvB, 2, kvS, kvDk), bf(kvB, 2, kvS, kvDk) }},
		{"cos and sin shared", func(p *P) { p.Cos, p.Sin = bf(1, 1, 1, kvDk), bf(1, 1, 1, kvDk) }},
		{"cos odd", func(p *P) {
			p.Cos, p.Sin = bf(kvB, 1, kvS, 15), bf(kvB, 1, kvS, 15)
			p.Gamma = bf(33)
		}},
		{"cos width 0", func(p *P) { p.Cos, p.Sin = bf(kvB, 1, kvS, 0), bf(kvB, 1, kvS, 0) }},
		{"cos missing", func(p *P) { p.Cos = tensor.Tensor{} }},
		{"sin shape", func(p *P) { p.Sin = bf(kvB, 1, 1, kvDk) }},
		{"sin missing", func(p *P) { p.Sin = tensor.Tensor{} }},
		{"sin rows strided", func(p *P) {
			if len(p.Sin.Shape) != 4 {
				return
			}
			p.Sin.Strides = tensor.ContiguousStrides(p.Sin.Shape)
			p.Sin.Strides[3] = 0
		}},
		{"sin outside its buffer", func(p *P) { p.Sin.Offset = -1 }},
		{"unknown mode", func(p *P) { p.CacheMode = "PA_XYZ" }},
		{"mode alias", func(p *P) { p.CacheMode = "PA_BLK_BSND" }},
		{"default mode", func(p *P) { p.CacheMode = "" }},
		{"negative epsilon", func(p *P) { p.Epsilon = -1 }},
		{"NaN epsilon", func(p *P) { p.Epsilon = math.NaN() }},
		{"epsilon past float32", func(p *P) { p.Epsilon = 1e39 }},
		{"epsilon infinite", func(p *P) { p.Epsilon = math.Inf(1) }},
		{"k_rope shape", func(p *P) { p.KRoPE = bf(kvB, 1, kvS, kvDv) }},
		{"k_rope dtype", func(p *P) { p.KRoPE = f32(kvB, 1, kvS, kvDk) }},
		{"k_rope absent", func(p *P) { p.KRoPE = tensor.Tensor{} }},
		{"k_rope rows strided", func(p *P) {
			p.KRoPE = tensor.Tensor{DType: p.KV.DType, Shape: []int{kvB, 1, kvS, kvDk}, Strides: []int{kvS * 2 * kvDk, 0, 2 * kvDk, 2}, F32: make([]float32, 2*kvB*kvS*kvDk), Bits: make([]uint16, 2*kvB*kvS*kvDk)}
		}},
		{"c_kv dtype", func(p *P) { p.CKV = f32(kvB, 1, kvS, kvDv) }},
		{"c_kv absent", func(p *P) { p.CKV = tensor.Tensor{} }},
		{"c_kv outside its buffer", func(p *P) { p.CKV.Offset = 1 << 30 }},
	}
}

// setIndex sets the index's i-th stored value (in backing order from its offset) to v.
func setIndex(p *ops.KVRMSNormRoPECacheParams, i int, v int64) {
	j := p.Index.Offset + i
	switch {
	case j < 0:
	case j < len(p.Index.I64):
		p.Index.I64[j] = v
	case j < len(p.Index.I32):
		p.Index.I32[j] = int32(v)
	}
}

type kvcCase struct {
	name string
	base bool // a base without mutations, which must be valid
	p    ops.KVRMSNormRoPECacheParams
}

// kvcCases: every base, every base with each mutation, and a fixed pseudo-random set of bases
// with two or three mutations.
func kvcCases() []kvcCase {
	bases, muts := kvcBases(), kvcMuts()
	var cases []kvcCase
	add := func(b kvcMut, ms ...kvcMut) {
		p := kvValid()
		b.f(&p)
		name := b.name
		for _, m := range ms {
			m.f(&p)
			name += " + " + m.name
		}
		cases = append(cases, kvcCase{name, len(ms) == 0, p})
	}
	for _, b := range bases {
		add(b)
		for _, m := range muts {
			add(b, m)
		}
	}
	x := uint64(0x9e3779b97f4a7c15) // splitmix64: a sequence that no library release changes
	next := func(n int) int {
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		return int((z ^ z>>31) % uint64(n))
	}
	for range 400 {
		ms := make([]kvcMut, 2+next(2))
		for i := range ms {
			ms[i] = muts[next(len(muts))]
		}
		add(bases[next(len(bases))], ms...)
	}
	return cases
}

// kvcFingerprint is what a checked call's arguments say through the exported fields and
// methods, every token's rows included.
func kvcFingerprint(a *ops.KVRMSNormRoPECacheArgs) string {
	var b strings.Builder
	q := func(q ops.KVQuant) string {
		if q.Scale == nil {
			return "-"
		}
		s := fmt.Sprintf("scale %d@%d+%d", len(q.Scale), q.ScaleAt, q.ScaleStep)
		if q.Offset != nil {
			s += fmt.Sprintf(" offset %d@%d+%d", len(q.Offset), q.OffsetAt, q.OffsetStep)
		}
		return s
	}
	fmt.Fprintf(&b, "ok %s eps %v B %d S %d Dv %d Dk %d k %v ckv %v kq %s ckvq %s", a.CacheMode, a.Epsilon, a.Batch, a.Seq, a.Dv, a.Dk,
		a.KLayout, a.CKVLayout, q(a.KQuant), q(a.CKVQuant))
	if l, ok := a.Linear(); ok {
		fmt.Fprintf(&b, " linear kv %v cos %v sin %v index %v/%d k %v ckv %v slots %d", l.KV, l.Cos, l.Sin, l.IndexAt, len(l.Index), l.K, l.CKV, l.Slots)
	}
	b.WriteString(" rows")
	for bi := range min(a.Batch, 16) {
		for s := range min(a.Seq, 16) {
			fmt.Fprintf(&b, " %d:%d:%d", a.KVRow(bi, s), a.CosRow(bi, s), a.SinRow(bi, s))
			if !a.KRoPE.IsZero() {
				fmt.Fprintf(&b, ":k%d", a.KRoPERow(bi, s))
			}
			if !a.CKV.IsZero() {
				fmt.Fprintf(&b, ":c%d", a.CKVRow(bi, s))
			}
			fmt.Fprintf(&b, "=%d", a.IndexValue(bi, s))
			if k, ckv, ok := a.CacheRows(bi, s); ok {
				block, slot, _ := a.Slot(bi, s)
				fmt.Fprintf(&b, ">%d.%d@%d,%d", block, slot, k, ckv)
			}
		}
	}
	return b.String()
}

// kvcResult is a case's line of the golden file.
func kvcResult(a *ops.KVRMSNormRoPECacheArgs, err error) string {
	if err != nil {
		return "error " + err.Error()
	}
	return kvcFingerprint(a)
}

// TestKVRMSNormRoPECacheChecks: NewKVRMSNormRoPECache accepts and refuses every case as the
// golden file says, with the same error text or the same derived arguments (-kvc-update
// rewrites the file).
func TestKVRMSNormRoPECacheChecks(t *testing.T) {
	cases := kvcCases()
	got := make([]string, len(cases))
	valid := 0
	for i, c := range cases {
		a, err := ops.NewKVRMSNormRoPECache(c.p)
		got[i] = c.name + "\t" + kvcResult(&a, err)
		if err == nil {
			valid++
		} else if c.base {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	if valid < len(cases)/20 || valid > len(cases)/2 {
		t.Errorf("%d of %d cases valid: the mutations should refuse most but not all", valid, len(cases))
	}
	if *kvcUpdate {
		if err := os.WriteFile(kvcGolden, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(filepath.FromSlash(kvcGolden))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var want []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		want = append(want, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(want) != len(got) {
		t.Fatalf("%d cases, golden file has %d", len(got), len(want))
	}
	bad := 0
	for i := range got {
		if got[i] != want[i] {
			if bad++; bad <= 10 {
				t.Errorf("case %d:\n got %s\nwant %s", i, got[i], want[i])
			}
		}
	}
	if bad > 10 {
		t.Errorf("%d cases differ in all", bad)
	}
}
