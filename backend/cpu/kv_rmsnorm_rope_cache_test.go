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

func kvcParams(r *rand.Rand, d tensor.DType, T, dv, dk int, special valueMix) ops.KVRMSNormRoPECacheParams {
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
		KV: randomTensor(r, d, special, T, 1, 1, dv+dk), Gamma: randomTensor(r, d, special, dv),
		Cos: randomTensor(r, d, special, T, 1, 1, dk), Sin: randomTensor(r, d, special, T, 1, 1, dk),
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

// kvcAgainstNative runs p through ref (native) and, on copies of its outputs, through got on
// every implementation, and demands the same bits in each output p has.
func kvcAgainstNative(t *testing.T, ref, got *ops.Dispatcher, p ops.KVRMSNormRoPECacheParams, name string) {
	t.Helper()
	want := kvcClone(p)
	if err := rotary.KVRMSNormRoPECache(ref, want); err != nil {
		t.Fatal(err)
	}
	for _, impl := range cpu.Implementations() {
		if err := cpu.SetImplementation(impl); err != nil {
			t.Fatal(err)
		}
		out := kvcClone(p)
		if err := rotary.KVRMSNormRoPECache(got, out); err != nil {
			t.Fatal(err)
		}
		for i, pair := range [][2]tensor.Tensor{{want.KCache, out.KCache}, {want.CKVCache, out.CKVCache}, {want.KRoPE, out.KRoPE}, {want.CKV, out.CKV}} {
			if !pair[0].IsZero() {
				sameBits(t, fmt.Sprintf("%s/%s output %d", name, impl, i), pair[0], pair[1])
			}
		}
	}
}

// TestKVRMSNormRoPECacheRandom: the cpu op against native on random inputs (subnormals, NaN and
// infinities included), every implementation, shapes the kernels cover fully and ones that
// leave Go tails, token counts below and above the batch of eight and the thread threshold.
func TestKVRMSNormRoPECacheRandom(t *testing.T) {
	defer cpu.SetImplementation(cpu.Implementations()[0])
	ref := mustDispatcher(t, "none", ops.Auto)
	got := mustDispatcher(t, "all", cpu.Name)
	r := rand.New(rand.NewPCG(5, 6))
	values := []valueMix{normalValues, tinyValues, specialValues}
	if raceEnabled || testing.Short() {
		// Which values fill a row does not change how the pool splits the call (T = 700 on the
		// wider shapes), which is what the race detector is here for; under -short (the arm64
		// runs under QEMU) the special values (NaN, infinities, subnormals) stay.
		values = []valueMix{specialValues}
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
						p.Gamma = randomTensor(r, d, special, 2*shape[0])
						p.Gamma.Shape, p.Gamma.Strides = []int{shape[0]}, []int{2}
						for _, t := range []*tensor.Tensor{&p.Cos, &p.Sin} {
							t.Shape = []int{2, 1, 1, shape[1]} // the first two rows of its backing
						}
						p.CKV, p.KRoPE = tensor.Tensor{}, tensor.Tensor{}
					}
					kvcAgainstNative(t, ref, got, p, fmt.Sprintf("%dx%d/%v/T%d/%v", shape[0], shape[1], d, T, special))
				}
			}
		}
	}
}

// TestKVRMSNormRoPECacheZeroGamma: zeros in gamma put an exact zero in every normalized row.
// The bf16 multi-token kernel stores them untested in rows its first pass vouches for; the
// tested norm (the other rows: tiny values here) cannot tell them from a flushed subnormal, and
// such a row takes the cold path, whose blocks without a subnormal keep the fast results and
// whose others take the integer rounding. Every implementation against native, rows with and
// without subnormal results.
func TestKVRMSNormRoPECacheZeroGamma(t *testing.T) {
	defer cpu.SetImplementation(cpu.Implementations()[0])
	ref := mustDispatcher(t, "none", ops.Auto)
	got := mustDispatcher(t, "all", cpu.Name)
	r := rand.New(rand.NewPCG(9, 10))
	for _, d := range []tensor.DType{tensor.BF16, tensor.F16, tensor.F32} {
		for _, special := range []valueMix{normalValues, tinyValues} {
			p := kvcParams(r, d, 37, 512, 64, special)
			p.CKV, p.KRoPE = tensor.Tensor{}, tensor.Tensor{}
			p.Gamma = randomTensor(r, d, normalValues, 512)
			for j := 0; j < 512; j += 7 {
				p.Gamma.SetFloat32(j, 0)
			}
			kvcAgainstNative(t, ref, got, p, fmt.Sprintf("%v/%v", d, special)) // outputs 0, 1: the caches
		}
	}
}

// TestKVRMSNormRoPECacheBF16Rows: bf16 rows of every kind the bf16 multi-token kernel treats
// apart, mixed within groups of eight and four, against native. The kernel's sums (VDPBF16PS)
// take subnormal inputs, squares and sums as zero, so a row with an element below 2^-63 in
// magnitude (a subnormal, a tiny normal, every element tiny, with ε = 0 where the flushed sum
// shows), with a zero, or whose sum is NaN must take the FMA sums again; an element of exactly
// 2^-63 must not need to. Gamma holds 2^-90 where some rows hold 2^-40, whose result is
// subnormal: those rows' scales fall below kvcRMin and take the tested norm, while rows scaled
// to a scale near kvcRMin (about 2^28) take either. Both the affine path (no outputs) and the
// path with outputs; shapes with and without a last block of 32 alone.
func TestKVRMSNormRoPECacheBF16Rows(t *testing.T) {
	defer cpu.SetImplementation(cpu.Implementations()[0])
	ref := mustDispatcher(t, "none", ops.Auto)
	got := mustDispatcher(t, "all", cpu.Name)
	r := rand.New(rand.NewPCG(13, 14))
	bf := func(x float32) uint16 { return tensor.FromFloat32(tensor.BF16, x) }
	sign := func() uint16 { return uint16(r.IntN(2)) << 15 }
	for _, shape := range [][2]int{{512, 64}, {96, 128}} {
		dv, dk := shape[0], shape[1]
		// A row that must take the FMA sums takes its group of eight (four) along: the second
		// mix keeps to rows that need not, so that groups take the untested norm.
		for _, mix := range [][]int{{0, 1, 2, 3, 4, 5, 6, 7, 8}, {0, 3, 6, 7, 8}} {
			for _, eps := range []float64{1e-6, 0} {
				for _, outputs := range []bool{false, true} {
					const T = 37
					p := kvcParams(r, tensor.BF16, T, dv, dk, normalValues)
					p.Epsilon = eps
					if !outputs {
						kvcReshape(&p, 1, T) // rows affine in the token
						p.CKV, p.KRoPE = tensor.Tensor{}, tensor.Tensor{}
					}
					p.Gamma.Bits[5] = bf(0x1p-90)
					kinds := make([]int, T)
					for tok := range T {
						kinds[tok] = mix[r.IntN(len(mix))]
						row := p.KV.Bits[tok*(dv+dk) : tok*(dv+dk)+dv]
						j := r.IntN(dv)
						switch kinds[tok] {
						case 1: // one element below 2^-63: a normal or a subnormal
							row[j] = sign() | []uint16{0x1fff, 0x1f80, 0x0001, 0x007f, 0x0f00}[r.IntN(5)]
						case 2: // every element tiny: every square subnormal (2^-75 ≤ |x| < 2^-63)
							for i := range row {
								row[i] = sign() | uint16(0x1a00+r.IntN(0x600))
							}
						case 3: // exactly 2^-63: squares of 2^-126, no test fails
							for range 8 {
								row[r.IntN(dv)] = sign() | 0x2000
							}
						case 4:
							row[j] = sign()
						case 5: // one NaN, or two in the same lane
							row[j] = 0x7fc1
							if r.IntN(2) == 0 && j+32 < dv {
								row[j+32] = 0xffe3
							}
						case 6: // squares that overflow: a sum of +Inf, a scale of 0
							row[j] = sign() | bf(0x1p70)
						case 7: // a subnormal result where gamma holds 2^-90
							row[5] = sign() | bf(0x1p-40)
						case 8: // a scale near kvcRMin
							scale := float32(math.Ldexp(1, -29+r.IntN(3)))
							for i := range row {
								row[i] = bf(tensor.Float32FromBF16(row[i]) * scale)
								if row[i]&0x7fff == 0 {
									row[i] = 0x3f80 // keep the row free of zeros
								}
							}
						}
					}
					kvcAgainstNative(t, ref, got, p, fmt.Sprintf("%dx%d/eps %g/outputs %v (row kinds %v)", dv, dk, eps, outputs, kinds))
				}
			}
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
			p := kvcParams(r, tensor.BF16, T, 512, 64, normalValues)
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
