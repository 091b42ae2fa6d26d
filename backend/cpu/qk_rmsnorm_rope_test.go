package cpu_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/backend/cpu"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// TestQKNormEveryWeightPattern runs qk_rmsnorm_rope with every F16 and BF16 bit pattern as a
// norm weight (NaN, Inf, subnormals, ±0: the products then round through subnormals and
// overflow), heads of tiny, huge, NaN and Inf values, and epsilons of both extremes, through
// every implementation, and compares with native bit for bit (NaNs only need to stay NaNs).
// This pins the assembly's sum of squares, its scale and its intermediate roundings.
func TestQKNormEveryWeightPattern(t *testing.T) {
	defer cpu.SetImplementation(cpu.Implementations()[0])
	const D, T = 128, 3
	spec := rotary.Spec{HeadSize: D, RotaryDim: D, Base: 10000, MaxPositions: 64}
	pos := tensor.FromI64([]int64{0, 1, 2}, T)
	for _, d := range []tensor.DType{tensor.BF16, tensor.F16, tensor.F32} {
		seed := uint64(1)
		next := func() uint64 {
			seed ^= seed << 13
			seed ^= seed >> 7
			seed ^= seed << 17
			return seed
		}
		// Head h of every token: element magnitudes scaled by 2^(scale[h]), some heads with a
		// NaN or an Inf.
		scales := []int{0, -60, 60, -130, 0, 0, -3} // an odd count: the fused kernel's pairs and its lone head
		q := tensor.Zeros(d, T, len(scales), D)
		for tok := range T {
			for h, sc := range scales {
				for j := range D {
					v := math.Ldexp(float64(int64(next()%2001)-1000)/997, sc)
					if h == 4 && j == 77 {
						v = math.NaN()
					}
					if h == 5 && j == 3 {
						v = math.Inf(-1)
					}
					setFloat(q, (tok*len(scales)+h)*D+j, v)
				}
			}
		}
		// Three tokens never reach the pool, so under the race detector a sample of the weight
		// patterns is enough; the ordinary run takes every one.
		step := 1
		if raceEnabled {
			step = 8
		}
		for c := 0; c < 65536/D; c += step {
			w := tensor.Zeros(d, D)
			for j := range D {
				if d == tensor.F32 {
					b := uint32(c*D+j) << 16
					w.F32[j] = math.Float32frombits(b | uint32(next())&0xffff)
				} else {
					w.Bits[j] = uint16(c*D + j)
				}
			}
			eps := []float64{1e-6, 0, 1e30}[c%3]
			want := q.Clone()
			ref, _ := rotary.New(spec, rotary.WithDispatcher(mustDispatcher(t, "none", ops.Auto)))
			if err := ref.ForwardQKNorm(pos, want, tensor.Tensor{}, w, tensor.Tensor{}, eps); err != nil {
				t.Fatal(err)
			}
			for _, impl := range cpu.Implementations() {
				if err := cpu.SetImplementation(impl); err != nil {
					t.Fatal(err)
				}
				emb, _ := rotary.New(spec, rotary.WithDispatcher(mustDispatcher(t, "all", cpu.Name)))
				got := q.Clone()
				if err := emb.ForwardQKNorm(pos, got, tensor.Tensor{}, w, tensor.Tensor{}, eps); err != nil {
					t.Fatal(err)
				}
				if i, ok := firstBitDiff(want, got); !ok {
					t.Fatalf("%v %s weights %d..: element %d: got %v, want %v (input %v, weight %v)", d, impl, c*D, i,
						got.Float64At(i), want.Float64At(i), q.Float64At(i), w.Float64At(i%D))
				}
			}
		}
		t.Run(fmt.Sprint(d), func(*testing.T) {})
	}
}

// firstBitDiff compares two tensors of one dtype bit for bit (any NaN equals any NaN) and
// returns the first differing element.
func firstBitDiff(want, got tensor.Tensor) (int, bool) {
	for i := range want.Len() {
		a, b := want.Float64At(i), got.Float64At(i)
		if math.IsNaN(a) && math.IsNaN(b) {
			continue
		}
		same := a == b && math.Signbit(a) == math.Signbit(b)
		if want.DType != tensor.F32 {
			same = want.Bits[i] == got.Bits[i]
		}
		if !same {
			return i, false
		}
	}
	return 0, true
}

// setFloat stores v, rounded, into element i of a contiguous tensor.
func setFloat(t tensor.Tensor, i int, v float64) {
	if t.DType == tensor.F32 {
		t.F32[i] = float32(v)
		return
	}
	t.Bits[i] = tensor.FromFloat32(t.DType, float32(v))
}

// TestQKNormRoPEManyHeads runs tokens of more heads than the fused kernels take in one block
// (16), and of a block past 8 heads but short of 16 (13 key heads), with heads the bf16 kernel
// must hand back to the exact path (an exact zero, a value that normalizes to a subnormal) at
// the start, middle and end of blocks, and compares every implementation with native bit for
// bit.
func TestQKNormRoPEManyHeads(t *testing.T) {
	defer cpu.SetImplementation(cpu.Implementations()[0])
	const D, T, HQ, HK = 128, 4, 37, 13
	spec := rotary.Spec{HeadSize: D, RotaryDim: D, Base: 1e6, MaxPositions: 64}
	pos := tensor.FromI64([]int64{0, 7, 33, 63}, T)
	seed := uint64(7)
	next := func() float64 {
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		return float64(int64(seed%4001)-2000) / 1000
	}
	// exact[h] is the value of one element of head h in even tokens, one the kernel cannot
	// round exactly; odd tokens have none, so that every head goes through one call.
	fill := func(d tensor.DType, heads int, exact map[int]float64) tensor.Tensor {
		x := tensor.Zeros(d, T, heads, D)
		for tok := range T {
			for h := range heads {
				for j := range D {
					v := next()
					if e, ok := exact[h]; ok && tok%2 == 0 && j == 5+tok {
						v = e
					}
					setFloat(x, (tok*heads+h)*D+j, v)
				}
			}
		}
		return x
	}
	tiny := math.Ldexp(1, -130) // a bf16 and float32 subnormal; x·r stays one
	for _, d := range []tensor.DType{tensor.BF16, tensor.F16, tensor.F32} {
		q := fill(d, HQ, map[int]float64{0: 0, 15: tiny, 16: 0, 20: tiny, 21: 0, 36: 0})
		k := fill(d, HK, map[int]float64{2: 0, 4: tiny})
		qw, kw := fill(d, 1, nil), fill(d, 1, nil)
		qw.Shape, kw.Shape = []int{D}, []int{D}
		// An infinite weight where key head 4 has its subnormal: the reference's y is infinite,
		// while the subnormal flushed to zero would make it NaN.
		setFloat(kw, 5, math.Inf(1))
		setFloat(kw, 7, math.Inf(-1))
		wantQ, wantK := q.Clone(), k.Clone()
		ref, _ := rotary.New(spec, rotary.WithDispatcher(mustDispatcher(t, "none", ops.Auto)))
		if err := ref.ForwardQKNorm(pos, wantQ, wantK, qw, kw, 1e-6); err != nil {
			t.Fatal(err)
		}
		for _, impl := range cpu.Implementations() {
			if err := cpu.SetImplementation(impl); err != nil {
				t.Fatal(err)
			}
			emb, _ := rotary.New(spec, rotary.WithDispatcher(mustDispatcher(t, "all", cpu.Name)))
			gotQ, gotK := q.Clone(), k.Clone()
			if err := emb.ForwardQKNorm(pos, gotQ, gotK, qw, kw, 1e-6); err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				name      string
				want, got tensor.Tensor
			}{{"query", wantQ, gotQ}, {"key", wantK, gotK}} {
				if i, ok := firstBitDiff(c.want, c.got); !ok {
					t.Fatalf("%v %s %s: element %d (head %d): got %v, want %v", d, impl, c.name, i, i/D, c.got.Float64At(i), c.want.Float64At(i))
				}
			}
		}
	}
}

// TestQKNormRoPETinyCosSin gives qk_rmsnorm_rope cos and sin values below 2^-39 (and a
// subnormal one), with heads whose rotated pairs nearly cancel: the rotation's results are then
// subnormal, which the fused bf16 kernel's fast variant could not round. Every implementation
// must match native bit for bit.
func TestQKNormRoPETinyCosSin(t *testing.T) {
	defer cpu.SetImplementation(cpu.Implementations()[0])
	const D, T, H = 128, 4, 3
	x := tensor.Zeros(tensor.BF16, T, H, D)
	seed := uint64(11)
	for i := range T * H * D / 2 {
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		tok, j := i/(H*D/2), i%(H*D/2)
		h, e := j/(D/2), j%(D/2)
		v := float64(int64(seed%2001)-1000) / 500
		setFloat(x, (tok*H+h)*D+e, v)
		setFloat(x, (tok*H+h)*D+e+D/2, v) // the pair's partner: y2 = y1
	}
	// Token 0 ordinary; 1 cos and sin 2^-120 apart by one ULP; 2 a subnormal cos; 3 2^-40.
	cos, sin := make([]float32, T*D/2), make([]float32, T*D/2)
	for i := range D / 2 {
		cos[i], sin[i] = float32(math.Cos(float64(i))), float32(math.Sin(float64(i)))
		c := float32(math.Ldexp(1, -120))
		cos[D/2+i], sin[D/2+i] = c, math.Nextafter32(c, 1)
		cos[D+i], sin[D+i] = 1e-39, 0.5
		cos[3*D/2+i], sin[3*D/2+i] = float32(math.Ldexp(1, -40)), float32(math.Ldexp(3, -41))
	}
	w := tensor.Zeros(tensor.BF16, D)
	for j := range D {
		setFloat(w, j, 1+float64(j%5)/4)
	}
	run := func(disp *ops.Dispatcher) tensor.Tensor {
		out := x.Clone()
		q, _, err := ops.NewQueryKey(out, tensor.Tensor{}, D)
		if err != nil {
			t.Fatal(err)
		}
		a := ops.QKRMSNormRoPEArgs{RoPE: ops.RoPE{RotaryDim: D, Query: q}, Cos: cos, Sin: sin, Half: D / 2}
		if err := ops.NewQKRMSNormWeights(&a, q, ops.Heads{}, w, tensor.Tensor{}, 1e-6); err != nil {
			t.Fatal(err)
		}
		if _, err := ops.Run(disp, ops.QKRMSNormRoPE, a); err != nil {
			t.Fatal(err)
		}
		return out
	}
	want := run(mustDispatcher(t, "none", ops.Auto))
	subnormal := 0
	for i := range want.Len() {
		if v := want.Float64At(i); v != 0 && math.Abs(v) < math.Ldexp(1, -126) {
			subnormal++
		}
	}
	if subnormal == 0 {
		t.Fatal("no subnormal result: the test does not reach the case it is for")
	}
	for _, impl := range cpu.Implementations() {
		if err := cpu.SetImplementation(impl); err != nil {
			t.Fatal(err)
		}
		if i, ok := firstBitDiff(want, run(mustDispatcher(t, "all", cpu.Name))); !ok {
			got := run(mustDispatcher(t, "all", cpu.Name))
			t.Fatalf("%s: element %d (token %d): got %v, want %v", impl, i, i/(H*D), got.Float64At(i), want.Float64At(i))
		}
	}
}

// BenchmarkQKRMSNormRoPE times the bench's Qwen3-8B case (32 query and 8 key heads of 128, bf16,
// in place; T tokens from $T, 4096 by default), with weights of ±1 so that repeated
// application keeps every element's scale.
func BenchmarkQKRMSNormRoPE(b *testing.B) {
	T := 4096
	if v := os.Getenv("T"); v != "" {
		T, _ = strconv.Atoi(v)
	}
	const D = 128
	spec := rotary.Spec{HeadSize: D, RotaryDim: D, Base: 1e6, MaxPositions: T}
	disp, err := ops.NewDispatcher("all", cpu.Name)
	if err != nil {
		b.Fatal(err)
	}
	emb, err := rotary.New(spec, rotary.WithDispatcher(disp))
	if err != nil {
		b.Fatal(err)
	}
	p := make([]int64, T)
	for i := range p {
		p[i] = int64(i)
	}
	pos := tensor.FromI64(p, T)
	r := rand.New(rand.NewPCG(9, 10))
	q, k := randomTensor(r, tensor.BF16, normalValues, T, 32, D), randomTensor(r, tensor.BF16, normalValues, T, 8, D)
	w := tensor.Zeros(tensor.BF16, D)
	for i := range D {
		w.Bits[i] = tensor.FromFloat32(tensor.BF16, float32(1-2*r.IntN(2)))
	}
	b.SetBytes(int64(2 * (q.Len() + k.Len()) * 2))
	for b.Loop() {
		if err := emb.ForwardQKNorm(pos, q, k, w, w, 1e-6); err != nil {
			b.Fatal(err)
		}
	}
}
