package rotary_test

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

func qknFill(d tensor.DType, seed uint32, shape ...int) tensor.Tensor {
	t := tensor.Zeros(d, shape...)
	x := seed*2654435761 + 1
	for i := range t.Len() {
		x = x*1664525 + 1013904223
		v := float32(int32(x>>8)-(1<<23)) / (1 << 22)
		if d == tensor.F32 {
			t.F32[i] = v
		} else {
			t.Bits[i] = tensor.FromFloat32(d, v)
		}
	}
	return t
}

// sameBits reports whether two tensors hold the same bits.
func sameBits(a, b tensor.Tensor) bool {
	return slices.Equal(a.Bits, b.Bits) && slices.EqualFunc(a.F32, b.F32, func(x, y float32) bool {
		return math.Float32bits(x) == math.Float32bits(y)
	})
}

// TestForwardQKNormIsNormThenForward: the fused op equals the norm alone (ForwardQKNorm at
// position 0, where cos is 1 and sin 0) followed by Forward, bit for bit, for plain and partial
// RoPE, MRoPE and positions past the cache, on every backend.
func TestForwardQKNormIsNormThenForward(t *testing.T) {
	specs := map[string]rotary.Spec{
		"qwen3":      {HeadSize: 128, RotaryDim: 128, Base: 1e6, MaxPositions: 4096},
		"partial":    {HeadSize: 64, RotaryDim: 32, Base: 10000, Style: rotary.GPTJ, MaxPositions: 4096},
		"qwen3-vl":   {HeadSize: 128, RotaryDim: 128, Base: 5e6, MaxPositions: 4096, MRoPE: &rotary.MRoPE{Sections: []int{24, 20, 20}, Interleaved: true}},
		"past cache": {HeadSize: 64, RotaryDim: 64, Base: 10000, MaxPositions: 16},
	}
	const T = 7
	for name, sp := range specs {
		for _, backend := range []string{ops.Native, ops.Auto} {
			for _, d := range []tensor.DType{tensor.F32, tensor.BF16, tensor.F16} {
				disp, _ := ops.NewDispatcher("all", backend)
				emb, err := rotary.New(sp, rotary.WithDispatcher(disp))
				if err != nil {
					t.Fatal(err)
				}
				D := sp.HeadSize
				p := []int64{0, 5, 9, 100, 15, 2000, 3}
				pos := tensor.FromI64(p, T)
				if sp.MRoPE != nil {
					p3 := make([]int64, 3*T)
					for i := range p3 {
						p3[i] = p[(i*5+i/T)%T] // three different orders of p
					}
					pos = tensor.FromI64(p3, 3, T)
				}
				zero := tensor.FromI64(make([]int64, T), T)
				q, k := qknFill(d, 1, T, 3, D), qknFill(d, 2, T, 1, D)
				qw, kw := qknFill(d, 3, D), qknFill(d, 4, D)
				fq, fk := q.Clone(), k.Clone()
				if err := emb.ForwardQKNorm(pos, fq, fk, qw, kw, 1e-6); err != nil {
					t.Fatalf("%s %s %v: %v", name, backend, d, err)
				}
				if err := emb.ForwardQKNorm(zero, q, k, qw, kw, 1e-6); err != nil {
					t.Fatal(err)
				}
				if err := emb.Forward(pos, q, k); err != nil {
					t.Fatal(err)
				}
				if !sameBits(q, fq) || !sameBits(k, fk) {
					t.Errorf("%s %s %v: fused result differs from norm then Forward", name, backend, d)
				}
			}
		}
	}
}

// TestForwardQKNormAllocs: the hot path does not allocate, through the cache or the gather.
func TestForwardQKNormAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counts in -short mode")
	}
	for _, c := range []struct {
		name string
		spec rotary.Spec
		rows int
	}{
		{"qwen3", rotary.Spec{HeadSize: 128, RotaryDim: 128, Base: 1e6, MaxPositions: 4096}, 1},
		{"qwen3-vl 3-D", rotary.Spec{HeadSize: 128, RotaryDim: 128, Base: 1e6, MaxPositions: 4096, MRoPE: &rotary.MRoPE{Sections: []int{24, 20, 20}, Interleaved: true}}, 3},
	} {
		emb, err := rotary.New(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		const T = 16
		q, k := qknFill(tensor.BF16, 1, T, 32, 128), qknFill(tensor.BF16, 2, T, 8, 128)
		qw, kw := qknFill(tensor.BF16, 3, 128), qknFill(tensor.BF16, 4, 128)
		p := make([]int64, c.rows*T)
		for i := range p {
			p[i] = int64(i * 7 % 4096)
		}
		pos := tensor.FromI64(p, T)
		if c.rows > 1 {
			pos = tensor.FromI64(p, c.rows, T)
		}
		if c.rows > 1 && raceEnabled {
			continue // the 3-D path gathers into pooled scratch, which -race drops on purpose
		}
		if n := testing.AllocsPerRun(20, func() {
			if err := emb.ForwardQKNorm(pos, q, k, qw, kw, 1e-6); err != nil {
				panic(err)
			}
		}); n != 0 {
			t.Errorf("%s: ForwardQKNorm allocates %v times per call", c.name, n)
		}
	}
}

// TestForwardQKNormBadInput: every refusal names the argument; query and key stay untouched.
func TestForwardQKNormBadInput(t *testing.T) {
	const T, D = 3, 64
	emb, err := rotary.New(rotary.Spec{HeadSize: D, RotaryDim: D, Base: 10000, MaxPositions: 64})
	if err != nil {
		t.Fatal(err)
	}
	dual, err := rotary.New(rotary.Spec{HeadSize: D, RotaryDim: D, Base: 10000, MaxPositions: 64, DualChunk: &rotary.DualChunk{ChunkSize: 16, LocalSize: 4}})
	if err != nil {
		t.Fatal(err)
	}
	type args struct {
		e         *rotary.Embedding
		pos, q, k tensor.Tensor
		qw, kw    tensor.Tensor
		eps       float64
	}
	cases := []struct {
		name string
		mod  func(a *args)
		want []string
	}{
		{"q_weight missing", func(a *args) { a.qw = tensor.Tensor{} }, []string{"q_weight", "missing"}},
		{"q_weight shape", func(a *args) { a.qw = qknFill(tensor.F32, 5, D/2) }, []string{"q_weight", "shape", "[64]"}},
		{"q_weight 2-D", func(a *args) { a.qw = qknFill(tensor.F32, 5, 1, D) }, []string{"q_weight", "shape"}},
		{"q_weight integer", func(a *args) { a.qw = tensor.FromI32(make([]int32, D), D) }, []string{"q_weight", "dtype"}},
		{"q_weight strided", func(a *args) {
			a.qw = tensor.Tensor{DType: tensor.F32, Shape: []int{D}, Strides: []int{2}, F32: make([]float32, 2*D)}
		}, []string{"q_weight", "contiguous"}},
		{"k_weight missing", func(a *args) { a.kw = tensor.Tensor{} }, []string{"k_weight", "missing"}},
		{"k_weight shape", func(a *args) { a.kw = qknFill(tensor.F32, 5, D+2) }, []string{"k_weight", "shape"}},
		{"k_weight outside its buffer", func(a *args) {
			a.kw = tensor.Tensor{DType: tensor.F32, Shape: []int{D}, Offset: 3, F32: make([]float32, D)}
		}, []string{"k_weight", "outside"}},
		{"epsilon negative", func(a *args) { a.eps = -1e-6 }, []string{"epsilon"}},
		{"epsilon NaN", func(a *args) { a.eps = math.NaN() }, []string{"epsilon"}},
		{"epsilon infinite", func(a *args) { a.eps = math.Inf(1) }, []string{"epsilon"}},
		{"epsilon past float32", func(a *args) { a.eps = 1e300 }, []string{"epsilon"}},
		{"positions count", func(a *args) { a.pos = tensor.FromI64([]int64{0, 1}, 2) }, []string{"positions"}},
		{"positions negative", func(a *args) { a.pos = tensor.FromI64([]int64{0, -1, 2}, T) }, []string{"positions", "negative"}},
		{"query head size", func(a *args) { a.q = qknFill(tensor.F32, 6, T, 2, 32) }, []string{"query", "head size"}},
		{"key dtype", func(a *args) { a.k = qknFill(tensor.BF16, 6, T, 1, D) }, []string{"key", "dtype"}},
		{"dual chunk", func(a *args) { a.e = dual }, []string{"dual-chunk"}},
	}
	for _, c := range cases {
		a := args{e: emb, pos: tensor.FromI64([]int64{0, 1, 2}, T), q: qknFill(tensor.F32, 1, T, 2, D), k: qknFill(tensor.F32, 2, T, 1, D),
			qw: qknFill(tensor.F32, 3, D), kw: qknFill(tensor.F32, 4, D), eps: 1e-6}
		c.mod(&a)
		expectRefused(t, c.name, func() error { return a.e.ForwardQKNorm(a.pos, a.q, a.k, a.qw, a.kw, a.eps) }, c.want, a.q, a.k)
	}
	// Without a key, k_weight may be absent; a present one is still checked.
	q := qknFill(tensor.F32, 1, T, 2, D)
	if err := emb.ForwardQKNorm(tensor.FromI64([]int64{0, 1, 2}, T), q, tensor.Tensor{}, qknFill(tensor.F32, 3, D), tensor.Tensor{}, 1e-6); err != nil {
		t.Errorf("no key: %v", err)
	}
	expectRefused(t, "no key, bad k_weight", func() error {
		return emb.ForwardQKNorm(tensor.FromI64([]int64{0, 1, 2}, T), q, tensor.Tensor{}, qknFill(tensor.F32, 3, D), qknFill(tensor.F32, 3, 7), 1e-6)
	}, []string{"k_weight", "shape"}, q)
}

// ExampleEmbedding_ForwardQKNorm runs Qwen3's q_norm/k_norm and RoPE in one pass.
func ExampleEmbedding_ForwardQKNorm() {
	emb, err := rotary.New(rotary.Spec{HeadSize: 4, RotaryDim: 4, Base: 1e6, MaxPositions: 8})
	if err != nil {
		panic(err)
	}
	q := tensor.FromF32([]float32{3, 0, 4, 0}, 1, 1, 4) // one token, one head: rms √(25/4) = 2.5
	k := tensor.FromF32([]float32{0, 2, 0, 0}, 1, 1, 4)
	w := tensor.FromF32([]float32{1, 1, 1, 1}, 4)
	if err := emb.ForwardQKNorm(tensor.FromI64([]int64{0}, 1), q, k, w, w, 0); err != nil {
		panic(err)
	}
	fmt.Println(q.F32, k.F32)
	// Output: [1.2 0 1.6 0] [0 2 0 0]
}
