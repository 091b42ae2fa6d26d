package cpu_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"

	"github.com/rotary-go/rotary/backend/cpu"
)

// kvcValues selects what kvcRandom mixes into normal values.
type kvcValues int

const (
	kvcNormal  kvcValues = iota
	kvcTiny              // zeros and subnormals, all finite: rows whose results are subnormal
	kvcSpecial           // subnormals, NaN, infinities and random bit patterns
)

func (v kvcValues) String() string { return [...]string{"normal", "tiny", "special"}[v] }

// kvcRandom fills a tensor with normal values, mixed with what v selects.
func kvcRandom(r *rand.Rand, d tensor.DType, v kvcValues, shape ...int) tensor.Tensor {
	t := tensor.Zeros(d, shape...)
	for i := range t.Len() {
		x := float32(r.NormFloat64())
		switch k := r.IntN(40); {
		case v == kvcTiny && k < 2:
			x *= 1e-39 // f32 subnormal; bf16 keeps it, f16 flushes
		case v == kvcTiny && k == 2:
			x = 0
		case v != kvcSpecial:
		case k == 0:
			x = math.Float32frombits(r.Uint32() & 0x807fffff)
		case k == 1:
			x = float32(math.NaN())
		case k == 2:
			x = float32(math.Inf(1 - 2*r.IntN(2)))
		case k == 3:
			x = math.Float32frombits(r.Uint32())
		case k == 4:
			x *= 1e-40
		}
		if d == tensor.F32 {
			t.F32[i] = x
		} else {
			t.Bits[i] = tensor.FromFloat32(d, x)
		}
	}
	return t
}

func kvcParams(r *rand.Rand, d tensor.DType, T, dv, dk int, special kvcValues) ops.KVRMSNormRoPECacheParams {
	const bs = 16
	blocks := (T + bs - 1) / bs
	index := make([]int64, T)
	for i, p := range r.Perm(T) {
		index[i] = int64(p)
		if i%7 == 3 {
			index[i] = -1
		}
	}
	return ops.KVRMSNormRoPECacheParams{
		KV: kvcRandom(r, d, special, T, 1, 1, dv+dk), Gamma: kvcRandom(r, d, special, dv),
		Cos: kvcRandom(r, d, special, T, 1, 1, dk), Sin: kvcRandom(r, d, special, T, 1, 1, dk),
		Index:  tensor.FromI64(index, T),
		KCache: tensor.Zeros(d, blocks, bs, 1, dk), CKVCache: tensor.Zeros(d, blocks, bs, 1, dv),
		KRoPE: tensor.Zeros(d, T, 1, 1, dk), CKV: tensor.Zeros(d, T, 1, 1, dv),
		Epsilon: 1e-6, CacheMode: ops.CachePABNSD,
	}
}

// kvcReshape makes p's [T, 1, 1, D] tensors [B, 1, S, D] (T = B·S).
func kvcReshape(p *ops.KVRMSNormRoPECacheParams, B, S int) {
	for _, t := range []*tensor.Tensor{&p.KV, &p.Cos, &p.Sin, &p.KRoPE, &p.CKV} {
		if !t.IsZero() {
			t.Shape = []int{B, 1, S, t.Shape[3]}
		}
	}
}

func kvcClone(p ops.KVRMSNormRoPECacheParams) ops.KVRMSNormRoPECacheParams {
	p.KCache, p.CKVCache, p.KRoPE, p.CKV = p.KCache.Clone(), p.CKVCache.Clone(), p.KRoPE.Clone(), p.CKV.Clone()
	return p
}

// TestKVRMSNormRoPECacheRandom: the cpu op against native on random inputs (subnormals, NaN and
// infinities included), every implementation, shapes the kernels cover fully and ones that
// leave Go tails, token counts below and above the batch of eight and the thread threshold.
func TestKVRMSNormRoPECacheRandom(t *testing.T) {
	defer cpu.SetImplementation(cpu.Implementations()[0])
	ref := mustDispatcher(t, "none", ops.Auto)
	got := mustDispatcher(t, "all", cpu.Name)
	r := rand.New(rand.NewPCG(5, 6))
	values := []kvcValues{kvcNormal, kvcTiny, kvcSpecial}
	if raceEnabled {
		// Which values fill a row does not change how the pool splits the call (T = 700 on the
		// wider shapes), which is what the race detector is here for.
		values = []kvcValues{kvcSpecial}
	}
	// 512×64 (DeepSeek) and 96×128 take the one-token kernels; the rest the Go path.
	for _, shape := range [][2]int{{512, 64}, {96, 128}, {128, 32}, {37, 6}, {100, 18}, {4, 2}, {1, 2}} {
		for _, d := range []tensor.DType{tensor.BF16, tensor.F16, tensor.F32} {
			for _, T := range []int{1, 9, 10, 23, 24, 700} {
				for _, special := range values {
					p := kvcParams(r, d, T, shape[0], shape[1], special)
					switch T {
					case 9:
						// One output only: a skipped token still computes it.
						p.CKV = tensor.Tensor{}
					case 10:
						p.KRoPE = tensor.Tensor{}
					case 23:
						// No outputs, one sequence of 23 (rows affine in the token).
						kvcReshape(&p, 1, 23)
						p.CKV, p.KRoPE = tensor.Tensor{}, tensor.Tensor{}
					case 24:
						// No outputs, two sequences of 12 sharing cos and sin per batch (not affine),
						// gamma a strided view.
						kvcReshape(&p, 2, 12)
						p.Gamma = kvcRandom(r, d, special, 2*shape[0])
						p.Gamma.Shape, p.Gamma.Strides = []int{shape[0]}, []int{2}
						for _, t := range []*tensor.Tensor{&p.Cos, &p.Sin} {
							t.Shape = []int{2, 1, 1, shape[1]} // the first two rows of its backing
						}
						p.CKV, p.KRoPE = tensor.Tensor{}, tensor.Tensor{}
					}
					want := kvcClone(p)
					if err := rotary.KVRMSNormRoPECache(ref, want); err != nil {
						t.Fatal(err)
					}
					for _, impl := range cpu.Implementations() {
						name := fmt.Sprintf("%dx%d/%v/T%d/%v/%s", shape[0], shape[1], d, T, special, impl)
						if err := cpu.SetImplementation(impl); err != nil {
							t.Fatal(err)
						}
						out := kvcClone(p)
						if err := rotary.KVRMSNormRoPECache(got, out); err != nil {
							t.Fatal(err)
						}
						for i, pair := range [][2]tensor.Tensor{{want.KCache, out.KCache}, {want.CKVCache, out.CKVCache}, {want.KRoPE, out.KRoPE}, {want.CKV, out.CKV}} {
							if pair[0].IsZero() {
								continue
							}
							kvcSame(t, fmt.Sprintf("%s output %d", name, i), pair[0], pair[1])
						}
					}
				}
			}
		}
	}
}

// kvcSame demands identical bits, NaN payloads aside (the reference's float64 products may
// pick either NaN operand).
func kvcSame(t *testing.T, name string, want, got tensor.Tensor) {
	t.Helper()
	for i := range want.Len() {
		a, b := want.Float64At(i), got.Float64At(i)
		same := math.IsNaN(a) && math.IsNaN(b)
		if want.DType == tensor.F32 {
			same = same || math.Float32bits(want.F32[i]) == math.Float32bits(got.F32[i])
		} else {
			same = same || want.Bits[i] == got.Bits[i]
		}
		if !same {
			t.Fatalf("%s: element %d: got %v, want %v", name, i, b, a)
		}
	}
}

func BenchmarkKVRMSNormRoPECache(b *testing.B) {
	for _, impl := range cpu.Implementations() {
		b.Run(impl, func(b *testing.B) {
			defer cpu.SetImplementation(cpu.Implementations()[0])
			cpu.SetImplementation(impl)
			d, _ := ops.NewDispatcher("all", cpu.Name)
			r := rand.New(rand.NewPCG(7, 8))
			const T = 4096
			p := kvcParams(r, tensor.BF16, T, 512, 64, kvcNormal)
			p.KRoPE, p.CKV = tensor.Tensor{}, tensor.Tensor{}
			b.SetBytes(int64(T * (2*(512+64) + 4*64) * 2))
			for b.Loop() {
				if err := rotary.KVRMSNormRoPECache(d, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
