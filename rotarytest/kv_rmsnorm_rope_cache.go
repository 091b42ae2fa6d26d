package rotarytest

import (
	"fmt"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

func init() { register(ops.KVRMSNormRoPECache, (*sweep).kvRMSNormRoPECache) }

// kvRMSNormRoPECache sweeps cache modes × dtypes × quantisation of kv_rmsnorm_rope_cache. The
// caches start full of values the op must leave alone; both caches and both optional outputs
// are compared. Every element of kv is normed or rotated, so what the pass-through cases hold to
// the bit is the caches' rows the op does not write.
func (s *sweep) kvRMSNormRoPECache() {
	const B, S, Dv, Dk = 3, 5, 64, 32
	modes := []ops.CacheMode{ops.CacheNorm, ops.CachePA, ops.CachePANZ, ops.CachePABlkBNSD, ops.CachePABlkNZ}
	quants := []string{"float", "int8", "int8-asym-tensor", "k-int8"}
	dts := dtypes
	if s.opts.Short {
		quants = quants[:3]
	}
	for _, mode := range modes {
		for _, d := range dts {
			for _, q := range quants {
				name := fmt.Sprintf("%s/%v/%s", mode, d, q)
				s.kvCase(name, mode, d, q, B, S, Dv, Dk)
			}
		}
	}
	// Widths that leave a tail in the four-lane sum of squares (ND caches only: NZ groups need
	// 32-byte multiples), and per-tensor scales with per-channel offsets.
	for _, d := range dts {
		for _, mode := range []ops.CacheMode{ops.CacheNorm, ops.CachePABNSD, ops.CachePABlkBNSD} {
			s.kvCase(fmt.Sprintf("%s/%v/int8-asym-mixed/Dv61", mode, d), mode, d, "int8-asym-mixed", B, S, 61, 18)
			s.kvCase(fmt.Sprintf("%s/%v/float/Dv63", mode, d), mode, d, "float", B, S, 63, 6)
		}
	}
	// DeepSeek-V3's widths, decode.
	s.kvCase("PA_NZ/BF16/int8/deepseek-decode", ops.CachePANZ, tensor.BF16, "int8", 4, 1, 512, 64)
	for _, d := range dtypes {
		s.passKVCache(d)
	}
}

func (s *sweep) kvCase(name string, mode ops.CacheMode, d tensor.DType, quant string, B, S, Dv, Dk int) {
	r := rng(len(name)*131 + B)
	kI8 := quant != "float"
	cI8 := kI8 && quant != "k-int8"
	blocks, bs := 9, 4
	if mode == ops.CacheNorm {
		blocks, bs = B+1, S+2
	}
	if Dv == 512 {
		blocks, bs = 2, 16
	}
	cache := func(i8 bool, width int) tensor.Tensor {
		shape := []int{blocks, bs, 1, width}
		if mode == ops.CacheNorm {
			shape = []int{blocks, 1, bs, width}
		}
		if !i8 {
			return randomTensor(d, shape, &r)
		}
		t := tensor.Zeros(tensor.I8, shape...)
		for i := range t.I8 {
			t.I8[i] = int8(r.next())
		}
		return t
	}
	p := ops.KVRMSNormRoPECacheParams{
		KV: randomTensor(d, []int{B, 1, S, Dv + Dk}, &r), Gamma: randomTensor(d, []int{Dv}, &r),
		Cos: randomTensor(d, []int{B, 1, S, Dk}, &r), Sin: randomTensor(d, []int{B, 1, S, Dk}, &r),
		KCache: cache(kI8, Dk), CKVCache: cache(cI8, Dv), Epsilon: 1e-6, CacheMode: mode,
	}
	// Distinct targets, a few skipped.
	var idx []int64
	switch {
	case mode == ops.CacheNorm:
		for range B {
			for s := range S {
				idx = append(idx, int64((s*3+1)%bs))
			}
		}
	case mode.PerBlock():
		nb := (S + bs - 1) / bs
		for i := range B * nb {
			idx = append(idx, int64(((i*5+2)%blocks)*bs+i%bs))
		}
	default:
		for i := range B * S {
			idx = append(idx, int64((i*7+3)%(blocks*bs)))
		}
	}
	idx[len(idx)/2] = -1
	p.Index = tensor.FromI64(idx, len(idx))
	if mode == ops.CacheNorm {
		p.Index.Shape = []int{B, S}
	}
	perTensor := quant == "int8-asym-tensor" || quant == "int8-asym-mixed"
	if kI8 {
		p.KRoPEScale = scaleTensor(&r, Dk, perTensor)
	}
	if cI8 {
		p.CKVScale = scaleTensor(&r, Dv, perTensor)
	}
	switch quant {
	case "int8-asym-tensor":
		p.KRoPEOffset = tensor.FromF32([]float32{2.5}, 1)
		p.CKVOffset = tensor.FromF32([]float32{-0.5}, 1)
	case "int8-asym-mixed":
		p.KRoPEOffset, p.CKVOffset = scaleTensor(&r, Dk, false), scaleTensor(&r, Dv, false)
		p.KRoPEOffset.Shape = []int{1, Dk} // torch_npu's [N, D] with N = 1
	}
	s.compareOp(ops.KVRMSNormRoPECache.Name(), name, func(disp *ops.Dispatcher) ([]tensor.Tensor, error) {
		q := p
		q.KCache, q.CKVCache = p.KCache.Clone(), p.CKVCache.Clone()
		q.KRoPE, q.CKV = tensor.Zeros(d, B, 1, S, Dk), tensor.Zeros(d, B, 1, S, Dv)
		err := rotary.KVRMSNormRoPECache(disp, q)
		return []tensor.Tensor{q.KCache, q.CKVCache, q.KRoPE, q.CKV}, err
	})
}

// scaleTensor is a per-channel (or per-tensor) int8 scale that spreads values over the range.
func scaleTensor(r *rng, n int, perTensor bool) tensor.Tensor {
	if perTensor {
		n = 1
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = 4 + float32(r.next()%2000)/100
	}
	return tensor.FromF32(v, n)
}

// passKVCache runs kv_rmsnorm_rope_cache on float caches full of the patterns and checks that
// every element outside the rows it writes keeps its bits.
func (s *sweep) passKVCache(d tensor.DType) {
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
