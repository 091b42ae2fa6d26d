package ops_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// Argument checking of kv_rmsnorm_rope_cache, through the public API and every backend: each bad
// input is an error that names the argument, and not one byte of any cache or output changes.
// (The numbers are tested against float64 math in backend/native.)

const kvB, kvS, kvDv, kvDk = 2, 3, 32, 16

// kvValid is a valid PA call: BF16 kv, caches of 4 blocks of 4 slots.
func kvValid() ops.KVRMSNormRoPECacheParams {
	fill := func(d tensor.DType, shape ...int) tensor.Tensor {
		t := tensor.Zeros(d, shape...)
		for i := range t.Len() {
			v := float32(math.Sin(float64(3*i+1))) * 2
			switch d {
			case tensor.F32:
				t.F32[i] = v
			case tensor.I8:
				t.I8[i] = int8(40 * v)
			default:
				t.Bits[i] = tensor.FromFloat32(d, v)
			}
		}
		return t
	}
	d := tensor.BF16
	return ops.KVRMSNormRoPECacheParams{
		KV: fill(d, kvB, 1, kvS, kvDv+kvDk), Gamma: fill(d, kvDv),
		Cos: fill(d, kvB, 1, kvS, kvDk), Sin: fill(d, kvB, 1, kvS, kvDk),
		Index:  tensor.FromI64([]int64{0, 5, -1, 9, 2, 15}, kvB*kvS),
		KCache: fill(d, 4, 4, 1, kvDk), CKVCache: fill(d, 4, 4, 1, kvDv),
		Epsilon: 1e-5, CacheMode: ops.CachePA,
		KRoPE: fill(d, kvB, 1, kvS, kvDk), CKV: fill(d, kvB, 1, kvS, kvDv),
	}
}

// kvInt8 makes both caches I8 with per-channel scales.
func kvInt8(p *ops.KVRMSNormRoPECacheParams) {
	p.KCache = tensor.Zeros(tensor.I8, p.KCache.Shape...)
	p.CKVCache = tensor.Zeros(tensor.I8, p.CKVCache.Shape...)
	p.KRoPEScale = tensor.FromF32(slices.Repeat([]float32{20}, kvDk), kvDk)
	p.CKVScale = tensor.FromF32(slices.Repeat([]float32{30}, kvDv), kvDv)
}

func kvDispatchers(t *testing.T) map[string]*ops.Dispatcher {
	t.Helper()
	m := map[string]*ops.Dispatcher{}
	for _, b := range ops.KVRMSNormRoPECache.Backends() {
		d, err := ops.NewDispatcher("all", b)
		if err != nil {
			t.Fatal(err)
		}
		m[b] = d
	}
	if len(m) < 2 {
		t.Fatalf("backends %v: want native and cpu", ops.KVRMSNormRoPECache.Backends())
	}
	return m
}

// kvSnapshot copies the backing slices of every tensor the op may write.
func kvSnapshot(p ops.KVRMSNormRoPECacheParams) [][]byte {
	var out [][]byte
	for _, t := range []tensor.Tensor{p.KCache, p.CKVCache, p.KRoPE, p.CKV} {
		var b []byte
		for _, v := range t.F32 {
			b = append(b, byte(math.Float32bits(v)), byte(math.Float32bits(v)>>8), byte(math.Float32bits(v)>>16), byte(math.Float32bits(v)>>24))
		}
		for _, v := range t.Bits {
			b = append(b, byte(v), byte(v>>8))
		}
		for _, v := range t.I8 {
			b = append(b, byte(v))
		}
		out = append(out, b)
	}
	return out
}

func TestKVRMSNormRoPECacheBadInput(t *testing.T) {
	type mut func(p *ops.KVRMSNormRoPECacheParams)
	idx := func(v ...int64) mut {
		return func(p *ops.KVRMSNormRoPECacheParams) { p.Index = tensor.FromI64(v, len(v)) }
	}
	norm := func(p *ops.KVRMSNormRoPECacheParams) {
		p.CacheMode = ops.CacheNorm
		p.KCache = tensor.Zeros(tensor.BF16, kvB, 1, 4, kvDk)
		p.CKVCache = tensor.Zeros(tensor.BF16, kvB, 1, 4, kvDv)
		p.Index = tensor.FromI64([]int64{0, 1, 2, 3, 2, 1}, kvB, kvS)
	}
	blk := func(p *ops.KVRMSNormRoPECacheParams) { // PA_BLK_BNSD, block size 2: 2 entries per batch
		p.CacheMode = ops.CachePABlkBNSD
		p.KCache = tensor.Zeros(tensor.BF16, 4, 2, 1, kvDk)
		p.CKVCache = tensor.Zeros(tensor.BF16, 4, 2, 1, kvDv)
		p.Index = tensor.FromI64([]int64{0, 2, 4, 6}, 4)
	}
	f32 := func(shape ...int) tensor.Tensor { return tensor.Zeros(tensor.F32, shape...) }
	bf := func(shape ...int) tensor.Tensor { return tensor.Zeros(tensor.BF16, shape...) }
	cases := []struct {
		name string
		muts []mut
		want []string // substrings of the error
	}{
		{"index past the blocks", []mut{idx(0, 1, 2, 3, 4, 16)}, []string{"index[5] = 16", "[-1, 16)"}},
		{"index below -1", []mut{idx(0, -2, 2, 3, 4, 5)}, []string{"index[1] = -2", "[-1, 16)"}},
		{"index duplicate slot", []mut{idx(0, 7, 2, 3, 7, -1)}, []string{"index[4] = 7", "index[1]", "distinct"}},
		{"index in order but repeated", []mut{idx(0, 1, 2, 2, 3, 4)}, []string{"index[3] = 2", "index[2]", "distinct"}},
		{"index I32 duplicate", []mut{func(p *ops.KVRMSNormRoPECacheParams) { p.Index = tensor.FromI32([]int32{3, 3, 0, 1, 2, 4}, 6) }}, []string{"index[1] = 3"}},
		{"index float", []mut{func(p *ops.KVRMSNormRoPECacheParams) { p.Index = f32(6) }}, []string{"index", "dtype F32"}},
		{"index missing", []mut{func(p *ops.KVRMSNormRoPECacheParams) { p.Index = tensor.Tensor{} }}, []string{"index: missing"}},
		{"index shape for PA", []mut{func(p *ops.KVRMSNormRoPECacheParams) { p.Index.Shape = []int{kvB, kvS} }}, []string{"index", "[B·S]"}},
		{"index buffer short", []mut{func(p *ops.KVRMSNormRoPECacheParams) { p.Index.I64 = p.Index.I64[:4] }}, []string{"index"}},
		{"Norm index past Scache", []mut{norm, func(p *ops.KVRMSNormRoPECacheParams) { p.Index.I64[4] = 4 }}, []string{"index[1,1] = 4", "[-1, 4)"}},
		{"Norm duplicate within a batch", []mut{norm, func(p *ops.KVRMSNormRoPECacheParams) { p.Index.I64[5] = 3 }}, []string{"index[1,2] = 3", "index[1,0]", "batch 1"}},
		{"Norm index shape", []mut{norm, func(p *ops.KVRMSNormRoPECacheParams) { p.Index.Shape = []int{kvB * kvS} }}, []string{"index", "[B, S]"}},
		{"Norm cache batch too small", []mut{norm, func(p *ops.KVRMSNormRoPECacheParams) {
			p.KCache, p.CKVCache = bf(1, 1, 4, kvDk), bf(1, 1, 4, kvDv)
		}}, []string{"k_cache", "Bcache ≥ B = 2"}},
		{"Norm cache lengths differ", []mut{norm, func(p *ops.KVRMSNormRoPECacheParams) { p.CKVCache = bf(kvB, 1, 5, kvDv) }}, []string{"ckv_cache", "k_cache"}},
		{"PA_BLK same block twice", []mut{blk, func(p *ops.KVRMSNormRoPECacheParams) { p.Index.I64[3] = 3 }}, []string{"index[3] = 3", "block 1", "index[1] = 2"}},
		{"PA_BLK index shape", []mut{blk, idx(0, 2, 4, 6, -1, -1)}, []string{"index", "ceil(S/BlockSize)"}},
		{"PA_BLK index past the blocks", []mut{blk, idx(0, 2, 4, 8)}, []string{"index[3] = 8", "[-1, 8)"}},
		{"k_cache width", []mut{func(p *ops.KVRMSNormRoPECacheParams) { p.KCache = bf(4, 4, 1, kvDk+2) }}, []string{"k_cache", "[4,4,1,18]"}},
		{"k_cache rank", []mut{func(p *ops.KVRMSNormRoPECacheParams) { p.KCache = bf(16, kvDk) }}, []string{"k_cache"}},
		{"k_cache heads", []mut{func(p *ops.KVRMSNormRoPECacheParams) { p.KCache = bf(4, 4, 2, kvDk) }}, []string{"k_cache"}},
		{"caches differ in blocks", []mut{func(p *ops.KVRMSNormRoPECacheParams) { p.CKVCache = bf(5, 4, 1, kvDv) }}, []string{"ckv_cache", "5 blocks of 4", "4 blocks of 4"}},
		{"k_cache dtype", []mut{func(p *ops.KVRMSNormRoPECacheParams) { p.KCache = tensor.Zeros(tensor.F16, 4, 4, 1, kvDk) }}, []string{"k_cache", "dtype F16", "I8"}},
		{"k_cache missing", []mut{func(p *ops.KVRMSNormRoPECacheParams) { p.KCache = tensor.Tensor{} }}, []string{"k_cache: missing"}},
		{"ckv_cache view outside buffer", []mut{func(p *ops.KVRMSNormRoPECacheParams) { p.CKVCache.Offset = 1 }}, []string{"ckv_cache"}},
		{"NZ width not 32-byte groups", []mut{func(p *ops.KVRMSNormRoPECacheParams) {
			kvInt8(p)
			p.CacheMode = ops.CachePANZ
			p.KRoPEScale = tensor.FromF32([]float32{1}, 1)
		}}, []string{"k_cache", "groups of 32", "16"}},
		{"NZ 4-D view not contiguous", []mut{func(p *ops.KVRMSNormRoPECacheParams) {
			p.CacheMode = ops.CachePANZ
			p.KCache = tensor.Tensor{DType: tensor.BF16, Shape: []int{4, 4, 1, kvDk}, Strides: []int{2 * 4 * kvDk, kvDk, kvDk, 1}, Bits: make([]uint16, 8*4*kvDk)}
		}}, []string{"k_cache", "contiguous"}},
		{"NZ 5-D wrong group", []mut{func(p *ops.KVRMSNormRoPECacheParams) {
			p.CacheMode = ops.CachePANZ
			p.KCache = bf(4, 2, 4, 1, 8)
		}}, []string{"k_cache", "[BlockNum, 1, BlockSize, 1, 16]"}},
		{"int8 cache without scale", []mut{kvInt8, func(p *ops.KVRMSNormRoPECacheParams) { p.CKVScale = tensor.Tensor{} }}, []string{"c_kv_scale: missing", "ckv_cache is I8"}},
		{"scale with a float cache", []mut{func(p *ops.KVRMSNormRoPECacheParams) { p.KRoPEScale = f32(kvDk) }}, []string{"k_rope_scale", "not I8"}},
		{"offset with a float cache", []mut{func(p *ops.KVRMSNormRoPECacheParams) { p.CKVOffset = f32(1) }}, []string{"c_kv_offset", "not I8"}},
		{"scale shape", []mut{kvInt8, func(p *ops.KVRMSNormRoPECacheParams) { p.KRoPEScale = f32(kvDk + 1) }}, []string{"k_rope_scale", "[17]", "[16]"}},
		{"scale dtype", []mut{kvInt8, func(p *ops.KVRMSNormRoPECacheParams) { p.CKVScale = bf(kvDv) }}, []string{"c_kv_scale", "F32"}},
		{"offset shape", []mut{kvInt8, func(p *ops.KVRMSNormRoPECacheParams) { p.KRoPEOffset = f32(2, kvDk) }}, []string{"k_rope_offset", "[2,16]"}},
		{"kv dtype", []mut{func(p *ops.KVRMSNormRoPECacheParams) {
			p.KV = tensor.Tensor{DType: tensor.I32, Shape: p.KV.Shape, I32: make([]int32, p.KV.Len())}
		}}, []string{"kv", "dtype I32"}},
		{"kv missing", []mut{func(p *ops.KVRMSNormRoPECacheParams) { p.KV = tensor.Tensor{} }}, []string{"kv: missing"}},
		{"kv heads", []mut{func(p *ops.KVRMSNormRoPECacheParams) { p.KV = bf(kvB, 2, kvS, kvDv+kvDk) }}, []string{"kv", "N = 1"}},
		{"kv rank", []mut{func(p *ops.KVRMSNormRoPECacheParams) { p.KV = bf(kvB, kvS, kvDv+kvDk) }}, []string{"kv", "4 dimensions"}},
		{"kv width", []mut{func(p *ops.KVRMSNormRoPECacheParams) { p.KV = bf(kvB, 1, kvS, kvDv+kvDk+2) }}, []string{"kv", "last dimension 50", "48"}},
		{"kv rows not contiguous", []mut{func(p *ops.KVRMSNormRoPECacheParams) {
			p.KV.Strides = []int{kvS * 96, kvS * 96, 96, 2}
			p.KV.Bits = make([]uint16, kvB*kvS*96)
		}}, []string{"kv", "contiguous"}},
		{"gamma dtype", []mut{func(p *ops.KVRMSNormRoPECacheParams) { p.Gamma = f32(kvDv) }}, []string{"gamma", "F32", "BF16"}},
		{"gamma rank", []mut{func(p *ops.KVRMSNormRoPECacheParams) { p.Gamma = bf(1, kvDv) }}, []string{"gamma", "[Dv]"}},
		{"cos dtype", []mut{func(p *ops.KVRMSNormRoPECacheParams) { p.Cos = f32(kvB, 1, kvS, kvDk) }}, []string{"cos", "dtype F32"}},
		{"cos shape", []mut{func(p *ops.KVRMSNormRoPECacheParams) { p.Cos = bf(kvB, 1, 2, kvDk) }}, []string{"cos", "[B,1,S,Dk]"}},
		{"cos odd", []mut{func(p *ops.KVRMSNormRoPECacheParams) {
			p.Cos, p.Sin = bf(kvB, 1, kvS, 15), bf(kvB, 1, kvS, 15)
			p.Gamma = bf(33)
		}}, []string{"cos", "even"}},
		{"sin shape", []mut{func(p *ops.KVRMSNormRoPECacheParams) { p.Sin = bf(kvB, 1, 1, kvDk) }}, []string{"sin", "cos"}},
		{"unknown mode", []mut{func(p *ops.KVRMSNormRoPECacheParams) { p.CacheMode = "PA_XYZ" }}, []string{"PA_XYZ", "PA_BLK_NZ"}},
		{"negative epsilon", []mut{func(p *ops.KVRMSNormRoPECacheParams) { p.Epsilon = -1 }}, []string{"epsilon"}},
		{"NaN epsilon", []mut{func(p *ops.KVRMSNormRoPECacheParams) { p.Epsilon = math.NaN() }}, []string{"epsilon"}},
		{"k_rope shape", []mut{func(p *ops.KVRMSNormRoPECacheParams) { p.KRoPE = bf(kvB, 1, kvS, kvDv) }}, []string{"k_rope", "[2,1,3,16]"}},
		{"c_kv dtype", []mut{func(p *ops.KVRMSNormRoPECacheParams) { p.CKV = f32(kvB, 1, kvS, kvDv) }}, []string{"c_kv", "F32"}},
	}
	disps := kvDispatchers(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for backend, d := range disps {
				p := kvValid()
				for _, m := range c.muts {
					m(&p)
				}
				before := kvSnapshot(p)
				err := rotary.KVRMSNormRoPECache(d, p)
				if err == nil {
					t.Fatalf("%s: no error", backend)
				}
				for _, w := range c.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("%s: error %q lacks %q", backend, err, w)
					}
				}
				after := kvSnapshot(p)
				for i := range before {
					if !slices.Equal(before[i], after[i]) {
						t.Fatalf("%s: tensor %d of caches/outputs changed after the error %q", backend, i, err)
					}
				}
			}
		})
	}
}

// TestKVRMSNormRoPECacheAccepts: what the contract allows must pass, and every backend must
// write the same thing.
func TestKVRMSNormRoPECacheAccepts(t *testing.T) {
	cases := []struct {
		name string
		mut  func(p *ops.KVRMSNormRoPECacheParams)
	}{
		{"PA", func(*ops.KVRMSNormRoPECacheParams) {}},
		{"PA, slots in order", func(p *ops.KVRMSNormRoPECacheParams) {
			p.Index = tensor.FromI64([]int64{0, 1, 2, 3, 4, 15}, kvB*kvS)
		}},
		{"PA_BNSD, index I32", func(p *ops.KVRMSNormRoPECacheParams) {
			p.CacheMode = ops.CachePABNSD
			p.Index = tensor.FromI32([]int32{0, 5, -1, 9, 2, 15}, 6)
		}},
		{"Norm repeats across batches, default mode", func(p *ops.KVRMSNormRoPECacheParams) {
			p.CacheMode = ""
			p.KCache = tensor.Zeros(tensor.BF16, kvB+1, 1, 4, kvDk)
			p.CKVCache = tensor.Zeros(tensor.BF16, kvB+1, 1, 4, kvDv)
			p.Index = tensor.FromI64([]int64{0, 1, 2, 2, 1, 0}, kvB, kvS)
		}},
		{"PA_BLK_BSND alias, remainders ignored, int8 asymmetric per tensor", func(p *ops.KVRMSNormRoPECacheParams) {
			kvInt8(p)
			p.CacheMode = "PA_BLK_BSND"
			p.Index = tensor.FromI64([]int64{13, -1}, 2) // block size 4 ≥ S: one entry per batch
			p.KRoPEScale = tensor.FromF32([]float32{9}, 1)
			p.KRoPEOffset = tensor.FromF32([]float32{-3.5}, 1)
			p.CKVOffset = tensor.FromF32(make([]float32, kvDv), 1, kvDv)
		}},
		{"PA_NZ BF16 4-D, cos per batch", func(p *ops.KVRMSNormRoPECacheParams) {
			p.CacheMode = ops.CachePANZ
			p.Cos = tensor.FromBits(tensor.BF16, p.Cos.Bits[:kvB*kvDk], kvB, 1, 1, kvDk)
			p.Sin = tensor.FromBits(tensor.BF16, p.Sin.Bits[:kvB*kvDk], kvB, 1, 1, kvDk)
		}},
		{"PA_BLK_NZ int8 5-D, no outputs", func(p *ops.KVRMSNormRoPECacheParams) {
			p.CacheMode = ops.CachePABlkNZ
			p.KCache = tensor.Zeros(tensor.BF16, 4, 1, 2, 1, kvDk) // Dk = 16 I8 would not fill 32 bytes
			p.CKVCache = tensor.Zeros(tensor.I8, 4, 1, 2, 1, 32)
			p.CKVScale = tensor.FromF32([]float32{25}, 1)
			p.Index = tensor.FromI64([]int64{6, 0, 2, 4}, 4)
			p.KRoPE, p.CKV = tensor.Tensor{}, tensor.Tensor{}
		}},
		{"F32 kv, epsilon 0", func(p *ops.KVRMSNormRoPECacheParams) {
			conv := func(t tensor.Tensor) tensor.Tensor {
				if t.DType != tensor.BF16 {
					return t
				}
				f := tensor.Zeros(tensor.F32, t.Shape...)
				for i, b := range t.Bits {
					f.F32[i] = tensor.Float32FromBF16(b)
				}
				return f
			}
			p.KV, p.Gamma, p.Cos, p.Sin = conv(p.KV), conv(p.Gamma), conv(p.Cos), conv(p.Sin)
			p.KCache, p.CKVCache, p.KRoPE, p.CKV = conv(p.KCache), conv(p.CKVCache), conv(p.KRoPE), conv(p.CKV)
			p.Epsilon = 0
		}},
	}
	disps := kvDispatchers(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var ref [][]byte
			for _, backend := range ops.KVRMSNormRoPECache.Backends() {
				p := kvValid()
				c.mut(&p)
				before := kvSnapshot(p)
				if err := rotary.KVRMSNormRoPECache(disps[backend], p); err != nil {
					t.Fatalf("%s: %v", backend, err)
				}
				got := kvSnapshot(p)
				if slices.EqualFunc(before[:2], got[:2], slices.Equal) {
					t.Errorf("%s: no cache changed", backend)
				}
				if ref == nil {
					ref = got
					continue
				}
				for i := range ref {
					if !slices.Equal(ref[i], got[i]) {
						t.Errorf("%s: tensor %d differs from %s's", backend, i, ops.KVRMSNormRoPECache.Backends()[0])
					}
				}
			}
		})
	}
}

// TestKVRMSNormRoPECacheNoAllocs: the decode hot path (checks, dispatch, kernel) allocates
// nothing, at DeepSeek-V3's widths.
func TestKVRMSNormRoPECacheNoAllocs(t *testing.T) {
	const B, Dv, Dk = 8, 512, 64
	d := tensor.BF16
	p := ops.KVRMSNormRoPECacheParams{
		KV: tensor.Zeros(d, B, 1, 1, Dv+Dk), Gamma: tensor.Zeros(d, Dv),
		Cos: tensor.Zeros(d, B, 1, 1, Dk), Sin: tensor.Zeros(d, B, 1, 1, Dk),
		Index:  tensor.FromI64([]int64{0, 130, 7, 300, 9, 64, 65, 511}, B),
		KCache: tensor.Zeros(tensor.I8, 4, 128, 1, Dk), CKVCache: tensor.Zeros(d, 4, 128, 1, Dv),
		KRoPEScale: tensor.FromF32(make([]float32, Dk), Dk),
		Epsilon:    1e-6, CacheMode: ops.CachePANZ,
	}
	for backend, disp := range kvDispatchers(t) {
		if n := testing.AllocsPerRun(20, func() {
			if err := rotary.KVRMSNormRoPECache(disp, p); err != nil {
				t.Fatal(err)
			}
		}); n != 0 && backend != ops.Native {
			t.Errorf("%s: %v allocations per call", backend, n)
		}
	}
}

// FuzzKVRMSNormRoPECacheArgs feeds arbitrary tensors, index values and modes to
// NewKVRMSNormRoPECache: no panic, and whatever it accepts every backend runs without panicking
// (the kernels index their slices, so a write outside a view would panic).
func FuzzKVRMSNormRoPECacheArgs(f *testing.F) {
	indexShape := func(mode byte, n int) []int {
		if mode == 0 { // Norm: [B, S]
			return []int{2, n / 2}
		}
		return []int{n}
	}
	enc := func(mode byte, index []int8, cache [2][]int, i8 bool) []byte {
		e := fuzzEncode(nil).b(mode).
			contiguous(tensor.F32, 2, 1, 2, 16+8).contiguous(tensor.F32, 16).
			contiguous(tensor.F32, 2, 1, 2, 8).contiguous(tensor.F32, 2, 1, 2, 8).
			contiguous(tensor.I64, indexShape(mode, len(index))...)
		kt := tensor.F32
		if i8 {
			kt = tensor.I8
		}
		e = e.contiguous(kt, cache[0]...).contiguous(tensor.F32, cache[1]...)
		if i8 {
			e = e.contiguous(tensor.F32, 8)
		} else {
			e = e.contiguous(tensor.Invalid) // absent
		}
		for _, v := range index {
			e = e.b(byte(v))
		}
		return e
	}
	f.Add(enc(1, []int8{0, 5, -1, 3}, [2][]int{{2, 4, 1, 8}, {2, 4, 1, 16}}, false))                              // PA
	f.Add(enc(0, []int8{0, 1, 1, 0}, [2][]int{{2, 1, 3, 8}, {2, 1, 3, 16}}, false))                               // Norm
	f.Add(enc(4, []int8{2, -1}, [2][]int{{3, 2, 1, 8}, {3, 2, 1, 16}}, false))                                    // PA_BLK_BNSD
	f.Add(enc(3, []int8{7, 0, 1, 6}, [2][]int{{2, 4, 1, 8}, {2, 4, 1, 16}}, false))                               // PA_NZ, F32 groups of 8
	f.Add(enc(5, []int8{1, 0}, [2][]int{{2, 1, 2, 1, 32}, {2, 2, 2, 1, 8}}, true))                                // PA_BLK_NZ 5-D, int8 too narrow
	f.Add(enc(2, []int8{1, 6, 2, -1}, [2][]int{{2, 4, 1, 8}, {2, 4, 1, 16}}, true))                               // PA_BNSD, int8 k_cache
	f.Add(enc(1, []int8{0, 5, 5, 3}, [2][]int{{2, 4, 1, 8}, {2, 4, 1, 16}}, false))                               // duplicate
	f.Add(enc(1, []int8{0, 8, -2, 3}, [2][]int{{2, 4, 1, 8}, {2, 4, 1, 16}}, false))                              // range
	f.Add([]byte(fuzzEncode(nil).b(1).b(byte(tensor.F32), 4).i(1<<40, 1, 1<<40, 24).b(1).i(0, 0, 0, 1).i(0, 24))) // zero strides
	// kv and index broadcast over 2^16 tokens, every index value 0: the duplicate check kept a
	// key per token; and the same into caches broadcast over 2^40 blocks.
	broadcast := func(blocks int, cacheStride int) []byte {
		e := fuzzEncode(nil).b(1).b(byte(tensor.F32), 4).i(1<<16, 1, 1, 24).b(1).i(0, 0, 0, 1).i(0, 24).
			contiguous(tensor.F32, 16).contiguous(tensor.F32, 1, 1, 1, 8).contiguous(tensor.F32, 1, 1, 1, 8).
			b(byte(tensor.I64), 1).i(1<<16).b(1).i(0).i(0, 1)
		for _, w := range []int{8, 16} {
			e = e.b(byte(tensor.F32), 4).i(blocks, 4, 1, w).b(1).i(cacheStride*w, w, w, 1).i(0, 4*w)
		}
		return e.contiguous(tensor.Invalid).b(0)
	}
	f.Add(broadcast(1, 4))
	f.Add(broadcast(1<<40, 0))
	modes := []ops.CacheMode{ops.CacheNorm, ops.CachePA, ops.CachePABNSD, ops.CachePANZ, ops.CachePABlkBNSD, ops.CachePABlkNZ, "bogus"}
	disps := map[string]*ops.Dispatcher{}
	for _, b := range ops.KVRMSNormRoPECache.Backends() {
		d, err := ops.NewDispatcher("all", b)
		if err != nil {
			f.Fatal(err)
		}
		disps[b] = d
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &fuzzReader{b: data}
		mode := modes[int(r.byte())%len(modes)]
		p := ops.KVRMSNormRoPECacheParams{KV: r.tensor(), Gamma: r.tensor(), Cos: r.tensor(), Sin: r.tensor(),
			Index: r.tensor(), KCache: r.tensor(), CKVCache: r.tensor(), KRoPEScale: r.tensor(), CacheMode: mode, Epsilon: 1e-6}
		for i := range p.Index.I64 {
			p.Index.I64[i] = int64(int8(r.byte()))
		}
		for i := range p.Index.I32 {
			p.Index.I32[i] = int32(int8(r.byte()))
		}
		if p.KRoPEScale.DType == tensor.Invalid || p.KCache.DType != tensor.I8 {
			p.KRoPEScale = tensor.Tensor{}
		}
		if p.CKVCache.DType == tensor.I8 {
			p.CKVScale = tensor.FromF32([]float32{3}, 1)
		}
		a, err := ops.NewKVRMSNormRoPECache(p)
		if err != nil || a.Batch*a.Seq > 1<<12 {
			return
		}
		for backend, d := range disps {
			if _, err := ops.Run(d, ops.KVRMSNormRoPECache, a); err != nil {
				t.Fatalf("%s: %v", backend, err)
			}
		}
	})
}
